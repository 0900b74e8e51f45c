/** Small JSON-object helpers over S3 with the error kinds the job store needs. */
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';

/** A JSON object read from S3 with the ETag to make the next write conditional on. */
export interface VersionedJson<T> {
  value: T;
  etag: string;
}

interface SdkErrorShape {
  name?: string;
  Code?: string;
  $metadata?: { httpStatusCode?: number };
}

function shape(error: unknown): SdkErrorShape {
  return typeof error === 'object' && error !== null ? (error as SdkErrorShape) : {};
}

/** S3 refused a conditional write (`If-None-Match` or `If-Match` did not hold): 412. */
export function isPreconditionFailed(error: unknown): boolean {
  const e = shape(error);
  return e.name === 'PreconditionFailed' || e.$metadata?.httpStatusCode === 412;
}

/** Another conditional write to the same key was in flight (409): worth retrying. */
export function isConditionalConflict(error: unknown): boolean {
  const e = shape(error);
  return e.name === 'ConditionalRequestConflict' || e.$metadata?.httpStatusCode === 409;
}

/** The object does not exist (404 NoSuchKey / NotFound). */
export function isNotFound(error: unknown): boolean {
  const e = shape(error);
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
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
