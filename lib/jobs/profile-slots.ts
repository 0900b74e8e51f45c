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
 * - First in, first out: the lease object also holds the QUEUE of the jobs waiting for the slot,
 *   in order of creation. A job joins it when it is created (`startJob`) or, at the latest, at its
 *   first plan attempt; a free slot goes only to the oldest live job of the queue, the others keep
 *   waiting. Each plan attempt says the job is alive (`seenAt`, at most once a minute): a job not
 *   seen for {@link DEFAULT_QUEUE_STALE_SECONDS} (its execution ended without the fail task, or
 *   never started) is skipped, so a dead job holds up the queue for that long at most. The price
 *   of the order: a freed slot waits for the next attempt of the oldest job (up to the plan's
 *   longest retry delay), not for whichever waiting job happens to retry first.
 * - Each fetch-shard and finish task renews it (a lease outlives any task: 30 minutes, renewed
 *   when less than half is left), so a crashed execution frees its slot at most one lease later.
 * - Finish (after success) and fail release it and take the job out of the queue (fail also runs
 *   when an execution times out, is aborted or fails: see the stack's execution-end rule).
 *
 * Profiles registered with the same secret ARN share one slot; two secrets holding the same API
 * key are not detected (register one secret per key).
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { retry } from '../retry.ts';
import { JobConflictError, ProfileBusyError } from './errors.ts';
import { KEYS, type ProfileRegistry } from './records.ts';
import { lookupProfile } from './registry.ts';
import { getJson, isLostRace, putJson } from './s3-objects.ts';

/** How long a slot is held without renewal: longer than any task (15 minutes) plus retry delays. */
export const DEFAULT_SLOT_LEASE_SECONDS = 30 * 60;

/**
 * A queued job whose plan task has not looked at the queue for this long is taken for dead (its
 * execution ended without the fail task, or was never started) and no longer holds up the jobs
 * behind it. Three times the plan's longest retry delay (5 minutes, see `PROFILE_BUSY_RETRY`).
 */
export const DEFAULT_QUEUE_STALE_SECONDS = 15 * 60;

/** Longest pause after the first lost conditional-write race, growing with each attempt. */
const RACE_PAUSE_MS = 20;

/** A waiting job refreshes its `seenAt` at most this often (one write per minute and job at most). */
const SEEN_REFRESH_MS = 60_000;

/** One job waiting for the slot. */
export interface QueueEntry {
  jobId: string;
  /** The job's creation time: the queue's order. */
  createdAt: string;
  /** When the job (its creation, then each attempt of its plan task) last looked at the queue. */
  seenAt: string;
}

/** What `locks/{…}.json` holds: the lease (`jobId` empty when free) and the queue behind it. */
export interface SlotLease {
  jobId: string;
  profile: string;
  expiresAt: string;
  /** Waiting jobs, oldest first; absent in leases written before the queue existed. */
  queue?: QueueEntry[];
}

/** The slots of the registered secrets. */
export interface ProfileSlots {
  /**
   * Takes the slot of `profile`'s secret for `jobId`, or renews it when `jobId` holds it. Jobs
   * take a free slot first in, first out: a job that is not the oldest live one of the queue, or
   * finds the slot held by another job, takes (or keeps) its place in the queue and gets
   * {@link ProfileBusyError}. An expired lease is free. `createdAt` orders a job not queued yet
   * (default: now).
   */
  acquire(profile: string, jobId: string, createdAt?: string): Promise<void>;
  /**
   * Renews the lease of `jobId` (a later task of a running export) when less than half is left,
   * taking it back if it expired and nobody took it since; throws {@link ProfileBusyError} when
   * `jobId` no longer holds it (released, or taken by another job). Never joins the queue.
   */
  renew(profile: string, jobId: string): Promise<void>;
  /** Frees the slot if `jobId` holds it and takes `jobId` out of the queue (otherwise does nothing). */
  release(profile: string, jobId: string): Promise<void>;
  /** Puts a new job in the queue of its profile's secret, in order of `createdAt` (idempotent). */
  enqueue(profile: string, jobId: string, createdAt: string): Promise<void>;
  /** 1 for the next job to take the slot, 2 for the one after, …; `null` when not queued. */
  position(profile: string, jobId: string): Promise<number | null>;
}

/** Options of {@link createProfileSlots}. */
export interface ProfileSlotsOptions {
  client: S3Client;
  bucket: string;
  registry: ProfileRegistry;
  now: () => Date;
  /** @default {@link DEFAULT_SLOT_LEASE_SECONDS} */
  leaseSeconds?: number;
  /** @default {@link DEFAULT_QUEUE_STALE_SECONDS} */
  queueStaleSeconds?: number;
  /** Conditional-write races retried before {@link JobConflictError}. Default 8. */
  attempts?: number;
}

/** The S3 key of the slot of a secret. */
export function slotKey(secretArn: string): string {
  return KEYS.slot(createHash('sha256').update(secretArn).digest('hex').slice(0, 32));
}

const FREE = new Date(0).toISOString();

/** `queue` with `entry` at its place: after every entry created at the same time or earlier. */
function insertInOrder(queue: QueueEntry[], entry: QueueEntry): QueueEntry[] {
  const at = Date.parse(entry.createdAt);
  const index = queue.findIndex((queued) => Date.parse(queued.createdAt) > at);
  return index === -1 ? [...queue, entry] : [...queue.slice(0, index), entry, ...queue.slice(index)];
}

/** Builds the slots over S3 conditional writes. */
export function createProfileSlots(options: ProfileSlotsOptions): ProfileSlots {
  const { client, bucket, registry, now } = options;
  const leaseMs = (options.leaseSeconds ?? DEFAULT_SLOT_LEASE_SECONDS) * 1000;
  const staleMs = (options.queueStaleSeconds ?? DEFAULT_QUEUE_STALE_SECONDS) * 1000;
  const attempts = options.attempts ?? 8;
  const keyOf = (profile: string) => slotKey(lookupProfile(registry, profile).secretArn);
  /** The queue without the entries of dead jobs (see {@link DEFAULT_QUEUE_STALE_SECONDS}). */
  const live = (lease: SlotLease | undefined, at: number) =>
    (lease?.queue ?? []).filter((entry) => at - Date.parse(entry.seenAt) <= staleMs);

  /**
   * Reads the slot, lets `decide` return the lease to write (or `null`: nothing to write), and
   * writes it conditionally; again on a lost race, {@link JobConflictError} after `attempts`.
   */
  const change = async (
    profile: string,
    jobId: string,
    decide: (current: SlotLease | undefined, at: number) => SlotLease | null,
  ): Promise<void> => {
    const key = keyOf(profile);
    try {
      await retry(
        async () => {
          const current = await getJson<SlotLease>(client, bucket, key);
          const next = decide(current?.value, now().getTime());
          if (next === null) return;
          await putJson(
            client,
            bucket,
            key,
            next,
            current === null ? { ifNoneMatch: '*' } : { ifMatch: current.etag },
          );
        },
        // Creates, plan attempts and renewals of one key all write this object: a short jittered
        // pause, longer with each lost race, keeps the losers from meeting again at once.
        { attempts, retryable: isLostRace, delayMs: (index) => Math.random() * RACE_PAUSE_MS * (index + 1) },
      );
    } catch (error) {
      if (isLostRace(error)) throw new JobConflictError(jobId, { cause: error });
      throw error;
    }
  };

  return {
    async acquire(profile, jobId, createdAt) {
      let busy = false;
      await change(profile, jobId, (current, at) => {
        busy = false;
        const expiresAt = new Date(at + leaseMs).toISOString();
        const leaseEnds = current === undefined ? 0 : Date.parse(current.expiresAt);
        const queue = live(current, at);
        // Held by this job (a later task of a running export): renewed when less than half is left.
        if (current?.jobId === jobId) {
          if (leaseEnds - at > leaseMs / 2) return null;
          return { ...current, expiresAt, queue: queue.filter((entry) => entry.jobId !== jobId) };
        }
        const seenAt = new Date(at).toISOString();
        const own = queue.find((entry) => entry.jobId === jobId);
        const waiting = own
          ? queue.map((entry) => (entry === own ? { ...entry, seenAt } : entry))
          : insertInOrder(queue, { jobId, createdAt: createdAt ?? seenAt, seenAt });
        const held = current !== undefined && current.jobId !== '' && leaseEnds > at;
        if (!held && waiting[0]?.jobId === jobId) {
          return { jobId, profile, expiresAt, queue: waiting.slice(1) };
        }
        busy = true;
        // Still waiting: write only to join the queue or to say it is alive now and then.
        if (own !== undefined && at - Date.parse(own.seenAt) < SEEN_REFRESH_MS) return null;
        return { ...(current ?? { jobId: '', profile, expiresAt: FREE }), queue: waiting };
      });
      if (busy) throw new ProfileBusyError(profile);
    },

    async renew(profile, jobId) {
      let held = true;
      await change(profile, jobId, (current, at) => {
        held = current?.jobId === jobId;
        if (current === undefined || !held) return null;
        if (Date.parse(current.expiresAt) - at > leaseMs / 2) return null;
        return { ...current, expiresAt: new Date(at + leaseMs).toISOString() };
      });
      if (!held) throw new ProfileBusyError(profile);
    },

    async release(profile, jobId) {
      await change(profile, jobId, (current) => {
        if (current === undefined) return null;
        const holds = current.jobId === jobId;
        const queued = (current.queue ?? []).some((entry) => entry.jobId === jobId);
        if (!holds && !queued) return null;
        return {
          ...current,
          ...(holds ? { jobId: '', expiresAt: FREE } : {}),
          queue: (current.queue ?? []).filter((entry) => entry.jobId !== jobId),
        };
      }).catch((error: unknown) => {
        // An unreleased slot frees itself when its lease ends, a dead queue entry when it is stale.
        if (!(error instanceof JobConflictError)) throw error;
      });
    },

    async enqueue(profile, jobId, createdAt) {
      await change(profile, jobId, (current, at) => {
        if (current?.jobId === jobId) return null;
        const queue = live(current, at);
        const seenAt = new Date(at).toISOString();
        const own = queue.find((entry) => entry.jobId === jobId);
        const waiting = own
          ? queue.map((entry) => (entry === own ? { ...entry, seenAt } : entry))
          : insertInOrder(queue, { jobId, createdAt, seenAt });
        return { ...(current ?? { jobId: '', profile, expiresAt: FREE }), queue: waiting };
      });
    },

    async position(profile, jobId) {
      const current = await getJson<SlotLease>(client, bucket, keyOf(profile));
      const index = live(current?.value, now().getTime()).findIndex((entry) => entry.jobId === jobId);
      return index === -1 ? null : index + 1;
    },
  };
}
