/** Typed errors of the state machine's workers. */
import { PbsExportError } from '../errors.ts';

/** A worker was asked to move a job out of a state it cannot leave (e.g. a succeeded job). */
export class JobStateError extends PbsExportError {
  constructor(jobId: string, message: string, options?: { cause?: unknown }) {
    super('job_state', `job ${jobId}: ${message}`, options);
  }
}

/** A work file of a job (plan or part) is missing or unreadable. */
export class WorkFileError extends PbsExportError {
  constructor(key: string, reason: string, options?: { cause?: unknown }) {
    super('work_file', `${key}: ${reason}`, options);
  }
}
