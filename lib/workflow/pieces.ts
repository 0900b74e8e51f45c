/**
 * The windows' pieces as they travel from the fetch-shard tasks to the finish (see
 * `window-piece.ts` and `join-pieces.ts` in `lib/export`): one object per shard,
 * `work/{jobId}/pieces/{index}`, its description's JSON line first, then its files' bytes. A
 * task stores one only when its window can be joined (and then no part); the finish joins them
 * when every shard did, else reads each piece's window back as its shard's part (`pieceAsPart`).
 */
import { createWriteStream } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { loadS3Sdk } from '../aws-sdk.ts';
import type { PieceDescription, StoredPiece } from '../export/index.ts';
import { KEYS } from '../jobs/index.ts';
import { WorkFileError } from './errors.ts';

/** Where the pieces of a job are. */
export interface PiecesAt {
  s3: S3Client;
  bucket: string;
  jobId: string;
}

/** Stores the piece of shard `shard`: its description, then the bytes of `files` in order (one PutObject). */
export async function uploadPiece(
  at: PiecesAt,
  shard: number,
  piece: { description: PieceDescription; files: readonly string[] },
): Promise<void> {
  const { PutObjectCommand } = await loadS3Sdk();
  const head = Buffer.from(`${JSON.stringify(piece.description)}\n`);
  // In memory, as a part is (see `uploadPart`): the SDK retries a request whose body is bytes.
  const body = Buffer.concat([head, ...(await Promise.all(piece.files.map((file) => readFile(file))))]);
  await at.s3.send(
    new PutObjectCommand({
      Bucket: at.bucket,
      Key: KEYS.piece(at.jobId, shard),
      Body: body,
      ContentType: 'application/octet-stream',
      Metadata: { 'description-bytes': String(head.length) },
    }),
  );
}

/** Removes the piece of shard `shard`, if any (an earlier attempt's, when this one made none). */
export async function deletePiece(at: PiecesAt, shard: number): Promise<void> {
  const { DeleteObjectCommand } = await loadS3Sdk();
  await at.s3.send(new DeleteObjectCommand({ Bucket: at.bucket, Key: KEYS.piece(at.jobId, shard) }));
}

/** The shards whose tasks stored a piece. */
export async function listPieces(at: PiecesAt): Promise<Set<number>> {
  const { paginateListObjectsV2 } = await loadS3Sdk();
  const prefix = KEYS.piecesPrefix(at.jobId);
  const shards = new Set<number>();
  for await (const page of paginateListObjectsV2({ client: at.s3 }, { Bucket: at.bucket, Prefix: prefix })) {
    for (const object of page.Contents ?? []) {
      const shard = Number(object.Key?.slice(prefix.length));
      if (Number.isInteger(shard) && shard >= 0) shards.add(shard);
    }
  }
  return shards;
}

/** Downloads the pieces of shards `0 … count-1` into `dir`, `concurrency` at a time, in shard order. */
export async function downloadPieces(
  at: PiecesAt,
  count: number,
  dir: string,
  concurrency: number,
): Promise<StoredPiece[]> {
  const limit = pLimit(concurrency);
  return Promise.all(Array.from({ length: count }, (_, shard) => limit(() => downloadPiece(at, shard, dir))));
}

/** Downloads the piece of shard `shard` into `dir`. */
export async function downloadPiece(at: PiecesAt, shard: number, dir: string): Promise<StoredPiece> {
  const { GetObjectCommand } = await loadS3Sdk();
  const key = KEYS.piece(at.jobId, shard);
  const file = join(dir, `piece-${shard}`);
  const response = await at.s3.send(new GetObjectCommand({ Bucket: at.bucket, Key: key }));
  await pipeline(response.Body as Readable, createWriteStream(file));
  const offset = Number(response.Metadata?.['description-bytes']);
  if (!Number.isInteger(offset) || offset <= 0) throw new WorkFileError(key, 'has no description length');
  return { description: await descriptionOf(file, offset, key), file, offset };
}

async function descriptionOf(file: string, bytes: number, key: string): Promise<PieceDescription> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(bytes);
    await handle.read(head, 0, bytes, 0);
    return JSON.parse(head.toString('utf8')) as PieceDescription;
  } catch (error) {
    throw new WorkFileError(key, 'has no readable description', { cause: error });
  } finally {
    await handle.close();
  }
}
