/** Small JSON-object helpers over S3 (the error kinds the job store needs are `lib/storage/s3-answers.ts`'s). */
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { isNotFound } from '../storage/index.ts';

/** A JSON object read from S3 with the ETag to make the next write conditional on. */
export interface VersionedJson<T> {
  value: T;
  etag: string;
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

export {
  isConditionalConflict,
  isLostRace,
  isNotFound,
  isPreconditionFailed,
} from '../storage/index.ts';
