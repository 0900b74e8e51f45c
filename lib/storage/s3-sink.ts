import type { S3Client } from '@aws-sdk/client-s3';
import type { Upload } from '@aws-sdk/lib-storage';
import { loadS3Sdk, loadS3Upload } from '../aws-sdk.ts';
import { ValidationError } from '../errors.ts';
import { messageOf, StorageAbortedError, StorageError } from './errors.ts';
import { HashingStream } from './hashing.ts';
import { assertListPrefix, assertObjectName } from './names.ts';
import { currentProcessOwner, ownerTagOf, type ProcessOwner } from './owner.ts';
import { COMMIT_MARKER, writeCommitMarker } from './s3-commit-marker.ts';
import {
  copyManifestLast,
  copyObject,
  deleteKey,
  deleteKeys,
  STAGING_SEGMENT,
  type StagedObject,
} from './s3-copy.ts';
import { type RepairResult, repairDeadSets } from './s3-repair.ts';
import { type SentObject, verifyCopyAnswer, verifyStoredObject } from './s3-verify.ts';
import type { Once, Sink, SinkObject, SinkSet, StoredObject } from './sink.ts';
import { once, trackPending } from './sink.ts';

export { STAGING_SEGMENT } from './s3-copy.ts';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;
/** S3's smallest part size (except for the last part). */
export const MIN_PART_SIZE = 5 * MIB;
/** The largest object one CopyObject can copy, and the largest part of a multipart copy. */
export const MAX_COPY_SIZE = 5 * GIB;

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
  /**
   * Objects of a set larger than this are put in place by a multipart copy (UploadPartCopy)
   * instead of one CopyObject; at most {@link MAX_COPY_SIZE} (the default), S3's CopyObject limit.
   */
  copyThreshold?: number;
  /** Part size of a multipart copy: 5 MiB to 5 GiB, default 512 MiB. */
  copyPartSize?: number;
  /**
   * The process committing sets, recorded in each set's commit marker, and judge of whether
   * another marker's owner is alive (default: this process).
   */
  owner?: ProcessOwner;
  /**
   * When true, the first `openSet` first completes the sets that dead processes of this host left
   * half copied into place (see `repairDeadSets`). For the CLI; a Lambda leaves it off: its host
   * name and pids say nothing about another invocation, and its state machine retries a finish.
   */
  repairDeadSets?: boolean;
  /** Told what the repair did (sets completed, failures); a failed repair never fails the run. */
  onRepair?: (result: RepairResult) => void;
}

type Settled = { ok: true } | { ok: false; error: unknown };

/**
 * A sink writing objects to `s3://bucket/prefix/…` through multipart uploads that start as soon
 * as bytes arrive. Nothing is visible under a key until `done()` has completed the upload; a
 * failed or aborted upload is aborted on S3 and its body destroyed, so writers never block.
 */
export function createS3Sink(options: S3SinkOptions): Sink {
  const { client, bucket, partSize = MIN_PART_SIZE, queueSize = 2, onCleanupError } = options;
  const { copyThreshold = MAX_COPY_SIZE, copyPartSize = 512 * MIB } = options;
  if (!Number.isInteger(partSize) || partSize < MIN_PART_SIZE) {
    throw new ValidationError('partSize', `must be an integer of at least ${MIN_PART_SIZE} bytes`);
  }
  if (!Number.isInteger(copyThreshold) || copyThreshold < 0 || copyThreshold > MAX_COPY_SIZE) {
    throw new ValidationError('copyThreshold', `must be an integer from 0 to ${MAX_COPY_SIZE} bytes`);
  }
  if (!Number.isInteger(copyPartSize) || copyPartSize < MIN_PART_SIZE || copyPartSize > MAX_COPY_SIZE) {
    throw new ValidationError(
      'copyPartSize',
      `must be an integer from ${MIN_PART_SIZE} to ${MAX_COPY_SIZE} bytes`,
    );
  }
  if (!Number.isInteger(queueSize) || queueSize < 1) {
    throw new ValidationError('queueSize', 'must be a positive integer');
  }
  const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  assertListPrefix(prefix);
  const keyPrefix = prefix === '' ? '' : `${prefix}/`;
  const root = `s3://${bucket}${prefix === '' ? '' : `/${prefix}`}`;
  const owner = options.owner ?? currentProcessOwner();
  let repaired: Promise<void> | undefined;
  /** Runs the repair once per sink, before its first set; its failures go to `onRepair`, never thrown. */
  const repairOnce = (): Promise<void> => {
    if (options.repairDeadSets !== true) return Promise.resolve();
    repaired ??= repairDeadSets({ client, bucket, copyThreshold, copyPartSize, keyPrefix, owner }).then(
      (result) => options.onRepair?.(result),
    );
    return repaired;
  };

  return {
    root,
    create(name: string, contentType: string): SinkObject {
      assertUnstaged(name, 'name');
      const key = `${keyPrefix}${name}`;
      return openS3Object({
        client,
        bucket,
        key,
        described: { name, key, location: `s3://${bucket}/${key}` },
        contentType,
        partSize,
        queueSize,
        onCleanupError,
      });
    },
    async openSet(setPrefix: string): Promise<SinkSet> {
      assertUnstaged(setPrefix, 'prefix');
      await repairOnce();
      return openS3Set({
        client,
        bucket,
        prefix: setPrefix,
        stagingPrefix: `${keyPrefix}${STAGING_SEGMENT}/${setPrefix}/`,
        finalPrefix: `${keyPrefix}${setPrefix}/`,
        partSize,
        queueSize,
        copyThreshold,
        copyPartSize,
        onCleanupError,
        owner,
      });
    },
    async list(listPrefix: string): Promise<string[]> {
      assertListPrefix(listPrefix);
      const names: string[] = [];
      const { paginateListObjectsV2 } = await loadS3Sdk();
      try {
        const pages = paginateListObjectsV2(
          { client },
          { Bucket: bucket, Prefix: `${keyPrefix}${listPrefix}` },
        );
        for await (const page of pages) {
          for (const object of page.Contents ?? []) {
            const name = object.Key?.slice(keyPrefix.length);
            // Staged objects are not in place yet: they are not listed.
            if (name !== undefined && !name.startsWith(`${STAGING_SEGMENT}/`)) names.push(name);
          }
        }
      } catch (error) {
        throw new StorageError(`${root}/${listPrefix}`, `could not list: ${messageOf(error)}`, {
          cause: error,
        });
      }
      return names;
    },
    async remove(name: string): Promise<void> {
      assertUnstaged(name, 'name');
      const key = `${keyPrefix}${name}`;
      const { DeleteObjectCommand } = await loadS3Sdk();
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

/**
 * Checks an object name or set prefix as `assertObjectName` does, and refuses the staging area.
 *
 * @throws ValidationError naming `field` and the reason.
 */
function assertUnstaged(name: string, field: 'name' | 'prefix'): void {
  assertObjectName(name);
  if (name.split('/')[0] === STAGING_SEGMENT) {
    throw new ValidationError(
      field,
      `${JSON.stringify(name)} is inside the staging area ${STAGING_SEGMENT}/`,
    );
  }
}

interface SetSettings {
  client: S3Client;
  bucket: string;
  prefix: string;
  /** Full key prefixes, ending with `/`. */
  stagingPrefix: string;
  finalPrefix: string;
  partSize: number;
  queueSize: number;
  copyThreshold: number;
  copyPartSize: number;
  onCleanupError: ((error: StorageError) => void) | undefined;
  owner: ProcessOwner;
}

/**
 * A set staged under `stagingPrefix` and copied to `finalPrefix` by `commit()`. Once every object
 * is staged, the commit records the set as complete (its commit marker, naming this process and
 * every key) and then copies: the other objects at once, then the one stored last (the manifest),
 * so a reader never finds a manifest before every file it lists; then the marker and the staged
 * copies are deleted. S3 has no multi-object rename: a process killed while copying (one round of
 * server-side copies) can leave some files at their final names without the manifest. The marker
 * lets the next run of this host complete such a set (`repairDeadSets`); a set killed before its
 * marker has nothing at a final name and stays until the bucket's lifecycle rule expires it.
 * Each object is checked against what the store kept when it is stored (`verifyStoredObject`),
 * and each copy against what the store answers for it before the next one (the manifest) is made.
 */
function openS3Set(settings: SetSettings): SinkSet {
  const { client, bucket, prefix, stagingPrefix, finalPrefix, owner } = settings;
  const stored: StagedObject[] = [];
  /** MD5 of what was sent for each staged key, to check the copies put in place. */
  const sentMd5 = new Map<string, string>();
  const pending = new Set<Promise<unknown>>();
  /** Final keys a commit has started to write, in order. */
  const placed: string[] = [];
  const copying = new Set<Promise<unknown>>();
  let state: 'open' | 'committing' | 'committed' | 'discarded' = 'open';
  let marked = false;
  const markerKey = `${stagingPrefix}${COMMIT_MARKER}`;
  const where = `s3://${bucket}/${finalPrefix}`;

  const place = async (object: StagedObject, signal: AbortSignal | undefined): Promise<void> => {
    signal?.throwIfAborted();
    placed.push(object.finalKey);
    const copy = copyObject(settings, object).then((answer) =>
      // A copy is made by the store alone: what it says of it is checked before the manifest follows.
      verifyCopyAnswer(bucket, object.finalKey, answer, sentMd5.get(object.stagingKey)),
    );
    copying.add(copy);
    try {
      await copy;
    } finally {
      copying.delete(copy);
    }
  };

  return {
    prefix,
    create(name: string, contentType: string): SinkObject {
      assertObjectName(name);
      if (name === COMMIT_MARKER) {
        throw new ValidationError('name', `${JSON.stringify(name)} is the name of a set's commit marker`);
      }
      if (state !== 'open') throw new StorageError(where, `the set is already ${state}`);
      const stagingKey = `${stagingPrefix}${name}`;
      const finalKey = `${finalPrefix}${name}`;
      const object = openS3Object({
        ...settings,
        key: stagingKey,
        described: { name, key: finalKey, location: `s3://${bucket}/${finalKey}` },
        contentType,
        onVerified: (sent) => sentMd5.set(stagingKey, sent.md5),
      });
      return trackPending(object, pending, (result) => {
        if (!stored.some((entry) => entry.stagingKey === stagingKey)) {
          stored.push({ stagingKey, finalKey, bytes: result.bytes, contentType });
        }
      });
    },
    async verify() {
      // Each object was checked against what the store reports when its done() resolved.
      if (state !== 'open') throw new StorageError(where, `the set is already ${state}`);
      if (pending.size > 0) throw new StorageError(where, `${pending.size} file(s) still being written`);
    },
    async commit(options = {}) {
      const { signal } = options;
      signal?.throwIfAborted();
      if (state !== 'open') throw new StorageError(where, `the set is already ${state}`);
      if (pending.size > 0) throw new StorageError(where, `${pending.size} file(s) still being written`);
      state = 'committing';
      if (stored.length > 0) {
        marked = true;
        await writeCommitMarker(
          client,
          bucket,
          { stagingPrefix, finalPrefix },
          { version: 1, owner: ownerTagOf(owner), objects: stored },
        );
      }
      await copyManifestLast(stored, (object) => place(object, signal));
      state = 'committed';
      // The set is in place: the marker goes first (nothing left to repair), then the staged
      // copies. A key left by a failed delete only costs storage until the lifecycle rule expires
      // it, so it is reported, not thrown.
      const errors = [
        ...(marked ? [await deleteKey(client, bucket, markerKey)] : []),
        ...(await deleteKeys(
          client,
          bucket,
          stored.map((object) => object.stagingKey),
        )),
      ];
      for (const error of errors) if (error !== undefined) settings.onCleanupError?.(error);
    },
    async discard() {
      if (state === 'committed') return;
      state = 'discarded';
      await Promise.allSettled([...pending, ...copying]);
      const errors: StorageError[] = [];
      // Final names first, the one placed last first: a manifest never outlives a file it lists.
      // The marker stays until they are gone, so a process killed meanwhile leaves a set the next
      // run completes rather than files without a manifest; then it goes before the staged keys,
      // so it never names a staged key that is gone.
      for (const key of [...placed].reverse()) {
        const error = await deleteKey(client, bucket, key);
        if (error !== undefined) errors.push(error);
      }
      if (marked) {
        const error = await deleteKey(client, bucket, markerKey);
        if (error !== undefined) errors.push(error);
      }
      errors.push(
        ...(await deleteKeys(
          client,
          bucket,
          stored.map((object) => object.stagingKey),
        )),
      );
      if (errors[0] !== undefined) throw errors[0];
    },
  };
}

interface ObjectSettings {
  client: S3Client;
  bucket: string;
  key: string;
  /** What `done()` reports besides bytes, sha256 and content type. */
  described: Pick<StoredObject, 'name' | 'key' | 'location'>;
  contentType: string;
  partSize: number;
  queueSize: number;
  onCleanupError: ((error: StorageError) => void) | undefined;
  /** Told what was sent once the store was found to hold exactly that. */
  onVerified?: (sent: SentObject) => void;
}

/**
 * One object uploaded as its bytes arrive; `done()` resolves once the upload completed and the
 * store was found to hold exactly the bytes sent (`verifyStoredObject`), else the object is
 * deleted and `done()` rejects.
 */
function openS3Object(settings: ObjectSettings): SinkObject {
  const { client, bucket, key, described, contentType, partSize, queueSize, onCleanupError } = settings;
  const location = `s3://${bucket}/${key}`;
  // The parts' MD5s too: S3's ETag of the multipart upload then proves what it kept (s3-verify.ts).
  const stream = new HashingStream({ md5: true, partSize });
  // Failures are reported by done(); without a listener, destroying the stream would crash a
  // writer that does not listen for 'error' itself.
  stream.on('error', () => {});

  // leavePartsOnError: the sink aborts by itself, so a refused AbortMultipartUpload cannot
  // replace the original error as it would inside Upload. `Upload` loads at its first use
  // (lib/aws-sdk.ts); what the caller writes meanwhile waits in the body.
  const upload: Promise<Upload> = loadS3Upload().then(
    ({ Upload }) =>
      new Upload({
        client,
        params: { Bucket: bucket, Key: key, Body: stream, ContentType: contentType },
        partSize,
        queueSize,
        leavePartsOnError: true,
      }),
  );
  // Started now so parts flow while the caller writes. Destroying the body on failure unblocks
  // writers waiting for 'drain'.
  const settled: Promise<Settled> = upload
    .then((started) => started.done())
    .then(
      () => ({ ok: true }),
      (error: unknown) => {
        stream.destroy(error instanceof Error ? error : undefined);
        return { ok: false, error };
      },
    );

  /** Removes what the upload left: its parts if it failed, the object if it completed anyway. */
  const discard = once(async (result: Settled): Promise<unknown> => {
    try {
      const { AbortMultipartUploadCommand, DeleteObjectCommand } = await loadS3Sdk();
      // An upload that never started (its package failed to load) left nothing to abort.
      const uploadId = (await upload.catch(() => undefined))?.uploadId;
      if (result.ok) {
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
      } else if (uploadId !== undefined) {
        await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
      }
      return undefined;
    } catch (error) {
      return error;
    }
  });

  let committed = false;

  const done: Once<[], StoredObject> = once(async () => {
    if (abort.started() !== undefined) throw new StorageError(location, 'upload was aborted');
    if (!stream.writableEnded && !stream.destroyed) stream.end();
    const result = await settled;
    const aborting = abort.started();
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
    const multipartEtag = stream.multipartEtag;
    const sent = {
      bytes: stream.bytes,
      sha256: stream.sha256,
      md5: stream.md5,
      ...(multipartEtag !== undefined ? { multipartEtag } : {}),
    };
    try {
      await verifyStoredObject(client, bucket, key, sent);
    } catch (error) {
      // The object is not what was sent: it goes, and the run fails naming what differs.
      const cleanupError = await discard(result);
      if (cleanupError === undefined) throw error;
      throw new StorageError(location, `not kept as sent, and not deleted: ${messageOf(error)}`, {
        cause: error,
        cleanupError,
      });
    }
    settings.onVerified?.(sent);
    committed = true;
    return { ...described, bytes: sent.bytes, sha256: sent.sha256, contentType };
  });
  const abort = once(async (reason?: unknown) => {
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
  });

  return { stream, done: () => done(), abort };
}
