import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createS3AdjustmentsStore } from '../../lib/adjustments/index.ts';
import { KEYS } from '../../lib/jobs/index.ts';
import {
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
} from '../../lib/lambda/index.ts';
import type { ExecutionEndedInput, FailInput } from '../../lib/workflow/index.ts';
import { generatedIds } from '../support/simulator.ts';
import {
  captureOutput,
  loadEvent,
  NOW,
  SIMULATOR_SEED,
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

/** The simulated profile named `name`. */
function profile(name: string) {
  const simulated = h.simulator.profiles.find((candidate) => candidate.name === name);
  if (simulated === undefined) throw new Error(`no simulated profile ${name}`);
  return simulated;
}

/** Runs plan → every shard → finish as the state machine would. */
async function runAll(jobId: string) {
  const context = h.workerContext();
  const plan = await createPlanHandler(context)({ jobId });
  const fetchShard = createFetchShardHandler(context);
  const shards = [];
  for (const shard of plan.shards) shards.push(await fetchShard({ jobId, shard }));
  const finish = await createFinishHandler(context)({ jobId });
  return { plan, shards, finish };
}

describe('export-plan handler', () => {
  it('returns one shard index per planned shard and writes the plan', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025', formats: ['csv'] });

    const output = await createPlanHandler(h.workerContext())({ jobId: job.jobId });

    expect(output).toEqual({ jobId: job.jobId, shards: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] });
    expect(await h.keysUnder(`work/${job.jobId}/`)).toEqual([KEYS.plan(job.jobId)]);
  });

  it('marks the job running', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-03' });

    await createPlanHandler(h.workerContext())({ jobId: job.jobId });

    expect((await h.jobs.require(job.jobId)).state).toBe('running');
  });

  it('rejects a payload without a valid job id', async () => {
    await expect(createPlanHandler(h.workerContext())({ jobId: '../x' })).rejects.toMatchObject({
      name: 'ValidationError',
      field: 'jobId',
    });
  });

  it('rejects a job that does not exist', async () => {
    await expect(
      createPlanHandler(h.workerContext())(await loadEvent('export-input.json')),
    ).rejects.toMatchObject({ name: 'JobNotFoundError' });
  });
});

describe('export-fetch-shard handler', () => {
  it('uploads the shard part and returns its row count', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-06', formats: ['csv'] });
    await createPlanHandler(h.workerContext())({ jobId: job.jobId });

    const output = await createFetchShardHandler(h.workerContext())({ jobId: job.jobId, shard: 0 });

    // Expected from the simulator's seeded dataset: June 2025 in acme's zone (Europe/Berlin).
    const expected = generatedIds(
      profile('acme'),
      SIMULATOR_SEED,
      '2025-05-31T22:00:00Z',
      '2025-06-30T22:00:00Z',
    );
    const part = await h.s3.client.send(
      new GetObjectCommand({ Bucket: h.bucket, Key: KEYS.part(job.jobId, 0) }),
    );
    const ids = gunzipSync(Buffer.from((await part.Body?.transformToByteArray()) ?? []))
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      // instant, id, then the JSON (after a `p` mark when it is plain JSON.stringify output)
      .map(
        (line) => (JSON.parse(line.split('\t').slice(2).join('\t').replace(/^p/, '')) as { id: string }).id,
      );

    expect(expected.length).toBeGreaterThan(10);
    expect(ids).toEqual(expected);
    // The simulator lists by date with no id twice: the finish may stream this shard's window.
    expect(part.Metadata?.['in-order']).toBe('true');
    expect(output).toEqual({
      jobId: job.jobId,
      shard: 0,
      rows: expected.length,
      totalReported: expected.length,
    });
    expect(await h.keysUnder(`work/${job.jobId}/parts/`)).toEqual([KEYS.part(job.jobId, 0)]);
  });

  it('rejects a shard index the plan does not have', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-06' });
    await createPlanHandler(h.workerContext())({ jobId: job.jobId });

    await expect(
      createFetchShardHandler(h.workerContext())({ jobId: job.jobId, shard: 5 }),
    ).rejects.toMatchObject({ name: 'WorkFileError' });
  });
});

describe('export-finish handler', () => {
  it('publishes the reports and manifest under reports/ after plan and every shard', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025', formats: ['csv', 'xlsx'] });

    const { finish } = await runAll(job.jobId);

    const stored = await h.jobs.require(job.jobId);
    const prefix = stored.result?.prefix ?? '';
    const stamp = NOW.toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
    expect(prefix).toMatch(new RegExp(`^reports/acme/2025/${stamp}-[0-9a-f]{6}$`));
    const names = (await h.keysUnder(`${prefix}/`)).map((key) => key.slice(prefix.length + 1));
    expect(names).toEqual([
      'README.txt',
      'acme_2025.xlsx',
      'acme_2025_movements.csv',
      'acme_2025_snapshot.ndjson.gz',
      'acme_2025_summary_by_month.csv',
      'acme_2025_summary_by_token.csv',
      'acme_2025_transactions.csv',
      'manifest.json',
    ]);
    expect(finish).toEqual({ jobId: job.jobId, state: 'succeeded', files: names.length });
  });

  it('marks the job succeeded with a transactions file holding every transaction of the period', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025', formats: ['csv'] });

    await runAll(job.jobId);

    // Expected from the simulator's seeded dataset (2025 in Europe/Berlin), read back with csv-parse.
    const expected = generatedIds(
      profile('acme'),
      SIMULATOR_SEED,
      '2024-12-31T23:00:00Z',
      '2025-12-31T23:00:00Z',
    );
    const stored = await h.jobs.require(job.jobId);
    const file = stored.result?.files.find((candidate) => candidate.name.endsWith('_transactions.csv'));
    const object = await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: file?.key }));
    const rows = parse(Buffer.from((await object.Body?.transformToByteArray()) ?? []), {
      bom: true,
      columns: true,
    }) as { id: string }[];
    expect(stored.state).toBe('succeeded');
    expect(rows.map((row) => row.id)).toEqual(expected);
    expect(file?.rows).toBe(expected.length);
  });

  it('records the manifest with the sha256 of its stored bytes', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-02', formats: ['csv'] });
    await runAll(job.jobId);
    const manifest = (await h.jobs.require(job.jobId)).result?.files.find(
      (file) => file.name === 'manifest.json',
    );

    const object = await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: manifest?.key }));
    const bytes = Buffer.from((await object.Body?.transformToByteArray()) ?? new Uint8Array());

    expect(manifest?.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
  });

  it("applies the adjustments version a job's request names, read from adjustments/, and records it", async () => {
    const store = createS3AdjustmentsStore({ client: h.client, bucket: h.bucket });
    const stored = await store.put(
      'acme',
      {
        schema: 'pbs-export/adjustments@1',
        profile: 'acme',
        version: 1,
        adjustments: [
          { id: 's1', kind: 'spam', token: 'stETH', by: 'ann', at: '2026-11-21T09:00:00Z', why: 'test' },
        ],
      },
      0,
    );
    const job = await h.queueJob({
      profile: 'acme',
      period: '2025',
      formats: ['csv'],
      reports: ['gains'],
      adjustments: { version: 1, sha256: stored.sha256 },
    });
    await runAll(job.jobId);
    const result = (await h.jobs.require(job.jobId)).result;
    const read = async (name: string) => {
      const key = result?.files.find((file) => file.name === name)?.key;
      const object = await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: key }));
      return (await object.Body?.transformToString('utf8')) ?? '';
    };
    expect(JSON.parse(await read('manifest.json')).adjustments).toEqual({
      profile: 'acme',
      version: 1,
      sha256: stored.sha256,
    });
    expect(await read('acme_2025_adjustments.csv')).toContain('s1,spam,ann');
  });

  it('rejects a job whose plan was never written', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-02' });

    await expect(createFinishHandler(h.workerContext())({ jobId: job.jobId })).rejects.toMatchObject({
      name: 'WorkFileError',
    });
  });
});

describe('export-fail handler', () => {
  let output: ReturnType<typeof captureOutput> | undefined;
  afterEach(() => {
    output?.stop();
    output = undefined;
  });

  it('marks the job failed with the reason from the Lambda error', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-04' });
    const event: FailInput = {
      jobId: job.jobId,
      error: {
        Error: 'IncompleteShardError',
        Cause: JSON.stringify({
          errorType: 'IncompleteShardError',
          errorMessage: 'shard 2025-04: fetched 3 transactions but the service reported 4',
        }),
      },
    };

    const result = await createFailHandler(h.workerContext())(event);

    expect(result).toEqual({ jobId: job.jobId, state: 'failed' });
    expect(await h.jobs.require(job.jobId)).toMatchObject({
      state: 'failed',
      reason: 'IncompleteShardError: shard 2025-04: fetched 3 transactions but the service reported 4',
    });
  });

  it('keeps the secret out of the reason even when the cause quotes it', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-05' });
    const event = { ...(await loadEvent<FailInput>('fail-input.json')), jobId: job.jobId };
    const secret = h.simulator.profiles.find((p) => p.name === 'acme')?.apiSecret as string;
    expect(event.error?.Cause).toContain(secret);

    await createFailHandler(h.workerContext())(event);

    const stored = await h.jobs.require(job.jobId);
    expect(stored.reason).toMatch(/^PbsHttpError: GET \/v2\/transactions answered 401/);
    expect(JSON.stringify(stored)).not.toContain(secret);
  });

  it('leaves a succeeded job succeeded', async () => {
    const job = await h.queueJob({ profile: 'empty', period: '2025-05', formats: ['csv'] });
    await runAll(job.jobId);

    await createFailHandler(h.workerContext())({ jobId: job.jobId, error: { Error: 'States.Timeout' } });

    expect((await h.jobs.require(job.jobId)).state).toBe('succeeded');
  });

  it('logs JSON lines carrying the jobId and profile', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-07' });
    output = captureOutput();

    await createFailHandler(h.workerContext())({ jobId: job.jobId, error: { Error: 'States.Timeout' } });

    output.stop();
    const line = output.lines().find((entry) => entry.message === 'invocation succeeded');
    expect(line).toMatchObject({
      level: 'INFO',
      jobId: job.jobId,
      profile: 'acme',
      service: 'pbs-export-test',
    });
  });
});

describe('export workers output', () => {
  it('never contain the API secret in logs, errors or job records', async () => {
    const secret = h.simulator.profiles.find((p) => p.name === 'acme')?.apiSecret as string;
    const job = await h.queueJob({ profile: 'acme', period: '2025-08', formats: ['csv'] });
    const failing = await h.queueJob({ profile: 'acme', period: '2025-09', formats: ['csv'] });
    const output = captureOutput();
    let text: string;
    let failure: unknown;
    try {
      await runAll(job.jobId);
      h.simulator.setFaults({ serverError: { rate: 1 } });
      await createPlanHandler(h.workerContext({ services: h.servicesWith({ retry: { maxAttempts: 1 } }) }))({
        jobId: failing.jobId,
      }).catch((error: unknown) => {
        failure = error;
      });
    } finally {
      h.simulator.setFaults({});
      output.stop();
      text = output.text();
    }

    expect(failure).toMatchObject({ name: 'PbsHttpError' });
    expect(text).toContain(job.jobId);
    expect(text).not.toContain(secret);
    expect(`${String(failure)} ${JSON.stringify(failure)}`).not.toContain(secret);
    expect(JSON.stringify(await h.jobs.require(job.jobId))).not.toContain(secret);
    expect(JSON.stringify(await h.jobs.require(failing.jobId))).not.toContain(secret);
  });
});

describe('export-fail handler on an execution that ended without success (the execution-end rule)', () => {
  /** A job of the `demo` key that holds the slot (running) or waits in the queue behind it. */
  async function jobOfDemo(period: string, state: 'running' | 'queued') {
    const job = await h.queueJob({ profile: 'demo', period, formats: ['csv'] });
    if (state === 'running') {
      await h.slots.acquire('demo', job.jobId, job.createdAt);
      await h.jobs.update(job.jobId, (current) => ({ ...current, state: 'running' }));
    } else {
      await h.slots.enqueue('demo', job.jobId, job.createdAt);
    }
    return job;
  }
  const ended = (jobId: string, executionStatus: ExecutionEndedInput['executionStatus']): FailInput => ({
    jobId,
    executionStatus,
  });
  const context = () => h.workerContext({ slots: h.slots });

  it('marks a running job failed with the reason in words when its execution timed out, and frees its key', async () => {
    const job = await jobOfDemo('2024-01', 'running');

    const result = await createFailHandler(context())(ended(job.jobId, 'TIMED_OUT'));

    expect(result).toEqual({ jobId: job.jobId, state: 'failed' });
    expect(await h.jobs.require(job.jobId)).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^ExecutionTimedOut: the export ran longer than/),
    });
    await expect(h.slots.acquire('demo', 'next-job-of-demo')).resolves.toBeUndefined();
    await h.slots.release('demo', 'next-job-of-demo');
  });

  it('marks a queued job failed and takes it out of the queue when its execution was aborted', async () => {
    const holder = await jobOfDemo('2024-02', 'running');
    const waiting = await jobOfDemo('2024-03', 'queued');

    await createFailHandler(context())(ended(waiting.jobId, 'ABORTED'));

    expect(await h.jobs.require(waiting.jobId)).toMatchObject({
      state: 'failed',
      reason: expect.stringMatching(/^ExecutionAborted: the export was stopped/),
    });
    expect(await h.slots.position('demo', waiting.jobId)).toBeNull();
    await h.slots.release('demo', holder.jobId);
  });

  it('leaves the reason the state machine recorded when its catch already marked the job failed', async () => {
    const job = await jobOfDemo('2024-04', 'running');
    const fail = createFailHandler(context());
    await fail({
      jobId: job.jobId,
      error: { Error: 'IncompleteShardError', Cause: 'shard 2024-04: 3 of 4' },
    });
    const marked = await h.jobs.require(job.jobId);

    await fail(ended(job.jobId, 'FAILED'));

    expect(await h.jobs.require(job.jobId)).toEqual(marked);
    expect(marked.reason).toBe('IncompleteShardError: shard 2024-04: 3 of 4');
  });

  it('leaves a succeeded job succeeded', async () => {
    const job = await h.queueJob({ profile: 'empty', period: '2024-06', formats: ['csv'] });
    await runAll(job.jobId);
    const succeeded = await h.jobs.require(job.jobId);

    await createFailHandler(context())(ended(job.jobId, 'ABORTED'));

    expect(await h.jobs.require(job.jobId)).toEqual(succeeded);
  });
});
