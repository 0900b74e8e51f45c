/**
 * Where close records are kept and closed sets are read: the folder or bucket the sets are in.
 * Records are created, never overwritten (`wx` in a folder, `If-None-Match: *` in S3) and never
 * deleted by the project.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { isNotFound } from '../jobs/index.ts';
import { CloseDataError } from './errors.ts';
import { CLOSES_PREFIX, type CloseRecord, closeKey, closeRecordSchema } from './records.ts';

/** The close records and the sets of one folder or bucket. */
export interface CloseStore {
  /** `/home/me/out` or `s3://bucket/prefix`. */
  readonly root: string;
  /** Every close record, in no particular order. */
  records(): Promise<CloseRecord[]>;
  /** Stores a new record; refuses to replace one (a record is never rewritten). */
  append(record: CloseRecord): Promise<void>;
  /** A stored file's bytes (`reports/…/manifest.json`), or null when it does not exist. */
  read(key: string): Promise<Buffer | null>;
  /** The file's full location, for messages. */
  location(key: string): string;
}

function parseRecord(text: string, location: string): CloseRecord {
  try {
    return closeRecordSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new CloseDataError(location, 'is not a close record this version can read', { cause: error });
  }
}

/** The close store of a local folder (`--out DIR`). */
export function createLocalCloseStore(root: string): CloseStore {
  const path = (key: string) => join(root, ...key.split('/'));
  return {
    root,
    location: path,
    async records() {
      const found: CloseRecord[] = [];
      for (const file of await listFiles(path(CLOSES_PREFIX))) {
        if (file.endsWith('.json')) found.push(parseRecord(await readFile(file, 'utf8'), file));
      }
      return found;
    },
    async append(record) {
      const file = path(closeKey(record));
      await mkdir(dirname(file), { recursive: true });
      await writeFile(file, `${JSON.stringify(record, null, 2)}\n`, { flag: 'wx' });
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
      const { PutObjectCommand } = await loadS3Sdk();
      await client.send(
        new PutObjectCommand({
          Bucket: bucket,
          Key: full(closeKey(record)),
          Body: `${JSON.stringify(record, null, 2)}\n`,
          ContentType: 'application/json',
          IfNoneMatch: '*',
        }),
      );
    },
  };
}
