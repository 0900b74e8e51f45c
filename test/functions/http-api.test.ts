import { createHash } from 'node:crypto';
import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJobStore } from '../../lib/jobs/index.ts';
import {
  createApiHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
} from '../../lib/lambda/index.ts';
import { failCommands } from '../support/s3.ts';
import {
  captureOutput,
  loadEvent,
  NOW,
  STATE_MACHINE_ARN,
  s3Error,
  startWorkflowHarness,
  type WorkflowHarness,
} from '../support/workflow.ts';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.resetSfn();
  h.setNow(NOW);
});

let periodCounter = 0;
/** A period no other test uses, so identical-request idempotency never crosses tests. */
function freshPeriod(): string {
  periodCounter += 1;
  return `${2000 + periodCounter}-01`;
}

async function post(body: unknown, headers: Record<string, string> = {}, raw?: string) {
  const event = await loadEvent('post-reports.json');
  event.body = raw ?? JSON.stringify(body);
  event.headers = { ...event.headers, ...headers };
  return call(event);
}

async function call(event: APIGatewayProxyEventV2, context = h.apiContext()) {
  const result = (await createApiHandler(context)(event)) as APIGatewayProxyStructuredResultV2;
  return {
    status: result.statusCode,
    body: JSON.parse(result.body ?? 'null'),
    headers: result.headers ?? {},
  };
}

async function getJob(jobId: string) {
  const event = await loadEvent('get-report.json');
  event.rawPath = `/reports/${jobId}`;
  event.pathParameters = { jobId };
  return call(event);
}

/** Runs the export of a job to its end with the real task handlers, as the state machine would. */
async function runExport(jobId: string) {
  const context = h.workerContext();
  const plan = await createPlanHandler(context)({ jobId });
  for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId, shard });
  await createFinishHandler(context)({ jobId });
}

async function list(query: Record<string, string>) {
  const event = await loadEvent('list-reports.json');
  event.queryStringParameters = query;
  return call(event);
}

describe('POST /reports', () => {
  it('answers 202 with the job id, queued state and status URL', async () => {
    const { status, body, headers } = await post({ profile: 'acme', period: freshPeriod() });

    expect(status).toBe(202);
    expect(body).toEqual({
      jobId: expect.stringMatching(/^[0-9a-f]{32}$/),
      state: 'queued',
      statusUrl: `https://abc123.execute-api.eu-central-1.amazonaws.com/reports/${body.jobId}`,
    });
    expect(headers.location).toBe(body.statusUrl);
  });

  it('stores a queued job record of the validated request', async () => {
    const period = freshPeriod();
    const { body } = await post({ profile: 'acme', period, timeZone: 'Europe/Berlin' });

    expect(await h.jobs.get(body.jobId)).toMatchObject({
      jobId: body.jobId,
      profile: 'acme',
      state: 'queued',
      source: 'api',
      request: { profile: 'acme', period, timeZone: 'Europe/Berlin', formats: ['csv', 'xlsx'] },
    });
  });

  it('stores the journal report with its chart, and the gains reports it ties out to', async () => {
    const period = freshPeriod();
    const journal = { formats: ['hledger'], rollup: true, chart: { fee: { code: 'Expenses:Gas' } } };
    const { status, body } = await post({ profile: 'acme', period, reports: ['journal'], journal });

    expect(status).toBe(202);
    expect(await h.jobs.get(body.jobId)).toMatchObject({
      request: { reports: ['gains', 'journal'], journal, gains: { method: 'fifo' } },
    });
  });

  it('answers 400 naming the journal field of an unknown account kind', async () => {
    const { status, body } = await post({
      profile: 'acme',
      period: freshPeriod(),
      reports: ['journal'],
      journal: { chart: { bank: { code: '1200' } } },
    });

    expect(status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(body)).toMatch(/journal\.chart\.bank/);
  });

  it('starts one execution named by the job id with the job id as input', async () => {
    const { body } = await post({ profile: 'acme', period: freshPeriod() });

    expect(h.startCalls()).toEqual([
      { stateMachineArn: STATE_MACHINE_ARN, name: body.jobId, input: JSON.stringify({ jobId: body.jobId }) },
    ]);
  });

  it('returns the existing job with 200 and starts nothing for a repeated Idempotency-Key', async () => {
    const request = { profile: 'acme', period: freshPeriod() };
    const first = await post(request, { 'Idempotency-Key': 'order-4711' });

    const second = await post(request, { 'Idempotency-Key': 'order-4711' });

    expect(second.status).toBe(200);
    expect(second.body.jobId).toBe(first.body.jobId);
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it('returns the existing job for an identical request without a key', async () => {
    const request = { profile: 'acme', period: freshPeriod(), formats: ['xlsx', 'csv'] };
    const first = await post(request);

    const second = await post({ formats: ['csv', 'xlsx'], period: request.period, profile: 'acme' });

    expect(second).toMatchObject({ status: 200, body: { jobId: first.body.jobId } });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it('returns the partial job of a month not over only while it is open, and starts a fresh export once it is over', async () => {
    const request = { profile: 'acme', period: '2090-11' };
    h.setNow(new Date('2090-11-26T10:00:00.000Z'));
    const open = await post(request);
    const openAgain = await post(request);
    h.setNow(new Date('2090-12-01T00:00:00.000Z'));
    const over = await post(request);
    const overAgain = await post(request);

    expect([open.status, openAgain.status, over.status, overAgain.status]).toEqual([202, 200, 202, 200]);
    expect(openAgain.body.jobId).toBe(open.body.jobId);
    expect(over.body.jobId).not.toBe(open.body.jobId);
    expect(overAgain.body.jobId).toBe(over.body.jobId);
  });

  it('starts a fresh export for a repeated Idempotency-Key once the month it asked for while open is over', async () => {
    const request = { profile: 'acme', period: '2091-11' };
    h.setNow(new Date('2091-11-26T10:00:00.000Z'));
    const open = await post(request, { 'Idempotency-Key': 'november-2091' });
    h.setNow(new Date('2091-12-02T00:00:00.000Z'));
    const over = await post(request, { 'Idempotency-Key': 'november-2091' });

    expect([open.status, over.status]).toEqual([202, 202]);
    expect(over.body.jobId).not.toBe(open.body.jobId);
  });

  it('answers 422 naming Idempotency-Key when the key is reused for another request, leaving the job', async () => {
    const first = await post({ profile: 'acme', period: freshPeriod() }, { 'idempotency-key': 'reused-key' });
    const before = await h.jobs.get(first.body.jobId);

    const { status, body } = await post(
      { profile: 'acme', period: freshPeriod() },
      { 'idempotency-key': 'reused-key' },
    );

    expect(status).toBe(422);
    expect(body.error).toMatchObject({ code: 'idempotency_key_reused', field: 'Idempotency-Key' });
    expect(await h.jobs.get(first.body.jobId)).toEqual(before);
  });

  it('starts nothing for a reused key with another body, even when its job has been queued for minutes', async () => {
    const first = await post({ profile: 'acme', period: freshPeriod() }, { 'idempotency-key': 'stale-key' });
    h.sfn.resetHistory();
    h.setNow(new Date(NOW.getTime() + 10 * 60_000));

    const reused = await post({ profile: 'acme', period: freshPeriod() }, { 'idempotency-key': 'stale-key' });

    expect(reused.status).toBe(422);
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    expect((await h.jobs.get(first.body.jobId))?.state).toBe('queued');
  });

  it('answers a repeat of a succeeded request with 200 and the job as GET shows it, files included', async () => {
    const request = { profile: 'acme', period: '2025-08', formats: ['csv'] };
    const created = await post(request);
    await runExport(created.body.jobId);

    const repeat = await post(request);

    expect(repeat.status).toBe(200);
    expect(repeat.body).toMatchObject({
      jobId: created.body.jobId,
      state: 'succeeded',
      runId: expect.any(String),
    });
    expect(repeat.body.files.length).toBeGreaterThan(0);
    expect((await h.jobs.get(created.body.jobId))?.state).toBe('succeeded');
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it.each([
    ['text/plain', 'text/plain'],
    ['a form', 'application/x-www-form-urlencoded'],
    ['JSON in another charset', 'application/json; charset=iso-8859-1'],
  ])('answers 415 naming Content-Type for %s, starting nothing', async (_case, contentType) => {
    const { status, body } = await post(
      { profile: 'acme', period: freshPeriod() },
      { 'content-type': contentType },
    );

    expect(status).toBe(415);
    expect(body.error).toMatchObject({ code: 'unsupported_media_type', field: 'Content-Type' });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('answers 415 naming Content-Type when the header is missing', async () => {
    const event = await loadEvent('post-reports.json');
    const { 'content-type': _removed, ...headers } = event.headers;
    event.headers = headers;

    const { status, body } = await call(event);

    expect(status).toBe(415);
    expect(body.error).toMatchObject({
      field: 'Content-Type',
      message: 'Content-Type: required: application/json',
    });
  });

  it('accepts application/json with a UTF-8 charset', async () => {
    const { status } = await post(
      { profile: 'acme', period: freshPeriod() },
      { 'content-type': 'Application/JSON; charset="UTF-8"' },
    );

    expect(status).toBe(202);
  });

  it('builds statusUrl and Location from the configured base URL, not from Host or X-Forwarded-Proto', async () => {
    const event = await loadEvent('post-reports.json');
    event.body = JSON.stringify({ profile: 'acme', period: freshPeriod() });
    event.headers = { ...event.headers, host: 'evil.example', 'x-forwarded-proto': 'http' };
    event.requestContext.domainName = 'evil.example';

    const { body, headers } = await call(
      event,
      h.apiContext({ publicBaseUrl: 'https://reports.example.com/v1/' }),
    );

    expect(body.statusUrl).toBe(`https://reports.example.com/v1/reports/${body.jobId}`);
    expect(headers.location).toBe(body.statusUrl);
  });

  it('returns the existing job when the conditional create loses a race (412)', async () => {
    const period = freshPeriod();
    const winner = await post({ profile: 'acme', period }, { 'Idempotency-Key': 'race-1' });
    h.sfn.resetHistory();
    // The loser's If-None-Match write is refused by S3 itself, as when both writes race.
    const client = h.s3.createClient();
    failCommands(
      client,
      (name, input) => name === 'PutObjectCommand' && input.IfNoneMatch === '*',
      s3Error('PreconditionFailed', 412),
    );
    const context = h.apiContext({ jobs: createJobStore({ client, bucket: h.bucket }), s3: client });
    const event = await loadEvent('post-reports.json');
    event.body = JSON.stringify({ profile: 'acme', period });
    event.headers = { ...event.headers, 'idempotency-key': 'race-1' };

    const loser = await call(event, context);

    expect(loser).toMatchObject({ status: 200, body: { jobId: winner.body.jobId, state: 'queued' } });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('treats ExecutionAlreadyExists from Step Functions as started', async () => {
    h.sfn
      .on(StartExecutionCommand)
      .rejectsOnce(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));

    const { status } = await post({ profile: 'acme', period: freshPeriod() });

    expect(status).toBe(202);
  });

  it('answers 503 and removes the job when the execution cannot be started', async () => {
    h.sfn
      .on(StartExecutionCommand)
      .rejectsOnce(Object.assign(new Error('throttled'), { name: 'ThrottlingException' }));
    const request = { profile: 'acme', period: freshPeriod() };

    const failed = await post(request);
    const retried = await post(request);

    expect(failed).toMatchObject({ status: 503, body: { error: { code: 'start_failed' } } });
    expect(retried.status).toBe(202);
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(2);
  });

  it.each([
    ['period', { profile: 'acme', period: '2025-13' }],
    ['timeZone', { profile: 'acme', period: '2025-01', timeZone: 'Mars/Olympus' }],
    ['filters.tokens[0]', { profile: 'acme', period: '2025-01', filters: { tokens: [' '] } }],
    ['colour', { profile: 'acme', period: '2025-01', colour: 'blue' }],
    ['period.to', { profile: 'acme', period: { from: '2025-02-01', to: '2025-01-01' } }],
  ])('answers 400 naming the invalid field %s', async (field, request) => {
    const { status, body } = await post(request);

    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_request', field });
    expect(body.error.issues).toContainEqual({ field, reason: expect.any(String) });
  });

  it('lists every invalid field in issues', async () => {
    const { body } = await post({ profile: 'acme', period: 'soon', formats: ['pdf'], window: 'hour' });

    expect(body.error.issues.map((issue: { field: string }) => issue.field)).toEqual([
      'period',
      'formats[0]',
      'window',
    ]);
  });

  it('answers 400 on body for malformed JSON', async () => {
    const { status, body } = await post(undefined, {}, '{"profile": "acme",');

    expect(status).toBe(400);
    expect(body.error).toMatchObject({ field: 'body', message: 'body: is not valid JSON' });
  });

  it('answers 400 on body for a base64 body that is not valid UTF-8, starting nothing', async () => {
    const event = await loadEvent('post-reports.json');
    const bytes = Buffer.concat([
      Buffer.from('{"profile": "acme", "period": "2025-10", "filters": {"hash": "0x', 'utf8'),
      Buffer.from([0xff]),
      Buffer.from('"}}', 'utf8'),
    ]);
    event.body = bytes.toString('base64');
    event.isBase64Encoded = true;

    const { status, body } = await call(event);

    expect({ status, error: body.error }).toMatchObject({
      status: 400,
      error: { field: 'body', message: 'body: is not valid UTF-8' },
    });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('answers 400 naming filters.tokens when a hash filter would make the service ignore them', async () => {
    const { status, body } = await post({
      profile: 'acme',
      period: '2025-10',
      filters: { hash: '0xabc', tokens: ['ETH'] },
    });

    expect({ status, field: body.error.field }).toEqual({ status: 400, field: 'filters.tokens' });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  it('answers 413 for a body over 64 KiB', async () => {
    const { status, body } = await post({
      profile: 'acme',
      period: '2025-01',
      filters: { hash: 'x'.repeat(70_000) },
    });

    expect(status).toBe(413);
    expect(body.error).toMatchObject({ code: 'payload_too_large', field: 'body' });
  });

  it('answers 404 for a profile that is not registered', async () => {
    const { status, body } = await post({ profile: 'nobody', period: '2025-01' });

    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'unknown_profile', field: 'profile' });
    // The issue names the field apart: its reason does not repeat it (walk-through 2026-12-08:
    // "profile: profile \"nobody\" is not registered").
    expect(body.error.issues).toEqual([{ field: 'profile', reason: 'profile "nobody" is not registered' }]);
  });

  it('does not echo a secret sent in an unknown field', async () => {
    const secret = 'sk_live_0f9e8d7c6b5a49382716abcdef012345';

    const response = await post({ profile: 'acme', period: '2025-01', apiSecret: secret });

    expect(response.body.error.field).toBe('apiSecret');
    expect(JSON.stringify(response)).not.toContain(secret);
  });
});

describe('GET /reports/{jobId}', () => {
  it('answers 400 naming jobId for a path segment that does not percent-decode', async () => {
    const event = await loadEvent('get-report.json');
    event.rawPath = '/reports/%E0%A4%A';
    delete event.pathParameters;

    const { status, body } = await call(event);

    expect({ status, field: body.error.field }).toEqual({ status: 400, field: 'jobId' });
  });

  it('answers 404 for an unknown job', async () => {
    const { status, body } = await call(await loadEvent('get-report.json'));

    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'job_not_found', field: 'jobId' });
  });

  it('answers the queued state of a job just started', async () => {
    const created = await post({ profile: 'acme', period: freshPeriod() });

    const { status, body } = await getJob(created.body.jobId);

    expect(status).toBe(200);
    expect(body).toMatchObject({ jobId: created.body.jobId, state: 'queued', profile: 'acme' });
    expect(body.files).toBeUndefined();
  });

  it('shows the queuePosition of each queued job of one API key, 1 for the next, none for the running one', async () => {
    const context = h.apiContext({ slots: h.slots });
    const postQueued = async (minutes: number) => {
      h.setNow(new Date(NOW.getTime() + minutes * 60_000));
      const event = await loadEvent('post-reports.json');
      event.body = JSON.stringify({ profile: 'demo', period: freshPeriod() });
      return (await call(event, context)).body.jobId as string;
    };
    const [running, next, after] = [await postQueued(1), await postQueued(2), await postQueued(3)];
    await h.slots.acquire('demo', running);

    const shown = await Promise.all(
      [running, next, after].map(async (jobId) => {
        const event = await loadEvent('get-report.json');
        event.rawPath = `/reports/${jobId}`;
        event.pathParameters = { jobId };
        return call(event, context);
      }),
    );

    expect(shown.map(({ body }) => [body.state, body.queuePosition])).toEqual([
      ['queued', undefined],
      ['queued', 1],
      ['queued', 2],
    ]);
  });

  it('answers the failure reason of a failed job', async () => {
    const created = await post({ profile: 'acme', period: freshPeriod() });
    await h.jobs.update(created.body.jobId, (job) => ({ ...job, state: 'failed', reason: 'States.Timeout' }));

    const { body } = await getJob(created.body.jobId);

    expect(body).toMatchObject({ state: 'failed', reason: 'States.Timeout' });
  });

  it('lists the files of a succeeded job with links that download them', async () => {
    const created = await post({ profile: 'acme', period: '2025-10', formats: ['csv'] });
    const context = h.workerContext();
    const jobId = created.body.jobId as string;
    const plan = await createPlanHandler(context)({ jobId });
    for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId, shard });
    await createFinishHandler(context)({ jobId });

    const { body } = await getJob(jobId);

    expect(body.state).toBe('succeeded');
    expect(body.linksExpireAt).toBe(new Date(NOW.getTime() + 10 * 60_000).toISOString());
    const transactions = body.files.find(
      (file: { name: string }) => file.name === 'acme_2025-10_transactions.csv',
    );
    const download = await fetch(transactions.url);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain('filename="acme_2025-10_transactions.csv"');
    expect(createHash('sha256').update(bytes).digest('hex')).toBe(transactions.sha256);
  });
});

describe('GET /reports?profile=', () => {
  it('lists the profile jobs newest first', async () => {
    const ids: string[] = [];
    for (const [index, at] of [
      '2026-11-20T08:00:00Z',
      '2026-11-21T08:00:00Z',
      '2026-11-19T08:00:00Z',
    ].entries()) {
      h.setNow(new Date(at));
      ids.push((await post({ profile: 'empty', period: `2024-0${index + 1}` })).body.jobId);
    }

    const { status, body } = await list({ profile: 'empty' });

    expect(status).toBe(200);
    expect(body.jobs.map((job: { jobId: string }) => job.jobId)).toEqual([ids[1], ids[0], ids[2]]);
  });

  it('answers at most limit jobs', async () => {
    for (const period of ['2023-01', '2023-02', '2023-03']) await post({ profile: 'demo', period });

    const { body } = await list({ profile: 'demo', limit: '2' });

    expect(body.jobs).toHaveLength(2);
  });

  it.each(['0', '101', 'ten'])('answers 400 on limit for limit=%s', async (limit) => {
    const { status, body } = await list({ profile: 'demo', limit });

    expect(status).toBe(400);
    expect(body.error.field).toBe('limit');
  });

  it('answers 400 on profile when it is missing', async () => {
    const { status, body } = await list({});

    expect(status).toBe(400);
    expect(body.error.field).toBe('profile');
  });

  it('answers 404 for a profile that is not registered', async () => {
    const { status } = await list({ profile: 'nobody' });

    expect(status).toBe(404);
  });
});

describe('http-api handler logs', () => {
  it('carry the jobId and profile of the request', async () => {
    const output = captureOutput();
    let jobId: string;
    try {
      jobId = (await post({ profile: 'acme', period: freshPeriod() })).body.jobId;
    } finally {
      output.stop();
    }

    expect(output.lines().find((line) => line.message === 'invocation succeeded')).toMatchObject({
      jobId,
      profile: 'acme',
    });
  });

  it('do not carry a previous request keys', async () => {
    await post({ profile: 'acme', period: freshPeriod() });
    const output = captureOutput();
    try {
      await list({ profile: 'demo' });
    } finally {
      output.stop();
    }

    expect(output.lines().find((line) => line.message === 'invocation succeeded')).not.toHaveProperty(
      'jobId',
    );
  });
});

describe('per-profile authorization with a JWT profiles claim', () => {
  const CLAIM = 'pbs_profiles';
  const scoped = () => h.apiContext({ profilesClaim: CLAIM });

  /** `event` as API Gateway hands it after the JWT authorizer verified a token with `claims`. */
  function withClaims(event: APIGatewayProxyEventV2, claims: Record<string, unknown> | null) {
    (event.requestContext as unknown as Record<string, unknown>).authorizer =
      claims === null ? undefined : { jwt: { claims: { sub: 'user-1', ...claims }, scopes: null } };
    return event;
  }

  async function postAs(claims: Record<string, unknown> | null, body: unknown, context = scoped()) {
    const event = await loadEvent('post-reports.json');
    event.body = JSON.stringify(body);
    return call(withClaims(event, claims), context);
  }

  async function getAs(claims: Record<string, unknown> | null, jobId: string) {
    const event = await loadEvent('get-report.json');
    event.rawPath = `/reports/${jobId}`;
    event.pathParameters = { jobId };
    return call(withClaims(event, claims), scoped());
  }

  async function listAs(claims: Record<string, unknown> | null, profile: string) {
    const event = await loadEvent('list-reports.json');
    event.queryStringParameters = { profile };
    return call(withClaims(event, claims), scoped());
  }

  it('answers 202 for a profile the claim lists', async () => {
    const { status } = await postAs({ [CLAIM]: 'demo acme' }, { profile: 'acme', period: freshPeriod() });

    expect(status).toBe(202);
  });

  it('answers 403 naming profile for a profile the claim does not list, and starts nothing', async () => {
    const period = freshPeriod();

    const { status, body } = await postAs({ [CLAIM]: ['demo'] }, { profile: 'acme', period });

    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: 'forbidden_profile', field: 'profile' });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    const listed = (await list({ profile: 'acme', limit: '100' })).body.jobs as { period: string }[];
    expect(listed.map((job) => job.period)).not.toContain(period);
  });

  it('answers 403, not 404, for an unregistered profile the claim does not list', async () => {
    const { status } = await postAs({ [CLAIM]: 'demo' }, { profile: 'nobody', period: '2025-01' });

    expect(status).toBe(403);
  });

  it('answers 404 for an unregistered profile the claim lists', async () => {
    const { status, body } = await postAs({ [CLAIM]: 'nobody' }, { profile: 'nobody', period: '2025-01' });

    expect(status).toBe(404);
    expect(body.error.code).toBe('unknown_profile');
  });

  it.each([
    ['without the claim', { email: 'user@example.com' }],
    ['with an empty claim', { [CLAIM]: '' }],
    ['without JWT claims at all', null],
  ])('answers 403 to a caller %s', async (_name, claims) => {
    const { status } = await postAs(claims, { profile: 'acme', period: freshPeriod() });

    expect(status).toBe(403);
  });

  it('answers 202 for any registered profile when the claim is *', async () => {
    const { status } = await postAs({ [CLAIM]: '*' }, { profile: 'empty', period: freshPeriod() });

    expect(status).toBe(202);
  });

  it('answers 200 with the job to a caller of its profile', async () => {
    const created = await postAs({ [CLAIM]: 'acme' }, { profile: 'acme', period: freshPeriod() });

    const { status, body } = await getAs({ [CLAIM]: 'acme' }, created.body.jobId);

    expect(status).toBe(200);
    expect(body.profile).toBe('acme');
  });

  it("answers another profile's job exactly as a job that does not exist", async () => {
    const created = await postAs({ [CLAIM]: 'acme' }, { profile: 'acme', period: freshPeriod() });
    const missing = 'f'.repeat(32);

    const foreign = await getAs({ [CLAIM]: 'demo' }, created.body.jobId);
    const absent = await getAs({ [CLAIM]: 'demo' }, missing);

    expect(foreign.status).toBe(404);
    expect(JSON.stringify(foreign.body).replaceAll(created.body.jobId, missing)).toBe(
      JSON.stringify(absent.body),
    );
  });

  it("answers 403 naming profile to a listing of another profile's jobs", async () => {
    const { status, body } = await listAs({ [CLAIM]: 'demo' }, 'acme');

    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: 'forbidden_profile', field: 'profile' });
  });

  it("answers 200 to a listing of the caller's own profile", async () => {
    const { status } = await listAs({ [CLAIM]: 'demo,acme' }, 'acme');

    expect(status).toBe(200);
  });

  it('lets every caller use every profile when no profiles claim is configured (IAM)', async () => {
    const event = await loadEvent('post-reports.json');
    event.body = JSON.stringify({ profile: 'empty', period: freshPeriod() });
    (event.requestContext as unknown as Record<string, unknown>).authorizer = {
      iam: { accountId: '123456789012', userArn: 'arn:aws:iam::123456789012:user/ops', callerId: 'AIDA' },
    };

    const { status } = await call(event, h.apiContext());

    expect(status).toBe(202);
  });
});
