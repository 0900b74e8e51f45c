/**
 * Server-side copies that put a staged S3 set in place, shared by a set's `commit()` and by the
 * repair of a set whose process was killed while copying (`s3-repair.ts`).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { loadS3Sdk } from '../aws-sdk.ts';
import { messageOf, StorageError } from './errors.ts';

/**
 * First segment (under the sink's prefix) of the keys a set is staged under:
 * `<prefix>/_staging/<set prefix>/<name>`. One fixed prefix, so one lifecycle rule expires what a
 * killed run staged (a rule cannot match a segment in the middle of a key); the underscore keeps
 * it apart from the `reports/`, `work/`, `jobs/` and `locks/` prefixes, and no request's profile
 * or report name can start with it.
 */
export const STAGING_SEGMENT = '_staging';

/** How objects are copied: one CopyObject up to `copyThreshold` bytes, else a multipart copy. */
export interface CopySettings {
  client: S3Client;
  bucket: string;
  copyThreshold: number;
  copyPartSize: number;
}

/** An object of a set, stored under its staging key, and where it goes. */
export interface StagedObject {
  stagingKey: string;
  finalKey: string;
  bytes: number;
  contentType: string;
}

/**
 * Server-side copies at once while a set is put in place. Small: the copies are of a run's few
 * files, and the window they open (files at final keys, no manifest yet) is shortest when they
 * all start at once; a large bound would only queue requests on the server.
 */
export const COPY_CONCURRENCY = 4;

/**
 * Runs `copy` for every object, all but the last at once (at most {@link COPY_CONCURRENCY}), and
 * the last (the manifest) only once every other copy succeeded: a reader never finds a manifest
 * before a file it lists. Rejects with the first failure, after every started copy has settled,
 * without copying the last.
 */
export async function copyManifestLast<T>(
  objects: readonly T[],
  copy: (object: T) => Promise<unknown>,
): Promise<void> {
  const limit = pLimit(COPY_CONCURRENCY);
  const copies = await Promise.allSettled(objects.slice(0, -1).map((object) => limit(() => copy(object))));
  const failed = copies.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failed !== undefined) throw failed.reason;
  const last = objects.at(-1);
  if (last !== undefined) await copy(last);
}

/** Deletes one key; returns the failure instead of throwing it. */
export async function deleteKey(
  client: S3Client,
  bucket: string,
  key: string,
): Promise<StorageError | undefined> {
  const { DeleteObjectCommand } = await loadS3Sdk();
  try {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    return undefined;
  } catch (error) {
    return new StorageError(`s3://${bucket}/${key}`, `could not remove: ${messageOf(error)}`, {
      cause: error,
    });
  }
}

/** Deletes keys, {@link COPY_CONCURRENCY} at once; returns the failures. */
export async function deleteKeys(
  client: S3Client,
  bucket: string,
  keys: readonly string[],
): Promise<StorageError[]> {
  const limit = pLimit(COPY_CONCURRENCY);
  const results = await Promise.all(keys.map((key) => limit(() => deleteKey(client, bucket, key))));
  return results.filter((error): error is StorageError => error !== undefined);
}

/** `x-amz-copy-source`: the bucket and key, each segment URL-encoded. */
function copySource(bucket: string, key: string): string {
  return `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
}

/** What the store answers about a copy it made: its ETag and encryption, when it says. */
export interface CopyAnswer {
  ETag?: string | undefined;
  ServerSideEncryption?: string | undefined;
  SSECustomerAlgorithm?: string | undefined;
}

/**
 * Copies a staged object to its final key on the server: one CopyObject up to `copyThreshold`,
 * else a multipart copy in `copyPartSize` ranges (UploadPartCopy), aborted if a part fails.
 * Resolves with what the store answered about the copy.
 *
 * @throws StorageError naming the final key.
 */
export async function copyObject(settings: CopySettings, object: StagedObject): Promise<CopyAnswer> {
  const { client, bucket, copyThreshold, copyPartSize } = settings;
  const location = `s3://${bucket}/${object.finalKey}`;
  const source = copySource(bucket, object.stagingKey);
  const {
    AbortMultipartUploadCommand,
    CompleteMultipartUploadCommand,
    CopyObjectCommand,
    CreateMultipartUploadCommand,
    UploadPartCopyCommand,
  } = await loadS3Sdk();
  if (object.bytes <= copyThreshold) {
    try {
      const copied = await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key: object.finalKey,
          CopySource: source,
          MetadataDirective: 'COPY',
        }),
      );
      return { ...copied, ETag: copied.CopyObjectResult?.ETag };
    } catch (error) {
      throw new StorageError(location, `could not copy into place: ${messageOf(error)}`, { cause: error });
    }
  }
  let uploadId: string | undefined;
  try {
    const created = await client.send(
      new CreateMultipartUploadCommand({
        Bucket: bucket,
        Key: object.finalKey,
        ContentType: object.contentType,
      }),
    );
    uploadId = created.UploadId;
    const parts: { ETag: string; PartNumber: number }[] = [];
    for (let start = 0, part = 1; start < object.bytes; start += copyPartSize, part += 1) {
      const end = Math.min(start + copyPartSize, object.bytes) - 1;
      const copied = await client.send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: object.finalKey,
          UploadId: uploadId,
          PartNumber: part,
          CopySource: source,
          CopySourceRange: `bytes=${start}-${end}`,
        }),
      );
      parts.push({ ETag: copied.CopyPartResult?.ETag ?? '', PartNumber: part });
    }
    return await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: object.finalKey,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
  } catch (error) {
    let cleanupError: unknown;
    if (uploadId !== undefined) {
      await client
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: object.finalKey, UploadId: uploadId }))
        .catch((abortError: unknown) => {
          cleanupError = abortError;
        });
    }
    throw new StorageError(location, `could not copy into place (multipart): ${messageOf(error)}`, {
      cause: error,
      cleanupError,
    });
  }
}
