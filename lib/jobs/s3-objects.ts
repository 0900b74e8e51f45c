/** Small JSON-object helpers over S3 with the error kinds the job store needs. */
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { LocalPreconditionFailedError } from './errors.ts';

/** A JSON object read from S3 with the ETag to make the next write conditional on. */
export interface VersionedJson<T> {
  value: T;
  etag: string;
}

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

/** Reads and parses a JSON object; `null` when it does not exist. */
export async function getJson<T>(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<VersionedJson<T> | null> {
  const { GetObjectCommand } = await loadS3Sdk();
  try {
    const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const text = (await response.Body?.transformToString('utf8')) ?? '';
    return { value: JSON.parse(text) as T, etag: response.ETag ?? '' };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** Writes a JSON object, optionally only if absent (`ifNoneMatch`) or unchanged (`ifMatch`). */
export async function putJson(
  client: S3Client,
  bucket: string,
  key: string,
  value: unknown,
  condition: { ifNoneMatch?: '*'; ifMatch?: string } = {},
): Promise<string | undefined> {
  const { PutObjectCommand } = await loadS3Sdk();
  const response = await client.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: JSON.stringify(value),
      ContentType: 'application/json',
      ...(condition.ifNoneMatch !== undefined ? { IfNoneMatch: condition.ifNoneMatch } : {}),
      ...(condition.ifMatch !== undefined ? { IfMatch: condition.ifMatch } : {}),
    }),
  );
  return response.ETag;
}
