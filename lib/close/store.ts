/**
 * Where close records are kept and closed sets are read: the folder or bucket the sets are in.
 * Records are created whole or not at all, never overwritten and never deleted by the project: in
 * a folder written under a temporary name, fsynced and linked to their final name only if it is
 * free (`createFileExclusive`), so a killed close leaves at most a temporary file the readers skip;
 * in S3 put with `If-None-Match: *` (an S3 object appears whole). The key is determined by the
 * period and the record's sequence number: of two writers that read the same history, one creates
 * the record and the other is told ({@link CloseRecordTakenError}). Restatement records
 * (restatement-records.ts) are created the same way ({@link CloseStore.createOnce}).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { isLostRace, isNotFound } from '../jobs/index.ts';
import { createFileExclusive, isAtomicTempName } from '../storage/index.ts';
import { CloseDataError, CloseRecordTakenError } from './errors.ts';
import { CLOSES_PREFIX, type CloseRecord, closeKey, closeRecordSchema } from './records.ts';

/** The close records and the sets of one folder or bucket. */
export interface CloseStore {
  /** `/home/me/out` or `s3://bucket/prefix`. */
  readonly root: string;
  /** Every close record, in no particular order. */
  records(): Promise<CloseRecord[]>;
  /**
   * Stores a new record at {@link closeKey}; refuses to replace one (a record is never rewritten)
   * with {@link CloseRecordTakenError}.
   */
  append(record: CloseRecord): Promise<void>;
  /**
   * Creates the record `key` with `text` only if no such key exists, whole or not at all (as
   * {@link append}): true when this call created it, false when it existed (another writer's).
   */
  createOnce(key: string, text: string): Promise<boolean>;
  /**
   * Deletes a restatement record its own check created for a set it then could not publish; no
   * error when it does not exist. Close records are never deleted.
   */
  removeRecord(key: string): Promise<void>;
  /** A stored file's bytes (`reports/…/manifest.json`), or null when it does not exist. */
  read(key: string): Promise<Buffer | null>;
  /** The file's full location, for messages. */
  location(key: string): string;
}

/** What to do about a record file that cannot be read: it stops every close, reopen and check. */
const UNREADABLE_ADVICE =
  'a close or reopen stopped while writing it (versions before records were written whole could leave such a file) did not complete: move the file out of closes/ and run that close or reopen again; a record that was whole: restore it from a backup';

function parseRecord(text: string, location: string): CloseRecord {
  if (text.trim() === '')
    throw new CloseDataError(location, `is empty, not a close record; ${UNREADABLE_ADVICE}`);
  try {
    return closeRecordSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new CloseDataError(location, `is not a close record this version can read; ${UNREADABLE_ADVICE}`, {
      cause: error,
    });
  }
}

/** The close store of a local folder (`--out DIR`). */
export function createLocalCloseStore(root: string): CloseStore {
  const path = (key: string) => join(root, ...key.split('/'));
  const createOnce = async (key: string, text: string): Promise<boolean> => {
    try {
      await createFileExclusive(path(key), text);
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  };
  return {
    root,
    location: path,
    createOnce,
    async removeRecord(key) {
      assertRestatementRecord(key);
      await rm(path(key), { force: true });
    },
    async records() {
      const found: CloseRecord[] = [];
      for (const file of await listFiles(path(CLOSES_PREFIX))) {
        // A temporary name is a record being written (or one a killed writer left): not a record.
        if (file.endsWith('.json') && !isAtomicTempName(basename(file)))
          found.push(parseRecord(await readFile(file, 'utf8'), file));
      }
      return found;
    },
    async append(record) {
      const key = closeKey(record);
      if (!(await createOnce(key, `${JSON.stringify(record, null, 2)}\n`)))
        throw new CloseRecordTakenError(path(key));
    },
    async read(key) {
      try {
        return await readFile(path(key));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },
  };
}

/** Only a restatement record may be removed: close records never are. */
function assertRestatementRecord(key: string): void {
  if (!/^restatements\/[^/]+\/[^/]+\/records\/[^/]+\/[^/]+\.json$/.test(key))
    throw new Error(`${key} is not a restatement record: close records are never removed`);
}

async function listFiles(dir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const files: string[] = [];
  for (const entry of entries) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await listFiles(full)));
    else if (entry.isFile()) files.push(full);
  }
  return files;
}

/** The close store of a bucket (optionally under a key prefix, as `--s3 s3://bucket/prefix`). */
export function createS3CloseStore(options: {
  client: S3Client;
  bucket: string;
  prefix?: string;
}): CloseStore {
  const { client, bucket } = options;
  const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
  const full = (key: string) => (prefix === '' ? key : `${prefix}/${key}`);
  const location = (key: string) => `s3://${bucket}/${full(key)}`;
  const createOnce = async (key: string, text: string): Promise<boolean> => {
    const { PutObjectCommand } = await loadS3Sdk();
    try {
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: full(key),
          Body: text,
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
      return true;
    } catch (error) {
      // 412: the key exists; 409: another conditional write of it was in flight.
      if (isLostRace(error)) return false;
      throw error;
    }
  };
  const read = async (key: string): Promise<Buffer | null> => {
    const { GetObjectCommand } = await loadS3Sdk();
    try {
      const response = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }));
      return Buffer.from((await response.Body?.transformToByteArray()) ?? new Uint8Array());
    } catch (error) {
      if (isNotFound(error)) return null;
      throw error;
    }
  };
  return {
    root: `s3://${bucket}${prefix === '' ? '' : `/${prefix}`}`,
    location,
    read,
    async records() {
      const found: CloseRecord[] = [];
      const { paginateListObjectsV2 } = await loadS3Sdk();
      const pages = paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: full(`${CLOSES_PREFIX}/`) });
      for await (const page of pages) {
        for (const object of page.Contents ?? []) {
          const key = object.Key ?? '';
          if (!key.endsWith('.json')) continue;
          const relative = prefix === '' ? key : key.slice(prefix.length + 1);
          const body = await read(relative);
          if (body !== null) found.push(parseRecord(body.toString('utf8'), location(relative)));
        }
      }
      return found;
    },
    async append(record) {
      const key = closeKey(record);
      if (!(await createOnce(key, `${JSON.stringify(record, null, 2)}\n`)))
        throw new CloseRecordTakenError(location(key));
    },
    createOnce,
    async removeRecord(key) {
      assertRestatementRecord(key);
      const { DeleteObjectCommand } = await loadS3Sdk();
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: full(key) }));
    },
  };
}
