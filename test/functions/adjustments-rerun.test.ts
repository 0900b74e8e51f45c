/**
 * Resolving a warning over the API and re-running the set, with the store the deployment builds
 * (lib/adjustments' S3 store in the data bucket, which the finish worker reads): the re-run's
 * request names the newest version and its sha256, its figures use it, and its manifest records it.
 */

import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createS3AdjustmentsStore } from '../../lib/adjustments/index.ts';
import {
  createApiHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
} from '../../lib/lambda/index.ts';
import {
  captureOutput,
  loadEvent,
  NOW,
  startWorkflowHarness,
  type WorkflowHarness,
} from '../support/workflow.ts';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
  h.setNow(NOW);
});
afterAll(async () => {
  await h.close();
});

const ANA = { email: 'ana@example.com', pbs_profiles: 'demo' };

/** Calls the API's Lambda handler as API Gateway would, with the JWT authorizer's claims. */
async function call(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const event: APIGatewayProxyEventV2 = await loadEvent('post-reports.json');
  event.rawPath = path;
  event.routeKey = `${method} ${path}`;
  event.requestContext.http = { ...event.requestContext.http, method, path };
  event.headers = { ...event.headers, ...headers };
  if (body === undefined) delete event.body;
  else event.body = JSON.stringify(body);
  (event.requestContext as unknown as { authorizer: unknown }).authorizer = {
    jwt: { claims: ANA, scopes: [] },
  };
  const adjustments = createS3AdjustmentsStore({ client: h.client, bucket: h.bucket });
  const context = h.apiContext({ adjustments, profilesClaim: 'pbs_profiles' });
  const result = (await createApiHandler(context)(event)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
}

/** Runs a queued job's plan, shards and finish with the real tasks. */
async function runJob(jobId: string): Promise<void> {
  const context = h.workerContext();
  const plan = await createPlanHandler(context)({ jobId });
  for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId, shard });
  await createFinishHandler(context)({ jobId });
}

/** The text of a file of a finished job's set. */
async function fileOf(jobId: string, suffix: string): Promise<string> {
  const key = (await h.jobs.require(jobId)).result?.files.find((f) => f.name.endsWith(suffix))?.key;
  const object = await h.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: key }));
  return (await object.Body?.transformToString('utf8')) ?? '';
}

/** How each warning of the spam token is resolved in a set's warnings CSV. */
const spamResolution = async (jobId: string) =>
  (
    parse(await fileOf(jobId, '_gains_warnings.csv'), { bom: true, columns: true }) as {
      token: string;
      resolution: string;
    }[]
  )
    .filter((row) => row.token === 'ETHG-CLAIM')
    .map((row) => row.resolution);

it('re-runs a set over the newest adjustments: the request names them, the warnings are resolved, the manifest records them', async () => {
  const started = await call(
    'POST',
    '/reports',
    { profile: 'demo', period: '2025', reports: ['gains'], gains: { taxRules: 'us' }, formats: ['csv'] },
    { 'idempotency-key': 'rerun-set' },
  );
  const jobId: string = started.body.jobId;
  await runJob(jobId);
  // Without adjustments the set has no resolution column at all.
  expect(await spamResolution(jobId)).toEqual([undefined, undefined]);

  const spam = { id: 'spam-claim', kind: 'spam', token: 'ETHG-CLAIM', why: 'Unsolicited airdrop' };
  expect((await call('POST', '/profiles/demo/adjustments', spam, { 'if-match': '"0"' })).status).toBe(201);
  const rerun = await call('POST', `/reports/${jobId}/rerun`);
  expect(rerun.status).toBe(202);
  const stored = await createS3AdjustmentsStore({ client: h.client, bucket: h.bucket }).get('demo', 1);
  expect(rerun.body.adjustments).toEqual({ version: 1, sha256: stored.sha256 });
  expect((await h.jobs.require(rerun.body.jobId)).request.adjustments).toEqual({
    version: 1,
    sha256: stored.sha256,
  });

  await runJob(rerun.body.jobId);
  expect((await h.jobs.require(rerun.body.jobId)).state).toBe('succeeded');
  expect(await spamResolution(rerun.body.jobId)).toEqual([
    'resolved by spam-claim',
    'resolved by spam-claim',
  ]);
  const figures = async (id: string) => (await call('GET', `/reports/${id}/warnings`)).body.figures;
  expect(await figures(jobId)).toMatchObject({ currency: 'USD', adjustments: null });
  expect(await figures(rerun.body.jobId)).toMatchObject({
    netGain: expect.stringMatching(/^-?\d+\.\d{2}$/),
    adjustments: { version: 1, sha256: stored.sha256 },
  });
  expect(JSON.parse(await fileOf(rerun.body.jobId, 'manifest.json')).adjustments).toEqual({
    profile: 'demo',
    version: 1,
    sha256: stored.sha256,
  });
}, 240_000);

it('answers a concurrent change with 412 and writes nothing', async () => {
  const store = createS3AdjustmentsStore({ client: h.client, bucket: h.bucket });
  const before = (await store.latest('demo'))?.document.version ?? 0;
  const value = { id: 'late', kind: 'spam', token: 'NOPE', why: 'test' };
  const answer = await call('POST', '/profiles/demo/adjustments', value, { 'if-match': `"${before + 5}"` });
  expect(answer.status).toBe(412);
  expect((await store.latest('demo'))?.document.version ?? 0).toBe(before);
});

it("says a re-run's adjustment the data does not fit in one warning line naming the field and the reason, no stack trace", async () => {
  const started = await call(
    'POST',
    '/reports',
    { profile: 'demo', period: '2025-01', reports: ['gains'], gains: { taxRules: 'us' }, formats: ['csv'] },
    { 'idempotency-key': 'rerun-misfit' },
  );
  await runJob(started.body.jobId);
  // A version holding only an adjustment naming a transaction the data does not have, stored past
  // the API's check (as one stored before any gains set was there to check it against).
  const store = createS3AdjustmentsStore({ client: h.client, bucket: h.bucket });
  const latest = await store.latest('demo');
  const ghost = {
    id: 'ghost',
    kind: 'category' as const,
    txId: 'tx_not_there',
    category: 'income' as const,
    why: 'test',
    by: 'ana@example.com',
    at: NOW.toISOString(),
  };
  const before = latest?.document.version ?? 0;
  const document = {
    schema: 'pbs-export/adjustments@1' as const,
    profile: 'demo',
    version: before + 1,
    adjustments: [ghost],
  };
  await store.put('demo', document, before);
  const rerun = await call('POST', `/reports/${started.body.jobId}/rerun`);
  expect(rerun.status).toBe(202);

  // The finish fails (the state machine's fail task then records the job as failed).
  const output = captureOutput();
  let thrown: unknown;
  try {
    await runJob(rerun.body.jobId).catch((error) => {
      thrown = error;
    });
  } finally {
    output.stop();
  }
  expect(String(thrown)).toContain('tx_not_there');
  const failed = output.lines().filter((line) => String(line.message).startsWith('invocation failed'));
  expect(failed).toHaveLength(1);
  expect(failed[0]).toMatchObject({
    level: 'WARN',
    message: 'invocation failed: invalid adjustments',
    adjustment: 'ghost',
    field: 'txId',
  });
  expect(String(failed[0]?.reason)).toContain('"tx_not_there"');
  expect(output.lines().filter((line) => line.level === 'ERROR')).toEqual([]);
  expect(output.text()).not.toMatch(/"stack"|\n\s+at .+\.ts:\d+/);
}, 240_000);
