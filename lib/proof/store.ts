/**
 * Read access to published sets, in a folder or under an S3 prefix: what `verify` and the
 * chain's search for the previous set read. Keys are relative to the sink's root
 * (`reports/demo/2025/<runId>/manifest.json`), as in the manifests.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';

/** A stored file's size and SHA-256 as read now. */
export interface ReadDigest {
  bytes: number;
  sha256: string;
}

/** Published sets to read. */
export interface SetStore {
  /** Human-readable root, e.g. `/home/me/out` or `s3://bucket/prefix`. */
  readonly root: string;
  /** The file's bytes, or null when there is none. */
  read(key: string): Promise<Buffer | null>;
  /** Size and SHA-256 of the file, read as a stream (a snapshot may be large), or null. */
  digest(key: string): Promise<ReadDigest | null>;
  /** Every key under `prefix` (a folder ending in `/`, or '' for all), sorted. */
  list(prefix: string): Promise<string[]>;
  /** The file's full location, for messages. */
  location(key: string): string;
}

/** The sets under the folder `root`. */
export function folderSetStore(root: string): SetStore {
  const path = (key: string) => join(root, ...key.split('/'));
  return {
    root,
    location: path,
    async read(key) {
      return orNull(() => readFile(path(key)));
    },
    async digest(key) {
      return orNull(() => digestOf(createReadStream(path(key))));
    },
    async list(prefix) {
      const keys: string[] = [];
      await collect(root, '', keys);
      return keys.filter((key) => key.startsWith(prefix)).sort();
    },
  };
}

/** The sets under `s3://bucket/prefix`. */
export function s3SetStore(client: S3Client, bucket: string, prefix = ''): SetStore {
  const base = prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`;
  const full = (key: string) => `${base}${key}`;
  const body = async (key: string): Promise<Readable | null> => {
    const { GetObjectCommand } = await loadS3Sdk();
    try {
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: full(key) }));
      return answer.Body as Readable;
    } catch (error) {
      if ((error as { name?: string }).name === 'NoSuchKey') return null;
      throw error;
    }
  };
  return {
    root: `s3://${bucket}/${base}`,
    location: (key) => `s3://${bucket}/${full(key)}`,
    async read(key) {
      const stream = await body(key);
      if (stream === null) return null;
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    },
    async digest(key) {
      const stream = await body(key);
      return stream === null ? null : digestOf(stream);
    },
    async list(under) {
      const { paginateListObjectsV2 } = await loadS3Sdk();
      const keys: string[] = [];
      for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: full(under) })) {
        for (const object of page.Contents ?? []) {
          if (object.Key !== undefined) keys.push(object.Key.slice(base.length));
        }
      }
      return keys.sort();
    },
  };
}

async function digestOf(stream: Readable): Promise<ReadDigest> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of stream) {
    bytes += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { bytes, sha256: hash.digest('hex') };
}

async function collect(dir: string, relative: string, keys: string[]): Promise<void> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const entry of entries) {
    // Staging folders and temporary files start with a dot: not published.
    if (entry.name.startsWith('.')) continue;
    const key = relative === '' ? entry.name : `${relative}/${entry.name}`;
    if (entry.isDirectory()) await collect(join(dir, entry.name), key, keys);
    else if (entry.isFile()) keys.push(key);
  }
}

async function orNull<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
