import type { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { S3TestServer } from '../../test/support/s3.ts';
import { startJobStoreServer } from '../../test/support/workflow.ts';
import { createProfileSlots, type ProfileSlots, type SlotLease, slotKey } from './profile-slots.ts';
import type { ProfileRegistry } from './records.ts';
import { getJson } from './s3-objects.ts';

const arn = (name: string) => `arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/${name}-AbCdEf`;
const registry: ProfileRegistry = {
  acme: { secretArn: arn('acme'), timeZone: 'UTC', monthly: false },
  'acme-eu': { secretArn: arn('acme'), timeZone: 'Europe/Berlin', monthly: false },
  demo: { secretArn: arn('demo'), timeZone: 'UTC', monthly: false },
};

let server: S3TestServer;
let client: S3Client;
let clock: number;
let slots: ProfileSlots;
beforeAll(async () => {
  ({ server, client } = await startJobStoreServer());
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
const lease = async (profile: string) =>
  (await getJson<SlotLease>(client, server.bucket, slotKey(registry[profile]?.secretArn ?? '')))?.value;

describe('createProfileSlots', () => {
  it('refuses a second job while the first holds the slot, with ProfileBusyError', async () => {
    await slots.acquire('acme', 'job-a');

    await expect(slots.acquire('acme', 'job-b')).rejects.toEqual(busy);
  });

  it('shares one slot between profiles registered with the same secret', async () => {
    await slots.acquire('acme', 'job-a');

    await expect(slots.acquire('acme-eu', 'job-b')).rejects.toEqual(busy);
    await expect(slots.acquire('demo', 'job-c')).resolves.toBeUndefined();
  });

  it('lets the holder renew it and the next job take it once released', async () => {
    await slots.acquire('demo', 'job-a');
    await slots.acquire('demo', 'job-a');
    await slots.release('demo', 'job-a');

    await expect(slots.acquire('demo', 'job-b')).resolves.toBeUndefined();
    expect((await lease('demo'))?.jobId).toBe('job-b');
  });

  it('ignores a release by a job that does not hold the slot', async () => {
    await slots.acquire('demo', 'job-a');
    await slots.release('demo', 'job-b');

    await expect(slots.acquire('demo', 'job-c')).rejects.toEqual(busy);
  });

  it('lets another job take over a lease that expired (a crashed export)', async () => {
    await slots.acquire('demo', 'job-a');
    clock += 31 * 60_000;

    await expect(slots.acquire('demo', 'job-b')).resolves.toBeUndefined();
  });

  it('extends the lease when a task of the holder finds less than half of it left', async () => {
    await slots.acquire('demo', 'job-a');
    const first = (await lease('demo'))?.expiresAt;
    clock += 16 * 60_000;

    await slots.acquire('demo', 'job-a');

    expect(Date.parse((await lease('demo'))?.expiresAt ?? '')).toBe(clock + 30 * 60_000);
    expect(first).not.toBe((await lease('demo'))?.expiresAt);
  });
});

describe('the queue of a slot', () => {
  const created = (minutes: number) => new Date(clock - 60 * 60_000 + minutes * 60_000).toISOString();

  it('gives a freed slot to the oldest waiting job, whatever order the waiting jobs retry in', async () => {
    await slots.acquire('demo', 'holder');
    for (const [jobId, minute] of [
      ['job-c', 3],
      ['job-a', 1],
      ['job-b', 2],
    ] as const) {
      await expect(slots.acquire('demo', jobId, created(minute))).rejects.toEqual(busy);
    }
    await slots.release('demo', 'holder');

    await expect(slots.acquire('demo', 'job-c', created(3))).rejects.toEqual(busy);
    await expect(slots.acquire('demo', 'job-b', created(2))).rejects.toEqual(busy);
    await expect(slots.acquire('demo', 'job-a', created(1))).resolves.toBeUndefined();
    await slots.release('demo', 'job-a');
    await expect(slots.acquire('demo', 'job-c', created(3))).rejects.toEqual(busy);
    await expect(slots.acquire('demo', 'job-b', created(2))).resolves.toBeUndefined();
  });

  it('counts the position of each queued job from 1 for the next, in order of creation', async () => {
    await slots.acquire('acme', 'holder');
    await slots.enqueue('acme', 'job-late', created(9));
    await slots.enqueue('acme-eu', 'job-early', created(1));
    await expect(slots.acquire('acme', 'job-middle', created(5))).rejects.toEqual(busy);

    const positions = await Promise.all(
      ['job-early', 'job-middle', 'job-late', 'holder'].map((jobId) => slots.position('acme', jobId)),
    );

    expect(positions).toEqual([1, 2, 3, null]);
  });

  it('takes a released job out of the queue, so the jobs behind it move up', async () => {
    await slots.acquire('demo', 'holder');
    await slots.enqueue('demo', 'job-a', created(1));
    await slots.enqueue('demo', 'job-b', created(2));

    await slots.release('demo', 'job-a');

    expect(await slots.position('demo', 'job-a')).toBeNull();
    expect(await slots.position('demo', 'job-b')).toBe(1);
  });

  it('skips a queued job that has not been seen for 15 minutes (its execution is gone)', async () => {
    await slots.enqueue('demo', 'job-dead', created(1));
    await slots.enqueue('demo', 'job-alive', created(2));
    await expect(slots.acquire('demo', 'job-alive', created(2))).rejects.toEqual(busy);
    clock += 16 * 60_000;

    await expect(slots.acquire('demo', 'job-alive', created(2))).resolves.toBeUndefined();
    expect((await lease('demo'))?.queue).toEqual([]);
  });

  it('refuses the renewal of a slot its job no longer holds, without queueing that job', async () => {
    await slots.acquire('demo', 'job-a');
    await slots.renew('demo', 'job-a');
    await slots.release('demo', 'job-a');

    await expect(slots.renew('demo', 'job-a')).rejects.toEqual(busy);
    expect(await slots.position('demo', 'job-a')).toBeNull();
    await expect(slots.acquire('demo', 'job-b')).resolves.toBeUndefined();
  });

  it('keeps the place of a job whose plan retries now and then, however long it waits', async () => {
    await slots.acquire('demo', 'holder');
    await slots.enqueue('demo', 'job-a', created(1));
    await slots.enqueue('demo', 'job-b', created(2));
    for (let step = 0; step < 6; step += 1) {
      clock += 5 * 60_000;
      await slots.acquire('demo', 'holder');
      await expect(slots.acquire('demo', 'job-b', created(2))).rejects.toEqual(busy);
      await expect(slots.acquire('demo', 'job-a', created(1))).rejects.toEqual(busy);
    }

    expect(await slots.position('demo', 'job-a')).toBe(1);
    expect(await slots.position('demo', 'job-b')).toBe(2);
  });
});
