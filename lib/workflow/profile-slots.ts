/**
 * One running export per registered secret (so per API key): the service limits each key to
 * 20 requests/s, and one export stays under it by itself (`exportMapConcurrency ×
 * requestsPerSecond ≤ 20`, checked at synthesis), but two exports of the same profile started
 * through the HTTP API (two periods, say) would double the rate. Each export therefore holds the
 * SLOT of its profile's secret while it runs: a lease object `locks/{hash of the secret ARN}.json`
 * written with conditional writes (create `If-None-Match: *`, take over or renew `If-Match`).
 *
 * - The plan task takes the slot; a job finding it held by another job throws
 *   {@link ProfileBusyError}, which the state machine retries with backoff (the job stays queued).
 * - Each fetch-shard and finish task renews it (a lease outlives any task: 30 minutes, renewed
 *   when less than half is left), so a crashed execution frees its slot at most one lease later.
 * - Finish (after success) and fail release it.
 *
 * Profiles registered with the same secret ARN share one slot; two secrets holding the same API
 * key are not detected (register one secret per key).
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { KEYS, type ProfileRegistry } from './contract.ts';
import { JobConflictError, ProfileBusyError } from './errors.ts';
import type { JobStore } from './jobs.ts';
import { lookupProfile } from './registry.ts';
import { getJson, isConditionalConflict, isPreconditionFailed, putJson } from './s3-objects.ts';
import type { Workers } from './workers.ts';

/** How long a slot is held without renewal: longer than any task (15 minutes) plus retry delays. */
export const DEFAULT_SLOT_LEASE_SECONDS = 30 * 60;

/** What `locks/{…}.json` holds. */
export interface SlotLease {
  jobId: string;
  profile: string;
  expiresAt: string;
}

/** The slots of the registered secrets. */
export interface ProfileSlots {
  /**
   * Takes the slot of `profile`'s secret for `jobId`, or renews it when `jobId` holds it; throws
   * {@link ProfileBusyError} while another job holds it (an expired lease is taken over).
   */
  acquire(profile: string, jobId: string): Promise<void>;
  /** Frees the slot if `jobId` holds it (otherwise does nothing). */
  release(profile: string, jobId: string): Promise<void>;
}

/** Options of {@link createProfileSlots}. */
export interface ProfileSlotsOptions {
  client: S3Client;
  bucket: string;
  registry: ProfileRegistry;
  now: () => Date;
  /** @default {@link DEFAULT_SLOT_LEASE_SECONDS} */
  leaseSeconds?: number;
  /** Conditional-write races retried before {@link JobConflictError}. Default 8. */
  attempts?: number;
}

/** The S3 key of the slot of a secret. */
export function slotKey(secretArn: string): string {
  return KEYS.slot(createHash('sha256').update(secretArn).digest('hex').slice(0, 32));
}

/** Builds the slots over S3 conditional writes. */
export function createProfileSlots(options: ProfileSlotsOptions): ProfileSlots {
  const { client, bucket, registry, now } = options;
  const leaseMs = (options.leaseSeconds ?? DEFAULT_SLOT_LEASE_SECONDS) * 1000;
  const attempts = options.attempts ?? 8;
  const keyOf = (profile: string) => slotKey(lookupProfile(registry, profile).secretArn);
  const lost = (error: unknown) => isPreconditionFailed(error) || isConditionalConflict(error);

  return {
    async acquire(profile, jobId) {
      const key = keyOf(profile);
      for (let attempt = 1; attempt <= attempts; attempt += 1) {
        const current = await getJson<SlotLease>(client, bucket, key);
        const at = now().getTime();
        const lease: SlotLease = { jobId, profile, expiresAt: new Date(at + leaseMs).toISOString() };
        const expiresAt = current === null ? 0 : Date.parse(current.value.expiresAt);
        if (current !== null && current.value.jobId !== jobId && expiresAt > at) {
          throw new ProfileBusyError(profile);
        }
        // Held by this job with more than half the lease left: nothing to write.
        if (current !== null && current.value.jobId === jobId && expiresAt - at > leaseMs / 2) return;
        try {
          await putJson(
            client,
            bucket,
            key,
            lease,
            current === null ? { ifNoneMatch: '*' } : { ifMatch: current.etag },
          );
          return;
        } catch (error) {
          if (!lost(error)) throw error;
        }
      }
      throw new JobConflictError(jobId);
    },

    async release(profile, jobId) {
      const key = keyOf(profile);
      for (let attempt = 1; attempt <= attempts; attempt += 1) {
        const current = await getJson<SlotLease>(client, bucket, key);
        if (current === null || current.value.jobId !== jobId) return;
        const released: SlotLease = { ...current.value, expiresAt: new Date(0).toISOString() };
        try {
          await putJson(client, bucket, key, released, { ifMatch: current.etag });
          return;
        } catch (error) {
          if (!lost(error)) throw error;
        }
      }
      // An unreleased slot frees itself when its lease ends.
    },
  };
}

/**
 * The export tasks holding their profile's slot: plan takes it (or throws
 * {@link ProfileBusyError}), fetch-shard and finish renew it, finish and fail release it.
 */
export function withProfileSlots(workers: Workers, slots: ProfileSlots, jobs: JobStore): Workers {
  const profileOf = async (jobId: string) => (await jobs.require(jobId)).profile;
  return {
    async plan(input) {
      await slots.acquire(await profileOf(input.jobId), input.jobId);
      return workers.plan(input);
    },
    async fetchShard(input) {
      await slots.acquire(await profileOf(input.jobId), input.jobId);
      return workers.fetchShard(input);
    },
    async finish(input) {
      const job = await jobs.require(input.jobId);
      // A finish retried after success has nothing left to do and must not wait for the slot.
      if (job.state !== 'succeeded') await slots.acquire(job.profile, input.jobId);
      const output = await workers.finish(input);
      await slots.release(job.profile, input.jobId);
      return output;
    },
    async fail(input) {
      const output = await workers.fail(input);
      const job = await jobs.get(input.jobId);
      if (job !== null) await slots.release(job.profile, input.jobId).catch(() => {});
      return output;
    },
  };
}
