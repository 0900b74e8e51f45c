/**
 * What an S3 error means, told from its shape (never by loading the SDK): not found, a refused
 * conditional write, a write racing another. S3 and the local layers (`lib/jobs/local-s3.ts`)
 * answer alike.
 */
import { LocalPreconditionFailedError } from './errors.ts';

/** The parts of an error the SDK threw for a service's answer that tell it apart. */
interface ServiceError {
  name: string;
  $metadata: { httpStatusCode?: number };
}

/**
 * An error the SDK threw for a service's answer, recognised by its shape: `$fault` (`client` or
 * `server`) and `$metadata`, which is what the SDK's own `instanceof` checks first (smithy's
 * `ServiceException.isInstance`). Not `instanceof S3ServiceException`: that would load the SDK
 * into every process that tells errors apart, also those that never talk to S3 (lib/aws-sdk.ts).
 */
function isServiceError(error: unknown): error is ServiceError {
  if (typeof error !== 'object' || error === null) return false;
  const { $fault, $metadata } = error as { $fault?: unknown; $metadata?: unknown };
  return ($fault === 'client' || $fault === 'server') && typeof $metadata === 'object' && $metadata !== null;
}

/**
 * The HTTP status of an error S3 answered. The SDK has classes for some of S3's errors
 * (`NoSuchKey`, `NotFound`) and throws any other as its base `S3ServiceException`, told apart only
 * by `name` and status: the status is what S3 documents for the conditional-write refusals (412
 * `PreconditionFailed`, 409 `ConditionalRequestConflict`), so those are matched by it, never by name.
 */
function s3Status(error: unknown): number | undefined {
  return isServiceError(error) ? error.$metadata.httpStatusCode : undefined;
}

/** S3 (or the local layer, see `local-s3.ts`) refused a conditional write (`If-None-Match` or `If-Match` did not hold): 412. */
export function isPreconditionFailed(error: unknown): boolean {
  return error instanceof LocalPreconditionFailedError || s3Status(error) === 412;
}

/** Another conditional write to the same key was in flight (409): worth retrying. */
export function isConditionalConflict(error: unknown): boolean {
  return s3Status(error) === 409;
}

/** A conditional write lost its race (412 or 409): read again and decide again. */
export function isLostRace(error: unknown): boolean {
  return isPreconditionFailed(error) || isConditionalConflict(error);
}

/** The object does not exist (`NoSuchKey` from GET, `NotFound` from HEAD, or any 404). */
export function isNotFound(error: unknown): boolean {
  if (!isServiceError(error)) return false;
  return error.name === 'NoSuchKey' || error.name === 'NotFound' || s3Status(error) === 404;
}
