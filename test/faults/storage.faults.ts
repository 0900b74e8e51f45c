/**
 * Faults of S3 (s3rver on loopback), end to end: a part upload, the completion of a multipart
 * upload, the manifest (refused, or stored with its answer lost) through `runExport` with the S3
 * sink; and through the workflow's tasks, the manifest, a shard's part and the job record. Each
 * export publishes exactly the service's data, or fails cleanly (nothing left under its folder)
 * and a rerun or the task's retry publishes it, with one manifest and a consistent job record.
 *
 * Sets that would lie: a store (a proxy in front of s3rver) that keeps other bytes than it was
 * sent, a folder run's staging folder removed while it publishes, and a run of another container
 * with the same host name opening a set beside it. Each is found before the manifest vouches for
 * the files: the run fails cleanly and a rerun publishes the data, or (the other container) the
 * run is left alone and publishes it.
 */
import { readdirSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPrefix } from '../../lib/export/index.ts';
import { parseExportRequest } from '../../lib/export/plan/index.ts';
import { createJobStore } from '../../lib/jobs/index.ts';
import { profilesWithCounts } from '../../lib/simulator/index.ts';
import { StorageError } from '../../lib/storage/errors.ts';
import { createLocalSink, createS3Client, createS3Sink, type ProcessOwner } from '../../lib/storage/index.ts';
import type { Sink, SinkObject, StoredObject } from '../../lib/storage/sink.ts';
import { type Corruption, isUploadTo, startCorruptingProxy } from '../support/corrupting-proxy.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';
import { emulateConditionalWrites, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { exportUnderFaults, recordRun } from './support/export-runs.ts';
import {
  injectS3Faults,
  readLocalRun,
  readS3Run,
  referenceFor,
  type S3FaultRule,
} from './support/fault-harness.ts';
import { runExportMachine } from './support/machine.ts';
import { checkSucceededJob, jobPrefix, workersOf } from './support/workflow-runs.ts';

describe('runExport to S3 under S3 faults', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3rver();
  });
  afterAll(async () => {
    await s3.close();
  });

  /** Exports to the bucket through a client that fails as `rule` says; reruns on the same client. */
  async function exportToFaultyS3(
    rule: S3FaultRule,
    options: { large?: boolean } = {},
  ): Promise<Awaited<ReturnType<typeof exportUnderFaults>> & { fired: number }> {
    const client = s3.createClient();
    const counter = injectS3Faults(client, rule);
    const sink = createS3Sink({ client, bucket: s3.bucket });
    const read = (prefix: string) => readS3Run(s3.client, s3.bucket, prefix);
    const result = options.large
      ? await exportUnderFaults({
          // About 22,000 rows: the transactions CSV (over 6 MB) goes up in two parts.
          request: parseExportRequest({
            profile: 'demo',
            period: '2025',
            formats: ['csv'],
            reports: ['transactions'],
          }),
          profile: 'demo',
          profiles: profilesWithCounts({ demo: 66_000 }),
          pageSize: 1000,
          faults: {},
          // No service faults here: pages of 1000 rows get a generous timeout, so a busy machine
          // fails nothing but the store (150 ms, the harness's default, is for small pages).
          client: { timeoutMs: 10_000 },
          sink: { sink, read },
        })
      : await exportUnderFaults({
          request: parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] }),
          faults: {},
          client: { timeoutMs: 10_000 },
          sink: { sink, read },
        });
    return { ...result, fired: counter.fired };
  }

  it.each<[string, S3FaultRule, boolean]>([
    ['a part upload (UploadPart)', { when: (name) => name === 'UploadPartCommand' }, true],
    [
      'completing the upload (CompleteMultipartUpload)',
      { when: (name) => name === 'CompleteMultipartUploadCommand' },
      true,
    ],
    [
      'writing the manifest',
      { when: (name, input) => name === 'PutObjectCommand' && String(input.Key).endsWith('/manifest.json') },
      false,
    ],
    [
      'the manifest stored but its answer lost',
      {
        when: (name, input) => name === 'PutObjectCommand' && String(input.Key).endsWith('/manifest.json'),
        phase: 'after',
      },
      false,
    ],
  ])(
    'fails cleanly with a StorageError on %s, leaving nothing under the run, and a rerun publishes the data',
    async (name, rule, large) => {
      const result = await exportToFaultyS3(rule, { large });
      recordRun(`s3: ${name}`, result);

      expect(result.problems).toEqual([]);
      expect(result.fired).toBe(1);
      expect(result.error).toBeInstanceOf(StorageError);
      expect(result.reruns).toBe(1);
    },
  );
});

describe('workflow jobs under S3 faults', () => {
  let h: WorkflowHarness;
  beforeAll(async () => {
    h = await startWorkflowHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] });

  /** Runs a job through the state machine with its workers on an S3 client failing as `rule` says. */
  async function jobUnderS3Fault(name: string, rule: (jobId: string) => S3FaultRule) {
    const reference = await referenceFor({ profile: 'acme', request });
    const job = await h.queueJob(request);
    const client = h.s3.createClient();
    emulateConditionalWrites(client, h.s3.client);
    const counter = injectS3Faults(client, rule(job.jobId));
    const workers = workersOf(h, { s3: client, jobs: createJobStore({ client, bucket: h.bucket }) });
    const run = await runExportMachine(workers, job.jobId);
    const check = await checkSucceededJob(h, job, reference);
    recordRun(`workflow s3: ${name}`, { ...check, reruns: run.retries });
    return { run, check, fired: counter.fired, job };
  }

  const putTo = (suffix: (jobId: string) => string, body?: string) => (jobId: string) => ({
    when: (name: string, input: Record<string, unknown>) =>
      name === 'PutObjectCommand' &&
      String(input.Key).endsWith(suffix(jobId)) &&
      (body === undefined || String(input.Body).includes(body)),
  });

  it('retries the finish task after the manifest write fails and records one manifest', async () => {
    const { run, check, fired } = await jobUnderS3Fault(
      'manifest write in finish',
      putTo(() => '/manifest.json'),
    );

    expect(check.problems).toEqual([]);
    expect([fired, run.state, run.retries]).toEqual([1, 'succeeded', 1]);
    expect(run.failures[0]).toMatch(/^finish: StorageError/);
  });

  it('retries the finish task after the job record update fails, recording the run it already published', async () => {
    const { run, check, fired, job } = await jobUnderS3Fault(
      'job record write after publishing',
      putTo((jobId) => `jobs/${jobId}.json`, '"state":"succeeded"'),
    );
    const manifest = await readS3Run(h.s3.client, h.bucket, jobPrefix(job));

    expect(check.problems).toEqual([]);
    expect([fired, run.state, run.retries]).toEqual([1, 'succeeded', 1]);
    expect(manifest.has('manifest.json')).toBe(true);
  });

  it('records the published run on retry without rewriting it, even when a rewrite would fail', async () => {
    let workbooks = 0;
    const reference = await referenceFor({ profile: 'acme', request });
    const job = await h.queueJob(request);
    const client = h.s3.createClient();
    emulateConditionalWrites(client, h.s3.client);
    const recordFault = injectS3Faults(
      client,
      putTo((jobId) => `jobs/${jobId}.json`, '"state":"succeeded"')(job.jobId),
    );
    // Any second upload of the workbook (a rewrite of the published run) fails.
    const rewriteFault = injectS3Faults(client, {
      when: (name, input) => {
        if (
          !/^(PutObject|CreateMultipartUpload)Command$/.test(name) ||
          !String(input.Key).endsWith('.xlsx')
        ) {
          return false;
        }
        workbooks += 1;
        return workbooks > 1;
      },
      times: 10,
    });
    const workers = workersOf(h, { s3: client, jobs: createJobStore({ client, bucket: h.bucket }) });

    const run = await runExportMachine(workers, job.jobId);
    const check = await checkSucceededJob(h, job, reference);
    recordRun('workflow s3: job record write, then a failing rewrite', { ...check, reruns: run.retries });

    expect(check.problems).toEqual([]);
    expect([recordFault.fired, rewriteFault.fired, run.state]).toEqual([1, 0, 'succeeded']);
  });

  it('retries the finish task after the job record was stored but its answer lost', async () => {
    const { run, check, fired } = await jobUnderS3Fault('job record stored, answer lost', (jobId) => ({
      ...putTo((id) => `jobs/${id}.json`, '"state":"succeeded"')(jobId),
      phase: 'after',
    }));

    expect(check.problems).toEqual([]);
    expect([fired, run.state, run.retries]).toEqual([1, 'succeeded', 1]);
  });

  it('retries the plan task after the job record update to running fails', async () => {
    const { run, check, fired } = await jobUnderS3Fault(
      'job record write in plan',
      putTo((jobId) => `jobs/${jobId}.json`, '"state":"running"'),
    );

    expect(check.problems).toEqual([]);
    expect([fired, run.state, run.retries]).toEqual([1, 'succeeded', 1]);
    expect(run.failures[0]).toMatch(/^plan: InternalError/);
  });

  it('retries a shard task after its part upload fails', async () => {
    const { run, check, fired } = await jobUnderS3Fault(
      'shard part upload',
      putTo((jobId) => `work/${jobId}/parts/3.ndjson.gz`),
    );

    expect(check.problems).toEqual([]);
    expect([fired, run.state, run.retries]).toEqual([1, 'succeeded', 1]);
    expect(run.failures[0]).toMatch(/^fetchShard 3: /);
  });
});

describe('runExport to S3 through a store that keeps other bytes than it was sent', () => {
  let s3: S3TestServer;
  beforeAll(async () => {
    s3 = await startS3rver();
  });
  afterAll(async () => {
    await s3.close();
  });

  it.each<[string, { suffix: string; part?: number; corruption: Corruption; large?: boolean }]>([
    ['a byte of a report changed', { suffix: '_transactions.csv', corruption: 'flip' }],
    ['a report cut short', { suffix: '_transactions.csv', corruption: 'truncate' }],
    ['a byte of the manifest changed', { suffix: '/manifest.json', corruption: 'flip' }],
    [
      'a byte of one part of a multipart upload changed',
      { suffix: '_transactions.csv', part: 2, corruption: 'flip', large: true },
    ],
  ])('fails cleanly when %s, publishing no manifest, and a rerun publishes the data', async (name, fault) => {
    const proxy = await startCorruptingProxy(s3.endpoint, {
      pick: (incoming) => isUploadTo(incoming, fault.suffix, fault.part),
      corruption: fault.corruption,
    });
    const client = await createS3Client({
      region: 'us-east-1',
      endpoint: proxy.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    const bucketPrefix = `corrupted/${name.replace(/\W+/g, '-')}`;
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: bucketPrefix });
    const read = (prefix: string) => readS3Run(s3.client, s3.bucket, `${bucketPrefix}/${prefix}`);
    try {
      const result = fault.large
        ? await exportUnderFaults({
            // About 22,000 rows: the transactions CSV (over 6 MB) goes up in two parts.
            request: parseExportRequest({
              profile: 'demo',
              period: '2025',
              formats: ['csv'],
              reports: ['transactions'],
            }),
            profile: 'demo',
            profiles: profilesWithCounts({ demo: 66_000 }),
            pageSize: 1000,
            faults: {},
            // No service faults here: a generous timeout, so a busy machine fails nothing but the store.
            client: { timeoutMs: 10_000 },
            sink: { sink, read },
          })
        : await exportUnderFaults({
            request: parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] }),
            faults: {},
            client: { timeoutMs: 10_000 },
            sink: { sink, read },
          });
      recordRun(`s3: a store that keeps ${name}`, result);

      expect(result.problems).toEqual([]);
      expect(proxy.corrupted).toBe(1);
      expect(result.error).toBeInstanceOf(StorageError);
      expect((result.error as Error).message).toMatch(/the store kept/);
      expect(result.reruns).toBe(1);
    } finally {
      client.destroy();
      await proxy.close();
    }
  });
});

/**
 * `sink`, calling `afterFirst` (and waiting for it) once the first object of its first set is
 * stored, before the run goes on: another process acting at that instant.
 */
function afterFirstStored(sink: Sink, afterFirst: (stored: StoredObject) => Promise<void>): Sink {
  let fired = false;
  const watched = (object: SinkObject): SinkObject => ({
    ...object,
    stream: object.stream,
    async done() {
      const stored = await object.done();
      if (!fired) {
        fired = true;
        await afterFirst(stored);
      }
      return stored;
    },
  });
  return {
    ...sink,
    root: sink.root,
    async openSet(prefix) {
      const set = await sink.openSet(prefix);
      return { ...set, prefix: set.prefix, create: (name, type) => watched(set.create(name, type)) };
    },
  };
}

describe('runExport to a folder while another process acts beside it', () => {
  const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] });

  it('fails cleanly when its staging folder is removed while it publishes, never re-creating it, and a rerun publishes the data', async () => {
    const result = await exportUnderFaults({
      request,
      faults: {},
      wrapSink: (sink) =>
        afterFirstStored(sink, async (stored) => {
          // `location` is the file's final path: its staging folder is the hidden one beside it.
          const finalDir = dirname(stored.location);
          const parent = dirname(finalDir);
          for (const entry of readdirSync(parent)) {
            if (entry.startsWith(`.${basename(finalDir)}.staging-`))
              rmSync(join(parent, entry), { recursive: true });
          }
        }),
    });
    recordRun('folder: staging folder removed while publishing', result);

    expect(result.problems).toEqual([]);
    expect(result.error).toBeInstanceOf(StorageError);
    expect((result.error as Error).message).toMatch(/staging folder was removed/);
    expect(result.reruns).toBe(1);
  });

  it('is left alone by a run of another container with the same host name opening a set beside it, and publishes the data', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pbs-faults-containers-'));
    // Same host name, pids of separate namespaces: each sees only its own pid alive.
    const container = (instance: string, pid: number): ProcessOwner => ({
      host: 'aaaaaaaa',
      pid,
      instance,
      isAlive: (other) => other === pid,
    });
    const sink = createLocalSink(dir, { owner: container('container-a', 7) });
    const neighbour = createLocalSink(dir, { owner: container('container-b', 8) });
    try {
      const result = await exportUnderFaults({
        request,
        faults: {},
        sink: { sink, read: (prefix) => readLocalRun(dir, prefix) },
        wrapSink: (base) =>
          afterFirstStored(base, async () => {
            await (await neighbour.openSet(runPrefix(request, 'neighbour'))).discard();
          }),
      });
      recordRun('folder: another container with the same host name opens a set beside the run', result);

      expect(result.problems).toEqual([]);
      expect([result.completed, result.reruns]).toEqual([true, 0]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
