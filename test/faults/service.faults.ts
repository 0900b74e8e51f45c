/**
 * Faults of the service, end to end through `runExport` (simulator on loopback, local folder):
 * 429 storms, 5xx bursts, broken bodies, stalls, pages that repeat or skip items, totals that
 * disagree with the items, a skewed client clock. Each run publishes exactly the service's data,
 * or fails cleanly and a rerun does.
 */
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncompleteShardError, parseExportRequest } from '../../lib/export/index.ts';
import { PbsHttpError } from '../../lib/pbs/errors.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/index.ts';
import type { FaultOptions } from '../../lib/simulator/types.ts';
import { secretArnOf, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { exportUnderFaults, recordRun } from './support/export-runs.ts';
import { referenceFor } from './support/fault-harness.ts';
import { runExportMachine } from './support/machine.ts';
import { checkSucceededJob, workersOf } from './support/workflow-runs.ts';

const YEAR = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv'] });
/**
 * Items a page of the shapes without a total. Not 4: with 4 a page, no smaller page size covers
 * the boundary at row 12 (4 × 3), and a shard of 15 rows cannot be shown complete at all.
 */
const NO_TOTAL_PAGE = 5;

describe('runExport under service faults', () => {
  it.each<[string, FaultOptions]>([
    ['connection resets mid-body', { connectionReset: { rate: 0.2 } }],
    ['truncated JSON bodies', { truncatedBody: { rate: 0.2 } }],
    ['malformed (non-JSON) bodies', { malformedBody: { rate: 0.2 } }],
    ['stalled bodies past the timeout', { stalledBody: { rate: 0.1, stallMs: 5_000 } }],
    ['5xx answers', { serverError: { rate: 0.25 } }],
  ])('publishes exactly the service data despite %s, without a rerun', async (name, faults) => {
    // Ten attempts a request: ten faults in a row on one request would be a storm (tested below).
    // A 1 s timeout: far past a healthy request even on a busy machine, far below a 5 s stall.
    const result = await exportUnderFaults({
      request: YEAR,
      faults,
      client: { retry: { maxAttempts: 10 }, ...(faults.stalledBody ? { timeoutMs: 1_000 } : {}) },
    });
    recordRun(`service: ${name}`, result);

    expect(result.problems).toEqual([]);
    expect(result.faultedRequests).toBeGreaterThan(0);
    expect(result.completed).toBe(true);
  });

  it('waits out a 429 storm shorter than the retries, at least Retry-After each time, and completes', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      faults: { rateLimited: { rate: 1, retryAfterSeconds: 2 }, burst: { from: 3, count: 4 } },
      deps: { concurrency: 1 },
    });
    recordRun('service: 429 storm within the retries', result);

    expect(result.problems).toEqual([]);
    expect(result.completed).toBe(true);
    expect(result.faultKinds.rateLimited).toBe(4);
    expect(result.sleeps.filter((ms) => ms >= 2_000)).toHaveLength(4);
  });

  it('fails cleanly with the 429 when a storm outlasts the retries, and a rerun publishes the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      faults: { rateLimited: { rate: 1, retryAfterSeconds: 1 }, burst: { from: 1, count: 40 } },
    });
    recordRun('service: 429 storm beyond the retries', result);

    expect(result.problems).toEqual([]);
    expect(result.error).toBeInstanceOf(PbsHttpError);
    expect((result.error as PbsHttpError).status).toBe(429);
    expect(result.reruns).toBe(1);
  });

  it('fails cleanly when a 5xx burst outlasts the retries, and a rerun publishes the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      faults: { serverError: { rate: 1 }, burst: { from: 2, count: 30 } },
    });
    recordRun('service: 5xx burst beyond the retries', result);

    expect(result.problems).toEqual([]);
    expect(result.error).toBeInstanceOf(PbsHttpError);
    expect(result.reruns).toBe(1);
  });

  it('refetches a shard whose later page repeats or skips items with an unchanged total, publishing exactly the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      pageSize: 4,
      faults: { pageShift: { rate: 0.08, maxItems: 3 } },
      maxReruns: 3,
      rerunFaults: { pageShift: { rate: 0.08, maxItems: 3 } },
    });
    recordRun('service: page repeats/skips items (same total)', result);

    expect(result.problems).toEqual([]);
    expect(result.faultKinds.pageShift).toBeGreaterThan(0);
  });

  it('refetches a shard when items are inserted or removed between two page requests, publishing exactly the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      pageSize: 4,
      faults: { pageShift: { rate: 0.08, maxItems: 2, adjustTotal: true } },
      maxReruns: 3,
      rerunFaults: { pageShift: { rate: 0.08, maxItems: 2, adjustTotal: true } },
    });
    recordRun('service: items inserted/removed between pages', result);

    expect(result.problems).toEqual([]);
    expect(result.faultKinds.pageShift).toBeGreaterThan(0);
  });

  it.each<[string, ServiceShapeOverrides]>([
    [
      'page numbers without totals',
      {
        pagination: {
          style: 'page',
          pageParam: 'page',
          pageSizeParam: 'pageSize',
          pageSize: NO_TOTAL_PAGE,
          firstPage: 1,
          totalItemsPath: null,
          totalPagesPath: null,
        },
      },
    ],
    [
      'offset/limit without totals',
      {
        pagination: {
          style: 'offset',
          offsetParam: 'offset',
          limitParam: 'limit',
          limit: NO_TOTAL_PAGE,
          totalItemsPath: null,
        },
      },
    ],
    [
      'a cursor in a field',
      {
        pagination: {
          style: 'cursor',
          cursorParam: 'cursor',
          limitParam: 'limit',
          limit: NO_TOTAL_PAGE,
          next: { from: 'field', path: 'nextCursor' },
          totalItemsPath: null,
        },
      },
    ],
  ])(
    'establishes completeness by a second listing with %s when rows shift between pages',
    async (name, shape) => {
      // Drawn per request, not in arrival order: which page shifts, and how, does not depend on how
      // the shards' requests interleave under load (each shard pages one request at a time, and a
      // long timeout keeps a slow machine from retrying a request, which would draw afresh).
      const faults: FaultOptions = {
        pageShift: { rate: 0.15, maxItems: 2, adjustTotal: true },
        drawPerRequest: true,
      };
      const result = await exportUnderFaults({
        request: YEAR,
        shape,
        faults,
        maxReruns: 3,
        rerunFaults: faults,
        client: { timeoutMs: 30_000 },
      });
      recordRun(`service: rows shift, no total (${name})`, result);

      expect(result.problems).toEqual([]);
      expect(result.faultKinds.pageShift).toBeGreaterThan(0);
    },
  );

  it('refetches a shard whose reported total disagrees with its items on one page, publishing exactly the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      faults: { wrongTotal: { rate: 0.06, maxDelta: 3 } },
      maxReruns: 3,
      rerunFaults: { wrongTotal: { rate: 0.06, maxDelta: 3 } },
    });
    recordRun('service: total disagrees with the items', result);

    expect(result.problems).toEqual([]);
    expect(result.faultKinds.wrongTotal).toBeGreaterThan(0);
  });

  it('detects a first page whose total ends the listing one full page early', async () => {
    // 11 transactions, 10 a page: a first page claiming 10 looks complete unless the end is confirmed.
    const request = parseExportRequest({ profile: 'acme', period: '2024-06', formats: ['csv'] });
    const result = await exportUnderFaults({
      request,
      pageSize: 10,
      faults: { wrongTotal: { rate: 1, maxDelta: 1, direction: 'under' } },
    });
    recordRun('service: total ends the listing a page early', result);

    expect(result.reference.transactions).toHaveLength(11);
    expect(result.problems).toEqual([]);
    expect(result.error).toBeInstanceOf(IncompleteShardError);
  });

  it('fails cleanly with IncompleteShardError when every total disagrees, and a rerun publishes the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      faults: { wrongTotal: { rate: 1, maxDelta: 2 } },
    });
    recordRun('service: every total wrong', result);

    expect(result.problems).toEqual([]);
    expect(result.error).toBeInstanceOf(IncompleteShardError);
    expect(result.reruns).toBe(1);
  });

  it('corrects a client clock 10 minutes fast from the 401 and publishes exactly the data', async () => {
    const result = await exportUnderFaults({
      request: YEAR,
      faults: {},
      client: { now: () => Date.now() + 600_000 },
    });
    recordRun('service: client clock skewed past 300 s', result);
    const refused = result.simulator.requestLog.filter((entry) => entry.status === 401);

    expect(result.problems).toEqual([]);
    expect(result.completed).toBe(true);
    expect(refused).toHaveLength(1);
  });

  it('corrects a clock that jumps 10 minutes while four shards are fetched at once', async () => {
    let skew = 0;
    const result = await exportUnderFaults({
      request: YEAR,
      faults: {},
      client: { now: () => Date.now() + skew },
      deps: {
        concurrency: 4,
        onProgress: (progress) => {
          if (progress.stage === 'planned') skew = 600_000;
        },
      },
    });
    recordRun('service: client clock jumps mid-export', result);

    expect(result.problems).toEqual([]);
    expect(result.completed).toBe(true);
    expect(result.simulator.requestLog.filter((entry) => entry.status === 401).length).toBeGreaterThan(0);
  });
});

describe('workflow jobs when the credentials rotate in Secrets Manager', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await startWorkflowHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('signs again with the rotated secret after the old key is refused, while the old one is still cached', async () => {
    const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv'] });
    const reference = await referenceFor({ profile: 'acme', request });
    const workers = workersOf(h);
    const before = await h.queueJob(request);
    expect((await runExportMachine(workers, before.jobId)).state).toBe('succeeded');
    const reads = h.secrets.commandCalls(GetSecretValueCommand).length;
    const rotated = { apiKey: 'pk_acme_rotated_7e1f', apiSecret: 'sk_acme_rotated_4c2d9b8a7f6e5d4c' };
    const acme = h.simulator.profiles.find((p) => p.name === 'acme');
    h.simulator.rotateCredentials('acme', rotated);
    h.secrets.on(GetSecretValueCommand, { SecretId: secretArnOf('acme') }).resolves({
      ARN: secretArnOf('acme'),
      SecretString: JSON.stringify({ ...rotated, profileGuid: acme?.profileGuid }),
    });
    h.simulator.clearLog();

    const job = await h.queueJob(request);
    const run = await runExportMachine(workers, job.jobId);
    const check = await checkSucceededJob(h, job, reference);
    recordRun('service: credentials rotated between runs', { ...check, reruns: run.retries });

    expect(check.problems).toEqual([]);
    expect(run).toMatchObject({ state: 'succeeded', retries: 0 });
    expect(h.simulator.requestLog.filter((entry) => entry.status === 401).length).toBeGreaterThan(0);
    expect(h.secrets.commandCalls(GetSecretValueCommand).length).toBeGreaterThan(reads);
  });
});
