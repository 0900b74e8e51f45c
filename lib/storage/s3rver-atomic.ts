/**
 * Makes s3rver's object writes atomic, as S3's are. s3rver 3.7.1 writes an object's bytes straight
 * to its final file, and for a body given whole it answers before the bytes reach the disk, so a
 * read right after a write (or during a slow one, or after a client killed mid-upload) can see an
 * empty or cut object: `Unexpected end of JSON input` from a job record under load. Used by the
 * local stack (`npm run serve`) and the tests, which stand s3rver in for S3.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type S3rver from 's3rver';

/** The part of s3rver's filesystem store that an object write uses. */
interface StoredObject {
  bucket: string;
  key: string;
  metadata: unknown;
  content: Buffer | Readable;
}

interface FilesystemStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
}

/**
 * Replaces the store's object write of `server` with one that writes the bytes to a temporary file
 * and renames it into place once they are all on disk, so a reader sees the old object or the new
 * one, never a part of one. An upload that breaks off leaves no object.
 */
export function makeObjectWritesAtomic(server: S3rver): void {
  const store = (server as unknown as { store: FilesystemStore }).store;
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const partial = `${objectPath}.${randomBytes(6).toString('hex')}.partial`;
    const md5 = createHash('md5');
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        md5.update(chunk);
        size += chunk.length;
        callback(null, chunk);
      },
    });
    const source = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    try {
      await pipeline(source, count, createWriteStream(partial));
      const digest = md5.digest('hex');
      await rename(partial, objectPath);
      await store.putMetadata(object.bucket, object.key, object.metadata, digest);
      return { size, md5: digest };
    } catch (error) {
      await rm(partial, { force: true });
      throw error;
    }
  };
}
