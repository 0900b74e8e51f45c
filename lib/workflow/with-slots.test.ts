import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { S3TestServer } from '../../test/support/s3.ts';
import { startJobStoreServer } from '../../test/support/workflow.ts';
import { parseExportRequest } from '../export/plan/index.ts';
import {
  createProfileSlots,
  type JobRecord,
  type JobStore,
  type ProfileRegistry,
  type ProfileSlots,
} from '../jobs/index.ts';
import { withProfileSlots } from './with-slots.ts';
import type { Workers } from './workers.ts';

const arn = (name: string) => `arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/${name}-AbCdEf`;
const registry: ProfileRegistry = {
  acme: { secretArn: arn('acme'), timeZone: 'UTC', monthly: false },
  'acme-eu': { secretArn: arn('acme'), timeZone: 'Europe/Berlin', monthly: false },
  demo: { secretArn: arn('demo'), timeZone: 'UTC', monthly: false },
};

let server: S3TestServer;
let client: S3Client;
let jobs: JobStore;
let clock: number;
let slots: ProfileSlots;
beforeAll(async () => {
  ({ server, client, jobs } = await startJobStoreServer());
});
afterAll(async () => {
  await server.close();
});
let run = 0;
beforeEach(() => {
  run += 1;
  clock = Date.parse('2026-11-22T10:00:00Z') + run * 86_400_000;
  slots = createProfileSlots({ client, bucket: server.bucket, registry, now: () => new Date(clock) });
});

const busy = expect.objectContaining({ name: 'ProfileBusyError' });

describe('withProfileSlots', () => {
  function job(jobId: string, profile: string): JobRecord {
    return {
      jobId,
      profile,
      request: parseExportRequest({ profile, period: '2025-01' }),
      state: 'queued',
      source: 'api',
      idempotencyKey: jobId,
      createdAt: new Date(clock).toISOString(),
      updatedAt: new Date(clock).toISOString(),
    };
  }
  const calls: string[] = [];
  const inner: Workers = {
    plan: async ({ jobId }) => {
      calls.push(`plan ${jobId}`);
      return { jobId, shards: [0] };
    },
    fetchShard: async ({ jobId, shard }) => ({ jobId, shard, rows: 0, totalReported: 0 }),
    finish: async ({ jobId }) => ({ jobId, state: 'succeeded', files: 1 }),
    fail: async ({ jobId }) => ({ jobId, state: 'failed' }),
  };

  it('does not plan a job while another job of the same secret runs, and plans it after finish', async () => {
    const first = job(`a${run}`.padEnd(32, '0'), 'acme');
    const second = job(`b${run}`.padEnd(32, '0'), 'acme-eu');
    await jobs.create(first);
    await jobs.create(second);
    const workers = withProfileSlots(inner, slots, jobs);
    calls.length = 0;

    await workers.plan({ jobId: first.jobId });
    await expect(workers.plan({ jobId: second.jobId })).rejects.toEqual(busy);
    await workers.finish({ jobId: first.jobId });
    await workers.plan({ jobId: second.jobId });

    expect(calls).toEqual([`plan ${first.jobId}`, `plan ${second.jobId}`]);
  });

  it('frees the slot when the job fails', async () => {
    const first = job(`c${run}`.padEnd(32, '0'), 'demo');
    const second = job(`d${run}`.padEnd(32, '0'), 'demo');
    await jobs.create(first);
    await jobs.create(second);
    const workers = withProfileSlots(inner, slots, jobs);

    await workers.plan({ jobId: first.jobId });
    await workers.fail({ jobId: first.jobId, error: { Error: 'Error', Cause: 'boom' } });

    await expect(workers.plan({ jobId: second.jobId })).resolves.toMatchObject({ jobId: second.jobId });
  });
});
