/** Small JSON-object helpers over S3 with the error kinds the job store needs. */
import {
  GetObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  type S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { LocalPreconditionFailedError } from './errors.ts';

/** A JSON object read from S3 with the ETag to make the next write conditional on. */
export interface VersionedJson<T> {
  value: T;
  etag: string;
}

/**
 * The HTTP status of an error S3 answered. The SDK has classes for some of S3's errors
 * (`NoSuchKey`, `NotFound`) and throws any other as its base `S3ServiceException`, told apart only
 * by `name` and status: the status is what S3 documents for the conditional-write refusals (412
 * `PreconditionFailed`, 409 `ConditionalRequestConflict`), so those are matched by it, never by name.
 */
function s3Status(error: unknown): number | undefined {
  return error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined;
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
  return error instanceof NoSuchKey || error instanceof NotFound || s3Status(error) === 404;
}

/** Reads and parses a JSON object; `null` when it does not exist. */
export async function getJson<T>(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<VersionedJson<T> | null> {
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
