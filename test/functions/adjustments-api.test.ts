/**
 * The adjustments and warnings routes of the HTTP API, through the Lambda handler as API Gateway
 * calls it (a JWT authorizer's claims in the event), over the workflow harness: the simulator on
 * loopback, a local S3 store, the real export tasks. The adjustments store is the in-memory one of
 * the test support (the deployment's store is built where the API's other dependencies are).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adjustmentsDocumentSchema } from '../../lib/adjustments/schema.ts';
import {
  createApiHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
} from '../../lib/lambda/index.ts';
import { createMemoryAdjustmentsStore, type MemoryAdjustmentsStore } from '../support/adjustments-store.ts';
import { loadEvent, NOW, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
let store: MemoryAdjustmentsStore;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.resetSfn();
  h.setNow(NOW);
  store = createMemoryAdjustmentsStore();
});

const ANA = { email: 'ana@example.com', pbs_profiles: 'demo acme' };

interface Call {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  claims?: Record<string, unknown> | null;
}

/** Calls the API's Lambda handler as API Gateway would, with the JWT authorizer's claims. */
async function call({ method, path, body, headers = {}, claims = ANA }: Call) {
  const event: APIGatewayProxyEventV2 = await loadEvent('post-reports.json');
  event.rawPath = path;
  event.routeKey = `${method} ${path}`;
  event.requestContext.http = { ...event.requestContext.http, method, path };
  event.headers = { ...event.headers, ...headers };
  if (body === undefined) delete event.body;
  else event.body = JSON.stringify(body);
  if (claims !== null) {
    (event.requestContext as unknown as { authorizer: unknown }).authorizer = { jwt: { claims, scopes: [] } };
  }
  const context = h.apiContext({ adjustments: store, profilesClaim: 'pbs_profiles' });
  const result = (await createApiHandler(context)(event)) as APIGatewayProxyStructuredResultV2;
  return {
    status: result.statusCode,
    body: JSON.parse(result.body ?? 'null'),
    headers: result.headers ?? {},
  };
}

const add = (body: unknown, ifMatch: string | null = '"0"', claims: Call['claims'] = ANA) =>
  call({
    method: 'POST',
    path: '/profiles/demo/adjustments',
    body,
    headers: ifMatch === null ? {} : { 'if-match': ifMatch },
    claims,
  });

const SPAM = { id: 'spam-claim', kind: 'spam', token: 'ETHG-CLAIM', why: 'Unsolicited airdrop' };

describe('POST /profiles/{profile}/adjustments', () => {
  it('stores the adjustment as version 1, attributed to the caller at the server’s time', async () => {
    const answer = await add(SPAM);

    expect([answer.status, answer.headers.etag]).toEqual([201, '"1"']);
    expect(answer.body.adjustment).toEqual({ ...SPAM, by: 'ana@example.com', at: NOW.toISOString() });
    const [stored] = store.versions('demo');
    expect(adjustmentsDocumentSchema.parse(stored)).toEqual({
      schema: 'pbs-export/adjustments@1',
      profile: 'demo',
      version: 1,
      adjustments: [{ ...SPAM, by: 'ana@example.com', at: NOW.toISOString() }],
    });
  });

  it('refuses by and at in the body: the server sets them', async () => {
    const answer = await add({ ...SPAM, by: 'someone-else' });

    expect([answer.status, answer.body.error.field]).toEqual([400, 'by']);
    expect(answer.body.error.message).toContain('set by the server');
    expect(store.versions('demo')).toEqual([]);
  });

  it('validates with the document’s schema, naming the field', async () => {
    const missing = await add({ kind: 'value', txId: 'tx_1', value: '12,50', why: 'from the statement' });
    const unknownKind = await add({ kind: 'guess', why: 'x' });

    expect([missing.status, missing.body.error.field]).toEqual([400, 'value']);
    expect(missing.body.error.message).toContain('plain decimal');
    expect([unknownKind.status, unknownKind.body.error.field]).toEqual([400, 'kind']);
  });

  it('needs If-Match, and refuses a stale one without writing', async () => {
    expect((await add(SPAM, null)).status).toBe(428);
    expect((await add(SPAM, '"0"')).status).toBe(201);

    const stale = await add({ kind: 'spam', token: 'OTHER', why: 'x' }, '"0"');

    expect([stale.status, stale.body.error.code]).toEqual([412, 'version_conflict']);
    expect(stale.body.error.message).toContain('the newest version is 1');
    expect(store.versions('demo')).toHaveLength(1);
  });

  it('refuses an id the document has, another profile, and a caller no one vouched for', async () => {
    await add(SPAM);
    const again = await add(SPAM, '"1"');
    const other = await add(SPAM, '"0"', { email: 'bo@example.com', pbs_profiles: 'acme' });
    const anonymous = await add(SPAM, '"1"', { pbs_profiles: 'demo' });

    expect([again.status, again.body.error.field]).toEqual([409, 'id']);
    expect([other.status, anonymous.status]).toEqual([403, 401]);
    expect(store.versions('demo')).toHaveLength(1);
  });
});

describe('GET /profiles/{profile}/adjustments', () => {
  it('answers the newest version and what each version added, by whom', async () => {
    await add(SPAM);
    h.setNow(new Date(NOW.getTime() + 60_000));
    await add({ kind: 'value', txId: 'tx_9', token: 'USDC', value: '1250.00', why: 'at the peg' }, '"1"', {
      email: 'bo@example.com',
      pbs_profiles: 'demo',
    });

    const answer = await call({ method: 'GET', path: '/profiles/demo/adjustments' });

    expect([answer.status, answer.headers.etag, answer.body.version]).toEqual([200, '"2"', 2]);
    expect(answer.body.adjustments.map((a: { id: string }) => a.id)).toEqual(['spam-claim', 'manual-v2']);
    expect(answer.body.history).toEqual([
      {
        version: 2,
        count: 2,
        added: [
          {
            id: 'manual-v2',
            kind: 'value',
            by: 'bo@example.com',
            at: new Date(NOW.getTime() + 60_000).toISOString(),
          },
        ],
        removed: [],
        withdrawn: [],
      },
      {
        version: 1,
        count: 1,
        added: [{ id: 'spam-claim', kind: 'spam', by: 'ana@example.com', at: NOW.toISOString() }],
        removed: [],
        withdrawn: [],
      },
    ]);
  });

  it('answers version 0 before the first adjustment', async () => {
    const answer = await call({ method: 'GET', path: '/profiles/acme/adjustments' });
    expect([answer.status, answer.headers.etag, answer.body]).toEqual([
      200,
      '"0"',
      { profile: 'acme', version: 0, adjustments: [], withdrawn: [], history: [] },
    ]);
  });
});

describe('a set’s warnings, resolved and re-run', () => {
  /** Runs a demo gains export of 2025 (CSV) to its end with the real tasks and returns its job id. */
  async function demoGainsSet(key: string): Promise<string> {
    const started = await call({
      method: 'POST',
      path: '/reports',
      headers: { 'idempotency-key': key },
      body: {
        profile: 'demo',
        period: '2025',
        reports: ['gains'],
        gains: { taxRules: 'us' },
        formats: ['csv'],
      },
    });
    const { jobId } = started.body;
    const context = h.workerContext();
    const plan = await createPlanHandler(context)({ jobId });
    for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId, shard });
    await createFinishHandler(context)({ jobId });
    return jobId;
  }

  it('lists the warnings with their suggestions; accepting one resolves its rows; a re-run is a new job over that version', async () => {
    const jobId = await demoGainsSet('set-1');
    const before = await call({ method: 'GET', path: `/reports/${jobId}/warnings` });
    expect(before.body.error).toBeUndefined();
    expect([before.status, before.body.open, before.body.warnings.length]).toEqual([200, 7, 7]);
    const spam = before.body.warnings.find((w: { token: string }) => w.token === 'ETHG-CLAIM');
    expect(spam.suggestion.adjustment).toEqual({
      id: 'suggested:spam:ETHG-CLAIM',
      kind: 'spam',
      token: 'ETHG-CLAIM',
      why: 'Mark ETHG-CLAIM as spam: only ever received (2 times), never valued and never given away',
    });
    expect(before.body.warnings.filter((w: { suggestion: unknown }) => w.suggestion === null)).toHaveLength(
      2,
    );

    // "Accept suggestion": its adjustment posted as it is.
    expect((await add(spam.suggestion.adjustment)).status).toBe(201);
    const after = await call({ method: 'GET', path: `/reports/${jobId}/warnings` });
    expect([after.body.open, after.body.adjustmentsVersion]).toEqual([5, 1]);
    expect(
      after.body.warnings.filter(
        (w: { resolvedBy: string | null }) => w.resolvedBy === 'suggested:spam:ETHG-CLAIM',
      ),
    ).toHaveLength(2);

    const rerun = await call({ method: 'POST', path: `/reports/${jobId}/rerun` });
    expect(rerun.status).toBe(202);
    expect(rerun.body).toMatchObject({
      rerunOf: jobId,
      state: 'queued',
      adjustments: { version: 1, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect(rerun.body.jobId).not.toBe(jobId);
    const job = await h.jobs.get(rerun.body.jobId);
    expect(job).toMatchObject({ requestedBy: 'ana@example.com', profile: 'demo' });
    expect(job?.idempotencyKey).toContain(`rerun:${jobId}:adjustments@1:${rerun.body.adjustments.sha256}`);
    // Asking again for the same version is the same re-run.
    expect((await call({ method: 'POST', path: `/reports/${jobId}/rerun` })).body.jobId).toBe(
      rerun.body.jobId,
    );
  }, 180_000);

  it('answers another profile’s set as missing', async () => {
    const jobId = await demoGainsSet('set-2');
    const other = { email: 'bo@example.com', pbs_profiles: 'acme' };
    const warnings = await call({ method: 'GET', path: `/reports/${jobId}/warnings`, claims: other });
    const rerun = await call({ method: 'POST', path: `/reports/${jobId}/rerun`, claims: other });
    expect([warnings.status, rerun.status]).toEqual([404, 404]);
  }, 180_000);
});
