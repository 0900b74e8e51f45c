/**
 * The fetched parts as they travel between the export's tasks: a fetch-shard task stores its part
 * file under `work/{jobId}/parts/{index}.ndjson.gz` with what the finish needs besides the bytes in
 * the object's metadata; the finish downloads them, in plan order, while it assembles.
 */

import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import { loadS3Sdk } from '../aws-sdk.ts';
import { type FetchedShard, type FetchRun, readPartLineBytes } from '../export/index.ts';
import { isNotFound, KEYS } from '../jobs/index.ts';
import { type Settleable, settleable } from '../settleable.ts';
import { WorkFileError } from './errors.ts';

/** A part as the finish has it: the fetched shard, and whether its answers were demo data. */
export type DownloadedPart = FetchedShard & { demo: boolean };

/**
 * Stores a fetched shard's part file as one PutObject of its bytes: a part is one shard's gzipped
 * NDJSON (a few MB, far under PutObject's 5 GB), so a multipart upload (`Upload` of lib-storage)
 * would only add its loading. The bytes are read into memory rather than streamed from the file:
 * the SDK does not retry a request whose body is a stream ("non-retryable streaming request"),
 * so a streamed part would turn one transient 5xx or SlowDown into a failed task and a shard
 * fetched again.
 */
export async function uploadPart(
  s3: S3Client,
  bucket: string,
  key: string,
  fetched: FetchedShard,
  demo: boolean,
): Promise<void> {
  const { PutObjectCommand } = await loadS3Sdk();
  const bytes = await partBytes(fetched);
  await s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: bytes,
      ContentType: 'application/gzip',
      // What finish needs besides the bytes travels with them, not through the Map output.
      Metadata: partMetadata(fetched, demo),
    }),
  );
}

/**
 * The gzip bytes of a fetched part: its file when it was written compressed, else its plain lines
 * (held in memory or spilled to its file, `readPartLineBytes`) compressed here.
 */
async function partBytes(fetched: FetchedShard): Promise<Buffer> {
  if (fetched.partStore === undefined && fetched.partFile.endsWith('.gz')) return readFile(fetched.partFile);
  const lines: Buffer[] = [];
  for await (const line of readPartLineBytes(fetched.partFile, fetched.partStore)) lines.push(line, NEWLINE);
  return gzipAsync(Buffer.concat(lines));
}

const NEWLINE = Buffer.from('\n');
const gzipBytes = promisify(gzip);
/** Fast compression, as a part compressed while fetched (`compressParts`): it is read once. */
const gzipAsync = (bytes: Buffer) => gzipBytes(bytes, { level: 1 });

/** The finish's downloads, as the assembly takes a fetch under way. */
export interface PartsRun extends FetchRun {
  shard(index: number): Promise<DownloadedPart>;
  done: Promise<DownloadedPart[]>;
}

/** Settings of {@link downloadParts}. */
export interface PartDownloads {
  s3: S3Client;
  bucket: string;
  jobId: string;
  /** The plan's shards, in plan order. */
  shards: readonly FetchedShard['shard'][];
  /** Where the parts are written (the finish's scratch folder). */
  dir: string;
  /** Downloads at once. */
  concurrency: number;
  /**
   * Shard `index`'s part made otherwise (of its window's piece, when its task stored a piece and no
   * part), or undefined when it is downloaded.
   */
  madeOtherwise?: (index: number, shard: FetchedShard['shard']) => Promise<DownloadedPart | undefined>;
}

/**
 * Starts downloading every part, in plan order, `concurrency` at a time, and returns at once: the
 * assembly (`assembleExport` takes a {@link FetchRun}) starts on the first window's parts while
 * the later ones download, instead of after the last one. `stop()` starts no further download;
 * `done` then rejects once the running ones settled.
 */
export function downloadParts(settings: PartDownloads): PartsRun {
  const { shards, concurrency } = settings;
  const settlers = shards.map(() => settleable<DownloadedPart>());
  let next = 0;
  let failure: unknown;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && next < shards.length) {
      const index = next;
      next += 1;
      const settler = settlers[index] as Settleable<DownloadedPart>;
      try {
        const shard = shards[index] as FetchedShard['shard'];
        const made = await settings.madeOtherwise?.(index, shard);
        settler.resolve(made ?? (await downloadPart(settings, index, shard)));
      } catch (error) {
        // The first failure stops the rest: the assembly cannot go past a missing part.
        failure ??= error;
        stopped = true;
        settler.reject(error);
      }
    }
  };
  const workers = Array.from({ length: Math.min(concurrency, shards.length) }, worker);
  const done = Promise.all(workers).then(async () => {
    // Parts never started (stopped, or after a failure) reject with the run's error.
    const reason =
      failure ?? new WorkFileError(KEYS.part(settings.jobId, next), 'the downloads were stopped');
    for (const settler of settlers.slice(next)) settler.reject(reason);
    if (failure !== undefined || next < shards.length) throw reason;
    return Promise.all(settlers.map((settler) => settler.promise));
  });
  // Never an unhandled rejection when unused (as a FetchRun's promises; each part's too: `settleable`).
  done.catch(() => {});
  return {
    shard(index) {
      const settler = settlers[index];
      if (settler === undefined) {
        return Promise.reject(new WorkFileError(KEYS.plan(settings.jobId), `has no shard ${index}`));
      }
      return settler.promise;
    },
    done,
    stop() {
      stopped = true;
    },
  };
}

async function downloadPart(
  { s3, bucket, jobId, dir }: PartDownloads,
  index: number,
  shard: FetchedShard['shard'],
): Promise<DownloadedPart> {
  const key = KEYS.part(jobId, index);
  const partFile = join(dir, `part-${index}.ndjson.gz`);
  const { GetObjectCommand } = await loadS3Sdk();
  try {
    const response = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    await pipeline(response.Body as Readable, createWriteStream(partFile));
    return fetchedFromPart(response.Metadata ?? {}, shard, partFile);
  } catch (error) {
    if (isNotFound(error))
      throw new WorkFileError(key, 'part missing: the shard was not fetched', { cause: error });
    throw error;
  }
}

/** The S3 metadata of a fetched part: what finish needs besides its bytes ({@link fetchedFromPart}). */
function partMetadata(fetched: FetchedShard, demo: boolean): Record<string, string> {
  return {
    ...(demo ? { 'demo-data': 'true' } : {}),
    rows: String(fetched.rows),
    'total-reported': fetched.totalReported === null ? '' : String(fetched.totalReported),
    attempts: String(fetched.attempts),
    completeness: fetched.completeness,
    ...(fetched.pageSizes !== undefined ? { 'page-sizes': fetched.pageSizes.join(',') } : {}),
    ...(fetched.orders !== undefined ? { orders: fetched.orders.join(',') } : {}),
    ...(fetched.listed !== undefined ? { listed: String(fetched.listed) } : {}),
    // The finish streams a window fetched in order instead of holding it (see `FetchedShard.inOrder`).
    ...(fetched.inOrder === true ? { 'in-order': 'true' } : {}),
    // The finish reads a part for its neighbour window's rows only when its span reaches there.
    ...(fetched.span !== undefined ? { span: `${fetched.span.first}/${fetched.span.last}` } : {}),
  };
}

/** The fetched shard a part's S3 metadata ({@link partMetadata}) describes, its bytes in `partFile`. */
function fetchedFromPart(
  metadata: Record<string, string>,
  shard: FetchedShard['shard'],
  partFile: string,
): DownloadedPart {
  const reported = metadata['total-reported'];
  return {
    shard,
    partFile,
    rows: Number(metadata.rows ?? 0),
    totalReported: reported === undefined || reported === '' ? null : Number(reported),
    attempts: Number(metadata.attempts ?? 1),
    completeness: metadata.completeness === 'second-listing' ? 'second-listing' : 'total',
    ...pageSizesOf(metadata['page-sizes']),
    ...ordersOf(metadata.orders),
    ...(metadata.listed !== undefined ? { listed: Number(metadata.listed) } : {}),
    ...(metadata['in-order'] === 'true' ? { inOrder: true } : {}),
    demo: metadata['demo-data'] === 'true',
    ...spanOf(metadata.span),
  };
}

/** The `page-sizes` metadata (`500,499`) as {@link FetchedShard.pageSizes}; nothing when unreadable. */
function pageSizesOf(text: string | undefined): Pick<FetchedShard, 'pageSizes'> {
  const sizes = (text ?? '').split(',').map(Number);
  return text !== undefined && text !== '' && sizes.every((size) => Number.isInteger(size) && size > 0)
    ? { pageSizes: sizes }
    : {};
}

/** The `orders` metadata (`asc,desc`) as {@link FetchedShard.orders}; nothing when unreadable. */
function ordersOf(text: string | undefined): Pick<FetchedShard, 'orders'> {
  const orders = (text ?? '').split(',');
  return text !== undefined && text !== '' && orders.every((order) => order === 'asc' || order === 'desc')
    ? { orders: orders as ('asc' | 'desc')[] }
    : {};
}

/** The `span` metadata (`first/last` epoch ms) as {@link FetchedShard.span}; nothing when unreadable. */
function spanOf(text: string | undefined): Pick<FetchedShard, 'span'> {
  const [first, last] = (text ?? '').split('/').map(Number);
  return Number.isFinite(first) && Number.isFinite(last) && text !== undefined && text !== ''
    ? { span: { first: first as number, last: last as number } }
    : {};
}
