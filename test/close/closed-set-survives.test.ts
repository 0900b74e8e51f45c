/**
 * A closed set survives the project's own paths: the workflow's finish (retried after the set
 * was closed) is refused without touching it, the export's publish into it is refused, and over
 * the API a close is attributed to its caller, cannot be made twice, and a reopen needs a reason.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closePeriod,
  createLocalCloseStore,
  createS3CloseStore,
  guardSink,
  SetClosedError,
} from '../../lib/close/index.ts';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { KEYS } from '../../lib/jobs/index.ts';
import {
  createApiHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
} from '../../lib/lambda/index.ts';
import { createServiceClient } from '../../lib/service-client.ts';
import { createLocalSink } from '../../lib/storage/index.ts';
import { loadEvent, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});

async function runAll(jobId: string) {
  const context = h.workerContext();
  const plan = await createPlanHandler(context)({ jobId });
  for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId, shard });
  await createFinishHandler(context)({ jobId });
}

async function objectSha(key: string): Promise<string> {
  const answer = await h.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: key }));
  return createHash('sha256')
    .update(await (answer.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray())
    .digest('hex');
}

/** A succeeded job's set, closed by ann. */
async function closedSet(period: string) {
  const job = await h.queueJob({ profile: 'acme', period, formats: ['csv'] });
  await runAll(job.jobId);
  const result = (await h.jobs.require(job.jobId)).result;
  if (result === undefined) throw new Error('the export did not succeed');
  const store = createS3CloseStore({ client: h.client, bucket: h.bucket });
  const close = await closePeriod(
    { profile: 'acme', period, runId: result.runId, by: 'ann' },
    { store, now: h.now },
  );
  return { job, result, close };
}

describe('a closed set and the workflow', () => {
  it('refuses a retried finish that would publish the closed run again, and leaves its files as they were', async () => {
    const { job, result } = await closedSet('2025-03');
    const before = await Promise.all(result.files.map((file) => objectSha(file.key)));
    // The finish is retried after the work area lost its record of the publication (expired).
    await h.client.send(new DeleteObjectCommand({ Bucket: h.bucket, Key: KEYS.published(job.jobId) }));
    await h.jobs.update(job.jobId, (current) => {
      const { result: _published, ...rest } = current;
      return { ...rest, state: 'running' };
    });

    const retried = createFinishHandler(h.workerContext())({ jobId: job.jobId });

    await expect(retried).rejects.toMatchObject({ name: 'SetClosedError', code: 'set_closed' });
    await expect(retried).rejects.toThrow(/closed by ann/);
    expect(await Promise.all(result.files.map((file) => objectSha(file.key)))).toEqual(before);
  });
});

describe('a closed set and the export publish (the CLI run)', () => {
  it('refuses to publish into the closed set and to remove a file of it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pbs-closed-'));
    try {
      const acme = h.simulator.profiles.find((p) => p.name === 'acme');
      if (acme === undefined) throw new Error('no acme');
      const client = createServiceClient(
        { baseUrl: h.simulator.url, requestsPerSecond: 1000 },
        { apiKey: acme.apiKey, apiSecret: acme.apiSecret },
      );
      const store = createLocalCloseStore(dir);
      const sink = guardSink(createLocalSink(dir), store);
      const request = parseExportRequest({ profile: 'acme', period: '2025-04', formats: ['csv'] });
      const deps = {
        client,
        sink,
        fields: client.shape.fields,
        apiBase: h.simulator.url,
        now: () => new Date('2025-05-02T00:00:00Z'),
      };
      const first = await runExport(request, { ...deps, runId: '20250502T000000Z-aaaaaa' });
      await closePeriod(
        { profile: 'acme', period: '2025-04', runId: first.runId, by: 'ann' },
        { store, now: deps.now },
      );
      const manifest = await readFile(join(dir, first.prefix, 'manifest.json'));

      await expect(runExport(request, { ...deps, runId: first.runId })).rejects.toBeInstanceOf(
        SetClosedError,
      );
      await expect(sink.remove?.(`${first.prefix}/manifest.json`)).rejects.toBeInstanceOf(SetClosedError);
      expect(await readFile(join(dir, first.prefix, 'manifest.json'))).toEqual(manifest);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('closing over the HTTP API', () => {
  async function call(method: 'GET' | 'POST', path: string, body: unknown, claims: Record<string, unknown>) {
    const event = await loadEvent('post-reports.json');
    const request: APIGatewayProxyEventV2 = {
      ...event,
      routeKey: `${method} ${path}`,
      rawPath: path,
      rawQueryString: method === 'GET' ? 'profile=acme' : '',
      ...(method === 'GET' ? { queryStringParameters: { profile: 'acme' } } : {}),
      body: method === 'POST' ? JSON.stringify(body) : undefined,
      requestContext: {
        ...event.requestContext,
        http: { ...event.requestContext.http, method, path },
        authorizer: { jwt: { claims, scopes: [] } },
      } as APIGatewayProxyEventV2['requestContext'],
    };
    const context = h.apiContext({ profilesClaim: 'pbs_profiles' });
    const result = (await createApiHandler(context)(request)) as APIGatewayProxyStructuredResultV2;
    return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') };
  }
  const ann = { email: 'ann@firm.example', pbs_profiles: 'acme' };

  it('closes a set attributed to the caller, refuses a second close and a reopen without reason, and lists who closed it', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-05', formats: ['csv'] });
    await runAll(job.jobId);
    const runId = (await h.jobs.require(job.jobId)).result?.runId;

    const closed = await call(
      'POST',
      '/closes',
      { profile: 'acme', period: '2025-05', runId, reason: 'books of May done' },
      ann,
    );
    const again = await call('POST', '/closes', { profile: 'acme', period: '2025-05', runId }, ann);
    const noReason = await call(
      'POST',
      '/closes/reopen',
      { profile: 'acme', period: '2025-05', reason: '' },
      ann,
    );
    const listed = await call('GET', '/closes', null, ann);

    expect(closed).toMatchObject({
      status: 201,
      body: { action: 'close', by: 'ann@firm.example', runId, period: '2025-05' },
    });
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'period_closed' } } });
    expect(noReason.status).toBe(400);
    // The issue's reason without its field's name in front: the issue names the field apart
    // (walk-through 2026-12-08: "period: period: \"2025-1x\" is not a month …").
    const badPeriod = await call('POST', '/closes', { profile: 'acme', period: '2025-1x', runId }, ann);
    expect(badPeriod).toMatchObject({ status: 400, body: { error: { field: 'period' } } });
    expect(badPeriod.body.error.issues).toEqual([
      { field: 'period', reason: expect.stringMatching(/^"2025-1x" is not a month/) },
    ]);
    expect(listed.status).toBe(200);
    expect(listed.body.periods.find((p: { period: string }) => p.period === '2025-05')?.closed).toMatchObject(
      { by: 'ann@firm.example' },
    );
  });

  it("answers 403 for a profile outside the caller's claim", async () => {
    const bob = { email: 'bob@firm.example', pbs_profiles: 'demo' };
    const answer = await call(
      'POST',
      '/closes',
      { profile: 'acme', period: '2025-05', runId: '20250601T000000Z-abcdef' },
      bob,
    );
    expect(answer.status).toBe(403);
  });
});
