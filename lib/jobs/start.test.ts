import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3TestServer } from '../../test/support/s3.ts';
import { startJobStoreServer } from '../../test/support/workflow.ts';
import { parseExportRequest } from '../export/plan/index.ts';
import { createProfileSlots } from './profile-slots.ts';
import { type ExportInput, type JobRecord, jobIdFor } from './records.ts';
import { QUEUED_START_GRACE_MS, startJob } from './start.ts';
import type { JobStore } from './store.ts';

let server: S3TestServer;
let client: S3Client;
let jobs: JobStore;
beforeAll(async () => {
  ({ server, client, jobs } = await startJobStoreServer());
});

/** The per-key slots and queues over the test store, at `at`. */
const slotsOver = (at: Date) =>
  createProfileSlots({
    client,
    bucket: server.bucket,
    registry: {
      acme: {
        secretArn: 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/acme-AbCdEf',
        timeZone: 'UTC',
        monthly: false,
      },
    },
    now: () => at,
  });
afterAll(async () => {
  await server.close();
});

const CREATED = new Date('2026-11-22T10:00:00.000Z');
let counter = 0;
function queuedJob(): JobRecord {
  counter += 1;
  return {
    jobId: jobIdFor('acme', `start-${counter}`),
    profile: 'acme',
    request: parseExportRequest({ profile: 'acme', period: '2025-01' }),
    state: 'queued',
    source: 'api',
    idempotencyKey: `key:start-${counter}`,
    createdAt: CREATED.toISOString(),
    updatedAt: CREATED.toISOString(),
  };
}

function recordingStarter() {
  const started: ExportInput[] = [];
  return { started, starter: { start: async (input: ExportInput) => void started.push(input) } };
}

describe('startJob', () => {
  it('starts the execution of a job it created, once', async () => {
    const { started, starter } = recordingStarter();
    const job = queuedJob();
    const first = await startJob({ jobs, starter, now: () => CREATED }, job);
    const again = await startJob({ jobs, starter, now: () => CREATED }, job);
    expect([first.created, again.created]).toEqual([true, false]);
    expect(started).toEqual([{ jobId: job.jobId }]);
  });

  it('starts a job left queued past the grace period by a creator that died before starting it', async () => {
    const job = queuedJob();
    await jobs.create(job); // the record exists; the process died before StartExecution
    const { started, starter } = recordingStarter();
    const soon = new Date(CREATED.getTime() + QUEUED_START_GRACE_MS);
    await startJob({ jobs, starter, now: () => soon }, job);
    expect(started).toEqual([]);
    const later = new Date(CREATED.getTime() + QUEUED_START_GRACE_MS + 1);
    const result = await startJob({ jobs, starter, now: () => later }, job);
    expect(result.created).toBe(false);
    expect(started).toEqual([{ jobId: job.jobId }]);
  });

  it('does not start again a job that is running or finished, however old', async () => {
    const job = queuedJob();
    await jobs.create({ ...job, state: 'running' });
    const { started, starter } = recordingStarter();
    await startJob({ jobs, starter, now: () => new Date(CREATED.getTime() + 86_400_000) }, job);
    expect(started).toEqual([]);
  });

  it('removes the record when the start fails, so a retry starts afresh', async () => {
    const job = queuedJob();
    const failing = { start: async () => Promise.reject(new Error('throttled')) };
    await expect(startJob({ jobs, starter: failing, now: () => CREATED }, job)).rejects.toThrow(
      /throttled|start/,
    );
    expect(await jobs.get(job.jobId)).toBeNull();
    const { started, starter } = recordingStarter();
    expect((await startJob({ jobs, starter, now: () => CREATED }, job)).created).toBe(true);
    expect(started).toHaveLength(1);
  });

  it('puts a new job in its key queue before its execution starts', async () => {
    const job = queuedJob();
    const slots = slotsOver(CREATED);
    const positions: (number | null)[] = [];
    const starter = {
      start: async ({ jobId }: ExportInput) => void positions.push(await slots.position('acme', jobId)),
    };

    await startJob({ jobs, starter, slots, now: () => CREATED }, job);

    expect(positions).toEqual([expect.any(Number)]);
  });

  it('takes the job out of the queue again when its start fails', async () => {
    const job = queuedJob();
    const slots = slotsOver(CREATED);
    const failing = { start: async () => Promise.reject(new Error('throttled')) };

    await expect(startJob({ jobs, starter: failing, slots, now: () => CREATED }, job)).rejects.toThrow();

    expect(await slots.position('acme', job.jobId)).toBeNull();
  });
});
