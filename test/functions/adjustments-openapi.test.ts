/**
 * The OpenAPI document says what the adjustments and warnings routes answer: each route is called
 * through the Lambda handler (as API Gateway calls it, over the workflow harness's local S3) in
 * every way a caller can provoke, and the statuses answered are the ones the document lists for
 * it (500, an internal failure, aside). The API is built as a deployment builds it, without a
 * store of its own: the adjustments are kept in the bucket and nothing answers 501.
 */
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { createApiHandler } from '../../lib/lambda/index.ts';
import { loadEvent, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});

const ANA: Record<string, unknown> = { email: 'ana@example.com', pbs_profiles: 'demo nosuch' };

interface Call {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  body?: string;
  headers?: Record<string, string>;
  claims?: Record<string, unknown>;
  query?: string;
}

/** Calls the API's Lambda handler as API Gateway would; answers the status. */
async function status({ method, path, body, headers = {}, claims = ANA, query }: Call): Promise<number> {
  const event: APIGatewayProxyEventV2 = await loadEvent('post-reports.json');
  event.rawPath = path;
  if (query !== undefined) {
    event.rawQueryString = query;
    event.queryStringParameters = Object.fromEntries(new URLSearchParams(query));
  }
  event.routeKey = `${method} ${path}`;
  event.requestContext.http = { ...event.requestContext.http, method, path };
  event.headers = { ...event.headers, ...headers };
  if (body === undefined) delete event.body;
  else event.body = body;
  (event.requestContext as unknown as { authorizer: unknown }).authorizer = { jwt: { claims, scopes: [] } };
  const context = h.apiContext({ profilesClaim: 'pbs_profiles' });
  const result = (await createApiHandler(context)(event)) as APIGatewayProxyStructuredResultV2;
  return result.statusCode ?? 0;
}

/** The statuses the OpenAPI document lists for an operation. */
async function documented(path: string, method: 'get' | 'post' | 'delete'): Promise<number[]> {
  const event = await loadEvent('get-report.json');
  event.rawPath = '/openapi.json';
  event.requestContext.http.path = '/openapi.json';
  const result = (await createApiHandler(h.apiContext())(event)) as APIGatewayProxyStructuredResultV2;
  const doc = JSON.parse(result.body ?? 'null') as {
    paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
  };
  return Object.keys(doc.paths[path]?.[method]?.responses ?? {})
    .map(Number)
    .sort((a, b) => a - b);
}

const sorted = (statuses: number[]) => [...new Set(statuses)].sort((a, b) => a - b);
const json = { 'content-type': 'application/json' };
const SPAM = JSON.stringify({
  id: 'spam-claim',
  kind: 'spam',
  token: 'ETHG-CLAIM',
  why: 'Unsolicited airdrop',
});

/** A succeeded set of `demo` whose gains warnings CSV is in the bucket (header only: no warning). */
async function succeededSet(): Promise<JobRecord> {
  const queued = await h.queueJob({
    profile: 'demo',
    period: '2025-01',
    reports: ['gains'],
    formats: ['csv'],
  });
  const key = `reports/demo/2025-01/run/demo_2025-01_gains_warnings.csv`;
  await h.client.send(
    new PutObjectCommand({
      Bucket: h.bucket,
      Key: key,
      Body: 'date,transaction_id,kind,token,account,quantity,message,suggestion\r\n',
    }),
  );
  const job: JobRecord = {
    ...queued,
    jobId: 'f'.repeat(32),
    idempotencyKey: 'test:succeeded',
    state: 'succeeded',
    result: {
      runId: 'run',
      prefix: 'reports/demo/2025-01/run',
      files: [{ name: 'demo_2025-01_gains_warnings.csv', key, bytes: 70, sha256: 'ab'.repeat(32) }],
    },
  };
  await h.jobs.create(job);
  return job;
}

describe('the adjustments routes answer what the OpenAPI document lists, and never 501', () => {
  it('GET /profiles/{profile}/adjustments', async () => {
    const answered = [
      await status({ method: 'GET', path: '/profiles/demo/adjustments' }),
      await status({ method: 'GET', path: '/profiles/de.mo/adjustments' }),
      await status({ method: 'GET', path: '/profiles/acme/adjustments' }),
      await status({ method: 'GET', path: '/profiles/nosuch/adjustments' }),
    ];
    expect(answered).toEqual([200, 400, 403, 404]);
    expect(await documented('/profiles/{profile}/adjustments', 'get')).toEqual([...sorted(answered), 500]);
  });

  it('POST /profiles/{profile}/adjustments', async () => {
    const post = (body: string, headers: Record<string, string>, profile = 'demo', claims = ANA) =>
      status({ method: 'POST', path: `/profiles/${profile}/adjustments`, body, headers, claims });
    const answered = [
      await post(SPAM, { ...json, 'if-match': '"0"' }),
      await post(SPAM, { ...json, 'if-match': '"1"' }),
      await post(SPAM, { ...json, 'if-match': '"0"' }),
      await post(SPAM, json),
      await post(JSON.stringify({ kind: 'guess', why: 'x' }), { ...json, 'if-match': '"1"' }),
      await post(SPAM, { ...json, 'if-match': '"1"' }, 'demo', { pbs_profiles: 'demo' }),
      await post(SPAM, { ...json, 'if-match': '"0"' }, 'acme'),
      await post(SPAM, { ...json, 'if-match': '"0"' }, 'nosuch'),
      await post(`{"why":"${'x'.repeat(70_000)}"}`, { ...json, 'if-match': '"1"' }),
      await post(SPAM, { 'content-type': 'text/plain', 'if-match': '"1"' }),
      // The same token marked as spam twice: the two contradict each other.
      await post(JSON.stringify({ kind: 'spam', token: 'ETHG-CLAIM', why: 'again' }), {
        ...json,
        'if-match': '"1"',
      }),
    ];
    expect(answered).toEqual([201, 409, 412, 428, 400, 401, 403, 404, 413, 415, 422]);
    expect(await documented('/profiles/{profile}/adjustments', 'post')).toEqual([...sorted(answered), 500]);
  });

  it('DELETE /profiles/{profile}/adjustments/{id}', async () => {
    const withdraw = (id: string, query: string, headers: Record<string, string>, claims = ANA) =>
      status({ method: 'DELETE', path: `/profiles/demo/adjustments/${id}`, headers, claims, query });
    const why = 'why=posted+by+mistake';
    const answered = [
      await withdraw('spam-claim', why, { 'if-match': '"1"' }),
      await withdraw('spam-claim', why, { 'if-match': '"2"' }),
      await withdraw('manual-v2', why, { 'if-match': '"1"' }),
      await withdraw('manual-v2', why, {}),
      await withdraw('manual-v2', '', { 'if-match': '"2"' }),
      await withdraw('manual-v2', why, { 'if-match': '"2"' }, { pbs_profiles: 'demo' }),
      await status({
        method: 'DELETE',
        path: '/profiles/acme/adjustments/x',
        query: why,
        headers: { 'if-match': '"0"' },
      }),
    ];
    expect(answered).toEqual([200, 404, 412, 428, 400, 401, 403]);
    expect(await documented('/profiles/{profile}/adjustments/{id}', 'delete')).toEqual([
      ...sorted(answered),
      500,
    ]);
  });

  it('lists no 501 on any adjustments route', async () => {
    const event = await loadEvent('get-report.json');
    event.rawPath = '/openapi.json';
    event.requestContext.http.path = '/openapi.json';
    const result = (await createApiHandler(h.apiContext())(event)) as APIGatewayProxyStructuredResultV2;
    const doc = JSON.parse(result.body ?? 'null') as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const routes = Object.entries(doc.paths).filter(([path]) => path.includes('adjustments'));
    expect(routes.map(([path]) => path).sort()).toEqual([
      '/profiles/{profile}/adjustments',
      '/profiles/{profile}/adjustments/{id}',
    ]);
    for (const [, operations] of routes)
      for (const operation of Object.values(operations))
        expect(Object.keys(operation.responses)).not.toContain('501');
  });

  it('GET /reports/{jobId}/warnings', async () => {
    const queued = await h.queueJob({
      profile: 'demo',
      period: '2025-02',
      reports: ['gains'],
      formats: ['csv'],
    });
    const set = await succeededSet();
    const answered = [
      await status({ method: 'GET', path: `/reports/${set.jobId}/warnings` }),
      await status({ method: 'GET', path: '/reports/not-a-job/warnings' }),
      await status({ method: 'GET', path: `/reports/${'0'.repeat(32)}/warnings` }),
      await status({ method: 'GET', path: `/reports/${queued.jobId}/warnings` }),
    ];
    expect(answered).toEqual([200, 400, 404, 409]);
    expect(await documented('/reports/{jobId}/warnings', 'get')).toEqual([...sorted(answered), 500]);
  });

  it('POST /reports/{jobId}/rerun', async () => {
    const first = await h.queueJob({
      profile: 'demo',
      period: '2025-03',
      reports: ['gains'],
      formats: ['csv'],
    });
    const second = await h.queueJob({
      profile: 'demo',
      period: '2025-04',
      reports: ['gains'],
      formats: ['csv'],
    });
    const rerun = (jobId: string, claims = ANA) =>
      status({ method: 'POST', path: `/reports/${jobId}/rerun`, claims });
    h.resetSfn();
    const started = await rerun(first.jobId);
    h.sfn.on(StartExecutionCommand).rejects(new Error('throttled'));
    const failed = await rerun(second.jobId);
    h.resetSfn();
    const answered = [
      started,
      await rerun('not-a-job'),
      await rerun(first.jobId, { pbs_profiles: 'demo' }),
      await rerun('0'.repeat(32)),
      failed,
    ];
    expect(answered).toEqual([202, 400, 401, 404, 503]);
    expect(await documented('/reports/{jobId}/rerun', 'post')).toEqual(sorted([...answered, 500]));
  });
});
