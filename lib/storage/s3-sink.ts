import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { ValidationError } from '../errors.ts';
import { messageOf, StorageAbortedError, StorageError } from './errors.ts';
import { HashingStream } from './hashing.ts';
import { assertListPrefix, assertObjectName } from './names.ts';
import type { Sink, SinkObject, StoredObject } from './sink.ts';

const MIB = 1024 * 1024;
/** S3's smallest part size (except for the last part). */
export const MIN_PART_SIZE = 5 * MIB;

/** Options for {@link createS3Sink}. */
export interface S3SinkOptions {
  client: S3Client;
  bucket: string;
  /** Key prefix for every object, e.g. `exports`; leading and trailing slashes are ignored. */
  prefix?: string;
  /** Bytes per multipart part; at least 5 MiB (the default). Memory use is about partSize × (queueSize + 1). */
  partSize?: number;
  /** Parts uploaded concurrently; default 2. */
  queueSize?: number;
  /**
   * Told when discarding an upload (AbortMultipartUpload, or deleting an object that completed while
   * being aborted) fails after `abort()`; `abort()` itself still resolves so that cleanup never
   * hides the failure that caused it. A failed `done()` carries the same error as `cleanupError`.
   */
  onCleanupError?: (error: StorageError) => void;
}

type Settled = { ok: true } | { ok: false; error: unknown };

/**
 * A sink writing objects to `s3://bucket/prefix/…` through multipart uploads that start as soon
 * as bytes arrive. Nothing is visible under a key until `done()` has completed the upload; a
 * failed or aborted upload is aborted on S3 and its body destroyed, so writers never block.
 */
export function createS3Sink(options: S3SinkOptions): Sink {
  const { client, bucket, partSize = MIN_PART_SIZE, queueSize = 2, onCleanupError } = options;
  if (!Number.isInteger(partSize) || partSize < MIN_PART_SIZE) {
    throw new ValidationError('partSize', `must be an integer of at least ${MIN_PART_SIZE} bytes`);
  }
  if (!Number.isInteger(queueSize) || queueSize < 1) {
    throw new ValidationError('queueSize', 'must be a positive integer');
  }
  const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  assertListPrefix(prefix);
  const keyPrefix = prefix === '' ? '' : `${prefix}/`;
  const root = `s3://${bucket}${prefix === '' ? '' : `/${prefix}`}`;

  return {
    root,
    create(name: string, contentType: string): SinkObject {
      assertObjectName(name);
      const key = `${keyPrefix}${name}`;
      return openS3Object({ client, bucket, key, name, contentType, partSize, queueSize, onCleanupError });
    },
    async list(listPrefix: string): Promise<string[]> {
      assertListPrefix(listPrefix);
      const names: string[] = [];
      let continuationToken: string | undefined;
      try {
        do {
          const page = await client.send(
            new ListObjectsV2Command({
              Bucket: bucket,
              Prefix: `${keyPrefix}${listPrefix}`,
              ContinuationToken: continuationToken,
            }),
          );
          for (const object of page.Contents ?? []) {
            if (object.Key !== undefined) names.push(object.Key.slice(keyPrefix.length));
          }
          continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
        } while (continuationToken !== undefined);
      } catch (error) {
        throw new StorageError(`${root}/${listPrefix}`, `could not list: ${messageOf(error)}`, {
          cause: error,
        });
      }
      return names;
    },
    async remove(name: string): Promise<void> {
      assertObjectName(name);
      const key = `${keyPrefix}${name}`;
      try {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } catch (error) {
        throw new StorageError(`s3://${bucket}/${key}`, `could not remove: ${messageOf(error)}`, {
          cause: error,
        });
      }
    },
  };
}

interface ObjectSettings {
  client: S3Client;
  bucket: string;
  key: string;
  name: string;
  contentType: string;
  partSize: number;
  queueSize: number;
  onCleanupError: ((error: StorageError) => void) | undefined;
}

function openS3Object(settings: ObjectSettings): SinkObject {
  const { client, bucket, key, name, contentType, partSize, queueSize, onCleanupError } = settings;
  const location = `s3://${bucket}/${key}`;
  const stream = new HashingStream();
  // Failures are reported by done(); without a listener, destroying the stream would crash a
  // writer that does not listen for 'error' itself.
  stream.on('error', () => {});

  // leavePartsOnError: the sink aborts by itself, so a refused AbortMultipartUpload cannot
  // replace the original error as it would inside Upload.
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: stream, ContentType: contentType },
    partSize,
    queueSize,
    leavePartsOnError: true,
  });
  // Started now so parts flow while the caller writes. Destroying the body on failure unblocks
  // writers waiting for 'drain'.
  const settled: Promise<Settled> = upload.done().then(
    () => ({ ok: true }),
    (error: unknown) => {
      stream.destroy(error instanceof Error ? error : undefined);
      return { ok: false, error };
    },
  );

  let cleanup: Promise<unknown> | undefined;
  /** Removes what the upload left: its parts if it failed, the object if it completed anyway. */
  const discard = (result: Settled): Promise<unknown> => {
    cleanup ??= (async () => {
      try {
        if (result.ok) {
          await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
        } else if (upload.uploadId !== undefined) {
          await client.send(
            new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: upload.uploadId }),
          );
        }
        return undefined;
      } catch (error) {
        return error;
      }
    })();
    return cleanup;
  };

  let outcome: Promise<StoredObject> | undefined;
  let aborting: Promise<void> | undefined;
  let committed = false;

  const done = async (): Promise<StoredObject> => {
    if (aborting !== undefined) throw new StorageError(location, 'upload was aborted');
    if (!stream.writableEnded && !stream.destroyed) stream.end();
    const result = await settled;
    if (aborting !== undefined) {
      await aborting;
      throw new StorageError(location, 'upload was aborted');
    }
    if (!result.ok) {
      const cleanupError = await discard(result);
      throw new StorageError(location, `upload failed: ${messageOf(result.error)}`, {
        cause: result.error,
        cleanupError,
      });
    }
    committed = true;
    return { name, location, key, bytes: stream.bytes, sha256: stream.sha256, contentType };
  };

  return {
    stream,
    done() {
      outcome ??= done();
      return outcome;
    },
    abort(reason?: unknown) {
      aborting ??= (async () => {
        if (committed) return;
        // Not upload.abort(): that rejects done() at once, with parts still in flight and no
        // AbortMultipartUpload sent while the body is open. Destroying the body makes the upload
        // stop reading, so `settled` resolves only after in-flight parts settle and uploadId is final.
        stream.destroy(new StorageAbortedError(location, { cause: reason }));
        const cleanupError = await discard(await settled);
        if (cleanupError !== undefined) {
          onCleanupError?.(
            new StorageError(location, `could not discard the upload: ${messageOf(cleanupError)}`, {
              cause: cleanupError,
            }),
          );
        }
      })();
      return aborting;
    },
  };
}
