/**
 * The order of the export tasks' S3 requests where it saves round trips: a fetch-shard task reads
 * the job and the plan at once, and the finish starts assembling while later parts download.
 * Each test holds one answer of local S3 until what it expects happened, or, on code that waits
 * for that answer first, until a fallback lets it go so that the test fails instead of hanging.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobStore, KEYS } from '../../lib/jobs/index.ts';
import { createFetchShardHandler, createFinishHandler, createPlanHandler } from '../../lib/lambda/index.ts';
import { emulateConditionalWrites, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
let workDir: string;
beforeAll(async () => {
  h = await startWorkflowHarness();
  workDir = await mkdtemp(join(tmpdir(), 'pbs-order-'));
});
afterAll(async () => {
  await h.close();
  await rm(workDir, { recursive: true, force: true });
});

/** What a request's middleware sees: the command and its key. */
type Seen = { command: string; key: string };

/**
 * A client of the harness' S3 whose answers go through `hook` (after the store answered, before
 * the caller gets it) and whose requests are told to `onSend` as they are sent.
 */
function observedClient(onSend: (seen: Seen) => void, hold: (seen: Seen) => Promise<void>): S3Client {
  const client = h.s3.createClient();
  emulateConditionalWrites(client, h.s3.client);
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const seen = { command: context.commandName ?? '', key: (args.input as { Key?: string }).Key ?? '' };
      onSend(seen);
      const answer = await next(args);
      await hold(seen);
      return answer;
    },
    { step: 'initialize', name: 'observe-order' },
  );
  return client;
}

/** Resolves when `ready()` holds (checked every 10 ms) or after `fallbackMs`; tells which. */
async function until(ready: () => Promise<boolean> | boolean, fallbackMs: number): Promise<boolean> {
  const started = Date.now();
  while (Date.now() - started < fallbackMs) {
    if (await ready()) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

describe('export-fetch-shard handler', () => {
  it('sends the plan read before the job read is answered (one round trip, not two in turn)', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-06', formats: ['csv'] });
    await createPlanHandler(h.workerContext())({ jobId: job.jobId });
    const events: string[] = [];
    let planSent = false;
    const client = observedClient(
      (seen) => {
        if (seen.command !== 'GetObjectCommand') return;
        if (seen.key === KEYS.plan(job.jobId)) planSent = true;
        events.push(`sent ${seen.key}`);
      },
      async (seen) => {
        if (seen.command !== 'GetObjectCommand' || seen.key !== KEYS.job(job.jobId)) return;
        await until(() => planSent, 3_000);
        events.push(`answered ${seen.key}`);
      },
    );

    await createFetchShardHandler(
      h.workerContext({ s3: client, jobs: createJobStore({ client, bucket: h.bucket }) }),
    )({ jobId: job.jobId, shard: 0 });

    expect(events.indexOf(`sent ${KEYS.plan(job.jobId)}`)).toBeGreaterThanOrEqual(0);
    expect(events.indexOf(`sent ${KEYS.plan(job.jobId)}`)).toBeLessThan(
      events.indexOf(`answered ${KEYS.job(job.jobId)}`),
    );
  });
});

describe('export-finish handler', () => {
  it('sends the plan and publication reads before the job read is answered', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025-06', formats: ['csv'] });
    const plan = await createPlanHandler(h.workerContext())({ jobId: job.jobId });
    await createFetchShardHandler(h.workerContext())({ jobId: job.jobId, shard: plan.shards[0] ?? 0 });
    const events: string[] = [];
    const sent = new Set<string>();
    const client = observedClient(
      (seen) => {
        if (seen.command !== 'GetObjectCommand') return;
        sent.add(seen.key);
        events.push(`sent ${seen.key}`);
      },
      async (seen) => {
        if (seen.command !== 'GetObjectCommand' || seen.key !== KEYS.job(job.jobId)) return;
        await until(() => sent.has(KEYS.plan(job.jobId)) && sent.has(KEYS.published(job.jobId)), 3_000);
        events.push(`answered ${seen.key}`);
      },
    );

    const output = await createFinishHandler(
      h.workerContext({ s3: client, jobs: createJobStore({ client, bucket: h.bucket }) }),
    )({ jobId: job.jobId });

    expect(output.state).toBe('succeeded');
    const answered = events.indexOf(`answered ${KEYS.job(job.jobId)}`);
    expect(answered).toBeGreaterThanOrEqual(0);
    for (const key of [KEYS.plan(job.jobId), KEYS.published(job.jobId)]) {
      expect(events.indexOf(`sent ${key}`)).toBeGreaterThanOrEqual(0);
      expect(events.indexOf(`sent ${key}`)).toBeLessThan(answered);
    }
  });

  it('starts the snapshot before the last part is downloaded', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025', formats: ['csv'] });
    const plan = await createPlanHandler(h.workerContext())({ jobId: job.jobId });
    const fetchShard = createFetchShardHandler(h.workerContext());
    for (const shard of plan.shards) await fetchShard({ jobId: job.jobId, shard });
    const lastPart = KEYS.part(job.jobId, plan.shards.length - 1);
    /** Whether the assembly had begun its snapshot when the last part's answer was let go. */
    let snapshotBeforeLastPart: boolean | undefined;
    const snapshotStarted = async () =>
      (await readdir(workDir, { recursive: true })).some((name) =>
        String(name).includes('snapshot.ndjson.gz'),
      );
    const client = observedClient(
      () => {},
      async (seen) => {
        if (seen.command !== 'GetObjectCommand' || seen.key !== lastPart) return;
        snapshotBeforeLastPart = await until(snapshotStarted, 5_000);
      },
    );

    const output = await createFinishHandler(h.workerContext({ s3: client, workDir }))({ jobId: job.jobId });

    expect(output.state).toBe('succeeded');
    expect(plan.shards.length).toBeGreaterThan(8);
    expect(snapshotBeforeLastPart).toBe(true);
  });
});

describe('export-finish handler, a part missing', () => {
  it('fails naming the part, publishes nothing and leaves no download running', async () => {
    const job = await h.queueJob({ profile: 'acme', period: '2025', formats: ['csv'] });
    const plan = await createPlanHandler(h.workerContext())({ jobId: job.jobId });
    const fetchShard = createFetchShardHandler(h.workerContext());
    for (const shard of plan.shards) await fetchShard({ jobId: job.jobId, shard });
    await h.s3.client.send(new DeleteObjectCommand({ Bucket: h.bucket, Key: KEYS.part(job.jobId, 2) }));
    const finishDir = await mkdtemp(join(workDir, 'missing-'));
    const reportsBefore = await h.keysUnder('reports/acme/');

    await expect(
      createFinishHandler(h.workerContext({ workDir: finishDir }))({ jobId: job.jobId }),
    ).rejects.toMatchObject({ name: 'WorkFileError', message: expect.stringContaining('parts/2.ndjson.gz') });

    expect(await h.keysUnder('reports/acme/')).toEqual(reportsBefore);
    expect(await h.keysUnder('_staging/')).toEqual([]);
    // The scratch folder is gone: no download was left writing into it.
    expect(await readdir(finishDir)).toEqual([]);
    expect((await h.jobs.require(job.jobId)).state).toBe('running');
  });
});

describe('export-finish handler, demo data known from the parts only', () => {
  it.each([[['csv']], [['csv', 'xlsx']]])(
    'marks the run demo data when only the parts say so (formats %j)',
    async (formats) => {
      const job = await h.queueJob({ profile: 'acme', period: '2025-06', formats });
      const plan = await createPlanHandler(h.workerContext())({ jobId: job.jobId });
      const fetchShard = createFetchShardHandler(h.workerContext());
      for (const shard of plan.shards) await fetchShard({ jobId: job.jobId, shard });
      // As if planning had had no answer from the simulator: only the parts' metadata says it.
      const stored = JSON.parse(
        (await (
          await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: KEYS.plan(job.jobId) }))
        ).Body?.transformToString()) ?? '{}',
      ) as { demo?: true };
      delete stored.demo;
      await h.s3.client.send(
        new PutObjectCommand({ Bucket: h.bucket, Key: KEYS.plan(job.jobId), Body: JSON.stringify(stored) }),
      );

      // A service factory of its own: its client has had no answer yet.
      await createFinishHandler(h.workerContext({ services: h.servicesWith({}) }))({ jobId: job.jobId });

      const manifestKey = (await h.jobs.require(job.jobId)).result?.files.find(
        (file) => file.name === 'manifest.json',
      )?.key;
      const manifest = JSON.parse(
        (await (
          await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: manifestKey }))
        ).Body?.transformToString()) ?? '{}',
      ) as { demo?: boolean };
      expect(manifest.demo).toBe(true);
    },
  );
});
