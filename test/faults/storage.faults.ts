/**
 * Faults of S3 (s3rver on loopback), end to end: a part upload, the completion of a multipart
 * upload, the manifest (refused, or stored with its answer lost) through `runExport` with the S3
 * sink; and through the workflow's tasks, the manifest, a shard's part and the job record. Each
 * export publishes exactly the service's data, or fails cleanly (nothing left under its folder)
 * and a rerun or the task's retry publishes it, with one manifest and a consistent job record.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/plan/index.ts';
import { createJobStore } from '../../lib/jobs/index.ts';
import { profilesWithCounts } from '../../lib/simulator/index.ts';
import { StorageError } from '../../lib/storage/errors.ts';
import { createS3Sink } from '../../lib/storage/index.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';
import { emulateConditionalWrites, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { exportUnderFaults, recordRun } from './support/export-runs.ts';
import { injectS3Faults, readS3Run, referenceFor, type S3FaultRule } from './support/fault-harness.ts';
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
          sink: { sink, read },
        })
      : await exportUnderFaults({
          request: parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] }),
          faults: {},
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
