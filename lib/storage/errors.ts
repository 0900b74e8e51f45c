import { PbsExportError } from '../errors.ts';

/**
 * Storing, listing or discarding an object failed. `location` names the object (a file path or
 * `s3://bucket/key`), never a credential or a signed URL; `cause` keeps the original failure.
 */
export class StorageError extends PbsExportError {
  /** The object concerned: a file path or `s3://bucket/key`. */
  readonly location: string;
  /**
   * Set when cleaning up after the failure failed too (e.g. the server refused
   * AbortMultipartUpload); reported beside `cause` so it never hides the original failure.
   */
  readonly cleanupError: unknown;

  constructor(location: string, message: string, options: { cause?: unknown; cleanupError?: unknown } = {}) {
    super('storage_failed', `${location}: ${message}`, { cause: options.cause });
    this.location = location;
    this.cleanupError = options.cleanupError;
  }
}

/** Reason used when an object is discarded through `abort()` without a reason of its own. */
export class StorageAbortedError extends PbsExportError {
  constructor(location: string, options?: { cause?: unknown }) {
    super('storage_aborted', `${location}: write aborted`, options);
  }
}

/** The message of an unknown thrown value, for composing error messages. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Whether `error` is a Node.js system error with one of `codes` (`ENOENT`, `EPERM`, …). Matched by
 * its `code` string because Node throws system errors as plain `Error`s: they have no class of
 * their own to match with `instanceof`, and `code` is their documented, stable identity.
 */
export function isSystemError(error: unknown, ...codes: string[]): boolean {
  const code = error instanceof Error ? (error as NodeJS.ErrnoException).code : undefined;
  return code !== undefined && codes.includes(code);
}

/**
 * The local S3 layer refused a conditional write (`lib/jobs/local-s3.ts`), as S3 answers 412
 * `PreconditionFailed` (the job store and the slots take either as a lost race).
 */
export class LocalPreconditionFailedError extends PbsExportError {
  constructor(key: string, condition: string, options?: { cause?: unknown }) {
    super('precondition_failed', `${key}: ${condition} does not hold`, options);
  }
}
