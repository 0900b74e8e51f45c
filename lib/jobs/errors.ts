/** Typed errors of the jobs layer (records, registry, slots, starts). None carries a secret. */
import { PbsExportError, ValidationError } from '../errors.ts';

/** A request names a profile that is not registered in `PBS_PROFILES`. */
export class UnknownProfileError extends ValidationError {
  constructor(profile: string, options?: { cause?: unknown }) {
    super('profile', `profile "${profile}" is not registered`, options);
  }
}

/** No job record exists under the id. */
export class JobNotFoundError extends PbsExportError {
  readonly jobId: string;

  constructor(jobId: string, options?: { cause?: unknown }) {
    super('job_not_found', `job ${jobId} does not exist`, options);
    this.jobId = jobId;
  }
}

/** A conditional update kept losing to concurrent writers. */
export class JobConflictError extends PbsExportError {
  constructor(jobId: string, options?: { cause?: unknown }) {
    super('job_conflict', `job ${jobId} changed concurrently too many times`, options);
  }
}

/** The job record was written but the state machine execution could not be started. */
export class StartFailedError extends PbsExportError {
  readonly jobId: string;

  constructor(jobId: string, options?: { cause?: unknown }) {
    super('start_failed', `the export of job ${jobId} could not be started`, options);
    this.jobId = jobId;
  }
}

/**
 * Another export using the same registered secret (API key) is running: this job waits for its
 * slot (the state machine retries the plan task on this error; see `profile-slots.ts`).
 */
export class ProfileBusyError extends PbsExportError {
  constructor(profile: string, options?: { cause?: unknown }) {
    super(
      'profile_busy',
      `profile "${profile}": another export using its API key is running; this export waits for it to end`,
      options,
    );
  }
}

/**
 * An `Idempotency-Key` already names a job of another request: the existing job is left as it is
 * (answered 422 naming the header).
 */
export class IdempotencyKeyReusedError extends PbsExportError {
  readonly jobId: string;

  constructor(jobId: string, options?: { cause?: unknown }) {
    super('idempotency_key_reused', 'Idempotency-Key: already used for a different request', options);
    this.jobId = jobId;
  }
}

/** A page cursor of the job list that no listing handed out (see `JOB_CURSOR`). */
export class InvalidCursorError extends ValidationError {
  constructor(cursor: string, options?: { cause?: unknown }) {
    super('cursor', `"${cursor.slice(0, 64)}" is not a cursor a previous page returned`, options);
  }
}

export { LocalPreconditionFailedError } from '../storage/index.ts';
