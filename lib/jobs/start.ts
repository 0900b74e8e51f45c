/** Starting a job: create the record conditionally, then start the export execution named by it. */
import type { SFNClient } from '@aws-sdk/client-sfn';
import { loadSfnSdk } from '../aws-sdk.ts';
import { IdempotencyKeyReusedError, JobConflictError, StartFailedError } from './errors.ts';
import type { ProfileSlots } from './profile-slots.ts';
import type { ExportInput, JobRecord } from './records.ts';
import type { CreateResult, JobStore } from './store.ts';

/** Starts the export of a job (the state machine in AWS; the local runner in `serve`). */
export interface ExecutionStarter {
  start(input: ExportInput): Promise<void>;
}

/** Options of {@link createSfnStarter}. */
export interface SfnStarterOptions {
  client: SFNClient;
  stateMachineArn: string;
}

/**
 * Starts the export state machine with `name = jobId`, so Step Functions itself refuses a second
 * execution of the same job; `ExecutionAlreadyExists` therefore counts as started.
 */
export function createSfnStarter(options: SfnStarterOptions): ExecutionStarter {
  return {
    async start(input) {
      const { ExecutionAlreadyExists, StartExecutionCommand } = await loadSfnSdk();
      try {
        await options.client.send(
          new StartExecutionCommand({
            stateMachineArn: options.stateMachineArn,
            name: input.jobId,
            input: JSON.stringify(input),
          }),
        );
      } catch (error) {
        if (error instanceof ExecutionAlreadyExists) return;
        throw error;
      }
    },
  };
}

/** What {@link startJob} needs. */
export interface StartDeps {
  jobs: JobStore;
  starter: ExecutionStarter;
  /** The clock; without it a stale queued job is never started again. */
  now?: () => Date;
  /**
   * The per-key queues: a new job takes its place in its key's queue before its execution starts,
   * so jobs of one key start in order of creation (see `profile-slots.ts`). Without it the plan
   * task queues the job at its first attempt.
   */
  slots?: Pick<ProfileSlots, 'enqueue' | 'release'>;
}

/** Options of {@link startJob}. */
export interface StartOptions {
  /**
   * Whether an existing job under the same id was created by this same request. When it was not
   * (an `Idempotency-Key` reused with another body), {@link IdempotencyKeyReusedError} is thrown
   * and the existing job is neither changed nor started.
   */
  sameRequest?: (existing: JobRecord) => boolean;
}

/**
 * A job still `queued` this long after its creation was never started: the process that created
 * its record died before starting the execution. A live start takes milliseconds.
 */
export const QUEUED_START_GRACE_MS = 60_000;

/**
 * Creates the job record unless it exists and, only when this call created it, starts the
 * export. An existing job is returned as it is (`created: false`), without a second start,
 * except a job left `queued` for longer than {@link QUEUED_START_GRACE_MS}: its creator died
 * before starting it, so it is started now (the execution is named by the job id, so a job that
 * did start is not started twice). When the start fails the record is removed again (and taken
 * out of the queue), so a retry of the same request can start afresh; throws
 * {@link StartFailedError}. An existing job of another request throws
 * {@link IdempotencyKeyReusedError} before anything is touched.
 */
export async function startJob(
  deps: StartDeps,
  job: JobRecord,
  options: StartOptions = {},
): Promise<CreateResult> {
  // The create is conditional (If-None-Match: *): an existing record is returned, never overwritten.
  const result = await deps.jobs.create(job);
  if (!result.created) {
    const stored = result.job;
    if (options.sameRequest !== undefined && !options.sameRequest(stored)) {
      throw new IdempotencyKeyReusedError(stored.jobId);
    }
    const queuedFor = deps.now === undefined ? 0 : deps.now().getTime() - Date.parse(stored.createdAt);
    if (stored.state === 'queued' && queuedFor > QUEUED_START_GRACE_MS) {
      try {
        await joinQueue(deps, stored);
        await deps.starter.start({ jobId: stored.jobId });
      } catch (error) {
        throw new StartFailedError(stored.jobId, { cause: error });
      }
    }
    return result;
  }
  try {
    await joinQueue(deps, job);
    await deps.starter.start({ jobId: job.jobId });
  } catch (error) {
    await deps.slots?.release(job.profile, job.jobId).catch(() => {});
    await deps.jobs.remove(job).catch(() => {});
    throw new StartFailedError(job.jobId, { cause: error });
  }
  return result;
}

/**
 * Puts the job in its key's queue. Losing every race on a busy key's queue object is not fatal:
 * the plan task queues the job at its first attempt, in the same order (by creation time).
 */
async function joinQueue(deps: StartDeps, job: JobRecord): Promise<void> {
  try {
    await deps.slots?.enqueue(job.profile, job.jobId, job.createdAt);
  } catch (error) {
    if (!(error instanceof JobConflictError)) throw error;
  }
}
