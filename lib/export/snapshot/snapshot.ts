import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable, TransformOptions, Writable } from 'node:stream';
import { createGunzip, createGzip, type ZlibOptions } from 'node:zlib';
import { parseJsonValue, stringifyJson } from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTimelineItem, RawTransaction, TransactionFieldMap } from '../../pbs/index.ts';
import { appendLine, mostLineBytes } from './line-chunk.ts';

/** Format marker of the first line of every snapshot. */
export const SNAPSHOT_FORMAT = 'pbs-export/snapshot@1';

/** First line of a snapshot: what was asked and of whom, so the reports can be rebuilt. */
export interface SnapshotHeader {
  kind: 'header';
  format: typeof SNAPSHOT_FORMAT;
  /** The validated export request, as JSON. */
  request: unknown;
  apiBase: string;
  /** The data came from the simulator: demo data, not a real portfolio. Absent for a real service. */
  demo?: boolean;
  createdAt: string;
  /** Field map the transactions were read with, so a render elsewhere reads them the same way. */
  fields: TransactionFieldMap;
  /** Plan as fetched: windows and shards with their row counts. */
  windows: { index: number; label: string; start: string; end: string }[];
  shards: {
    id: string;
    window: number;
    protocol: string | null;
    rows: number;
    totalReported: number | null;
    /** How the listing was shown complete (`total` or `second-listing`); absent in older snapshots. */
    completeness?: 'total' | 'second-listing';
    /**
     * For `second-listing`: the page size of each listing that showed it complete, the accepted one
     * last (each page boundary of the first fell inside a page of a later one); absent when the
     * source's page size could not be chosen.
     */
    pageSizes?: number[];
    /** With `pageSizes`, when one of those listings was newest first: each one's order. */
    orders?: ('asc' | 'desc')[];
    /** Listings made, the confirming one included. */
    listings?: number;
    /** For the rest of a window searched by protocol: transactions the unfiltered search listed. */
    listed?: number;
  }[];
}

/**
 * A record after the header: one transaction of a shard, or one timeline item. A snapshot may also
 * hold `{"kind":"conflicting-copy","id","shard","data"}` lines after a transaction: other copies of
 * its id that the service sent with different content, kept for the audit and never reported
 * ({@link readSnapshotRecords} skips them).
 */
export type SnapshotRecord =
  | { kind: 'transaction'; shard: string; data: RawTransaction }
  | { kind: 'change'; data: RawTimelineItem };

/** Raised when a snapshot file is not one this version can read. */
export class SnapshotError extends PbsExportError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('invalid_snapshot', message, options);
  }
}

/** Writes NDJSON records, gzip-compressed unless asked not to, honouring backpressure. */
export interface NdjsonWriter {
  write(record: unknown): Promise<void>;
  /**
   * Writes one record given as its JSON text (one line, no newline), as it is: `prefix`, `json`
   * (text, or its UTF-8 bytes) and `suffix`, encoded straight into the chunk being gathered (no
   * string joined for it). Returns a promise only when the caller must wait (a chunk went to the
   * compressor or file and it is full): a writer of millions of lines awaits only then.
   */
  writeJson(json: string | Uint8Array, prefix?: string, suffix?: string): Promise<void> | undefined;
  /**
   * Ends the gzip member written so far and starts another (nothing for plain NDJSON): the
   * snapshot holds one member per window, so a window's member compressed in another process
   * (a Lambda fetch-shard task) is the very bytes this writer writes for it.
   */
  member(): Promise<void>;
  /** Flushes and closes the file. */
  close(): Promise<void>;
  /** Closes the file without waiting for a clean end (after a failure). */
  destroy(): void;
}

/** Bytes of NDJSON text gathered before one write to the compressor. */
const WRITE_CHUNK = 256 * 1024;
/**
 * Chunks of text the compressor may hold before the writer waits. Several, so the next ones are
 * being gathered while the thread pool compresses the earlier: with room for one only, the two
 * take turns instead of working at once.
 */
const COMPRESSOR_CHUNKS = 8;
/** Bytes zlib produces per step (its default, 16 KiB, means a thread-pool round trip per 16 KiB). */
const ZLIB_CHUNK = 128 * 1024;
/**
 * Deflate level of the snapshot. On the transactions' JSON, level 3 takes about half the CPU of
 * the default 6 for a file some 13 % larger (100k transactions: 0.52 s vs 0.97 s, 12.8 MB vs
 * 11.3 MB with `gzip -3`/`-6`); the thread pool shares the machine's cores with the export.
 */
const SNAPSHOT_LEVEL = 3;

/**
 * Opens `filePath` for gzip NDJSON output (created or truncated). Lines are gathered into large
 * chunks before compression: one small write per record costs a thread-pool round trip each.
 */
export function createNdjsonWriter(
  filePath: string,
  options: {
    level?: number;
    /**
     * Chunks the compressor may hold before `write` waits. Default 8: gathering and compressing
     * overlap. One suits many writers at once (part files), whose waiting text is on the heap.
     */
    bufferedChunks?: number;
    /**
     * False writes plain NDJSON (no gzip): for local scratch files read back once on the same
     * machine, where compressing and inflating cost more CPU than the larger file costs to write.
     * {@link readNdjsonLines} reads either. Default true.
     */
    compress?: boolean;
  } = {},
): NdjsonWriter {
  const highWaterMark = (options.bufferedChunks ?? COMPRESSOR_CHUNKS) * WRITE_CHUNK;
  const file = createWriteStream(filePath, options.compress === false ? { highWaterMark } : {});
  let failure: Error | undefined;
  const remember = (error: Error) => {
    failure ??= error;
  };
  file.on('error', remember);
  // zlib streams take the stream options too; Node's typings of createGzip omit them.
  const gzipOptions: ZlibOptions & TransformOptions = {
    level: options.level ?? SNAPSHOT_LEVEL,
    writableHighWaterMark: highWaterMark,
    // Output in large pieces: each piece is a round trip between the thread pool and this thread.
    chunkSize: ZLIB_CHUNK,
  };
  /** A gzip member into the file; the file is ended by `close`, not by the member. */
  const openMember = (): Writable => {
    const gzip = createGzip(gzipOptions);
    gzip.on('error', remember);
    gzip.pipe(file, { end: false });
    return gzip;
  };
  /** Where text goes: the compressor, or the file itself. */
  let head: Writable = options.compress === false ? file : openMember();
  /** Ends the member `head` and waits until its last bytes went to the file. */
  const endMember = async (gzip: Writable): Promise<void> => {
    const ended = once(gzip, 'end');
    gzip.end();
    await ended;
  };
  // Lines are encoded into one chunk of bytes as they come; a full chunk goes out whole.
  const chunks = createChunkPool(WRITE_CHUNK);
  let chunk = chunks.take();
  let used = 0;
  /** Sends the chunk gathered (if any); a promise when the stream asks the writer to wait. */
  const send = (): Promise<void> | undefined => {
    if (used === 0) return undefined;
    const sent = chunk;
    const full = sent.subarray(0, used);
    chunk = chunks.take();
    used = 0;
    // Once the stream is done with a chunk (written, or compressed) its memory is used again.
    const ready = head.write(full, (error) => {
      if (!error) chunks.giveBack(sent);
    });
    return ready ? undefined : once(head, 'drain').then(() => undefined);
  };
  return {
    async write(record) {
      // Records may hold number tokens kept as text (timeline items): written as they came.
      await this.writeJson(stringifyJson(record));
    },
    writeJson(json, prefix = '', suffix = '') {
      if (failure) return Promise.reject(failure);
      // A line that might not fit goes in a new chunk.
      const most = mostLineBytes(json, prefix, suffix);
      let wait: Promise<void> | undefined;
      if (used + most > chunk.length) {
        wait = send();
        if (most > chunk.length) {
          chunks.giveBack(chunk);
          chunk = Buffer.allocUnsafe(most);
        }
      }
      used = appendLine(chunk, used, json, prefix, suffix);
      return wait;
    },
    async member() {
      if (failure) throw failure;
      if (head === file) return;
      await send();
      await endMember(head);
      head = openMember();
    },
    async close() {
      if (failure) throw failure;
      await send();
      if (head !== file) {
        await endMember(head);
        file.end();
      } else head.end();
      await once(file, 'close');
      if (failure) throw failure;
    },
    destroy() {
      if (head !== file) head.destroy();
      file.destroy();
    },
  };
}

/**
 * One gzip member holding `text`, compressed as {@link createNdjsonWriter} compresses (same level
 * and chunk size, so the same bytes): a readable stream of the member.
 */
export function gzipMember(text: string): Readable {
  const gzip = createGzip({ level: SNAPSHOT_LEVEL, chunkSize: ZLIB_CHUNK });
  gzip.end(text);
  return gzip;
}

/**
 * Reads the lines of an NDJSON file one by one (JSON text without the newline): gzip-compressed
 * (told by its magic bytes), or plain as `createNdjsonWriter` writes with `compress: false`.
 *
 * Each line is decoded from the bytes on its own: a string of its own size, one byte per
 * character unless the line itself holds a character beyond Latin-1. Splitting a decoded chunk
 * instead gives lines that are slices of it: a line kept (the assembly holds a whole window's)
 * pins its whole chunk, stored two bytes per character as soon as any line of the chunk needs it.
 *
 * With `range`, only the bytes from `start` to `end` (inclusive, as `createReadStream` takes them)
 * are read: one gzip member of a file of several, read where it lies.
 */
export function readNdjsonLines(filePath: string, range?: ByteRange): AsyncGenerator<string> {
  return ndjsonLines(filePath, (chunk, start, end) => chunk.toString('utf8', start, end), range);
}

/** Bytes `start` to `end` of a file, both included. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The lines of an NDJSON file as {@link readNdjsonLines} reads them, but as their bytes: views of
 * the chunk read (not copies; a line kept long pins its chunk, so copy one kept apart from its
 * neighbours), for a reader that decodes only part of a line, or writes it on as it is.
 */
export function readNdjsonLineBytes(filePath: string): AsyncGenerator<Buffer> {
  return ndjsonLines(filePath, (chunk, start, end) => chunk.subarray(start, end));
}

/** The non-empty lines of an NDJSON file, each as `take` makes it of its chunk's bytes. */
async function* ndjsonLines<T>(
  filePath: string,
  take: (chunk: Buffer, start: number, end: number) => T,
  range?: ByteRange,
): AsyncGenerator<T> {
  const compressed = await isGzipFile(filePath, range?.start ?? 0);
  const raw = createReadStream(filePath, { highWaterMark: WRITE_CHUNK, ...range });
  const input = compressed ? raw.pipe(createGunzip({ chunkSize: ZLIB_CHUNK })) : raw;
  /** Pieces of a line that chunks ended in the middle of (joined once its end comes: linear however long). */
  let carry: Buffer[] = [];
  for await (const chunk of input as AsyncIterable<Buffer>) {
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    if (carry.length > 0 && end !== -1) {
      const line = Buffer.concat([...carry, chunk.subarray(0, end)]);
      carry = [];
      if (line.length > 0) yield take(line, 0, line.length);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    while (end !== -1) {
      if (end > start) yield take(chunk, start, end);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) carry.push(chunk.subarray(start));
  }
  if (carry.length > 0) {
    const line = Buffer.concat(carry);
    yield take(line, 0, line.length);
  }
}

const NEWLINE = 0x0a;

/** Chunks a writer keeps for reuse: as many as are usually in flight at once, and one being filled. */
const POOLED_CHUNKS = COMPRESSOR_CHUNKS + 1;

/**
 * The chunks of one writer, used again once the stream is done with them. Each new `Buffer` is
 * memory outside V8's heap that still counts towards its next full collection (a run writes
 * hundreds of MB through these writers): reused chunks do not, so the export collects less often.
 * Only chunks of `size` are kept (a larger one, made for one long line, is left to the collector).
 */
function createChunkPool(size: number): { take(): Buffer; giveBack(chunk: Buffer): void } {
  const free: Buffer[] = [];
  return {
    take: () => free.pop() ?? Buffer.allocUnsafe(size),
    giveBack(chunk) {
      if (chunk.length === size && free.length < POOLED_CHUNKS) free.push(chunk);
    },
  };
}

/** True when the file starts with gzip's magic bytes (an empty file is plain, and has no lines). */
async function isGzipFile(filePath: string, position = 0): Promise<boolean> {
  const handle = await open(filePath, 'r');
  try {
    const magic = Buffer.alloc(2);
    const { bytesRead } = await handle.read(magic, 0, 2, position);
    return bytesRead === 2 && magic[0] === 0x1f && magic[1] === 0x8b;
  } finally {
    await handle.close();
  }
}

/** Reads the records of a gzip NDJSON file one by one, in file order. */
export async function* readNdjson(filePath: string): AsyncGenerator<unknown> {
  let lineNumber = 0;
  for await (const line of readNdjsonLines(filePath)) {
    lineNumber += 1;
    try {
      yield parseJsonValue(line);
    } catch (error) {
      throw new SnapshotError(`${filePath}: line ${lineNumber} is not JSON`, { cause: error });
    }
  }
}

/** Reads a snapshot: its header first, then its transaction and change records. */
export async function readSnapshotHeader(filePath: string): Promise<SnapshotHeader> {
  for await (const record of readNdjson(filePath)) {
    return asHeader(record, filePath);
  }
  throw new SnapshotError(`${filePath}: empty snapshot`);
}

/** Iterates a snapshot's records after checking its header. */
export async function* readSnapshotRecords(filePath: string): AsyncGenerator<SnapshotRecord> {
  let first = true;
  for await (const record of readNdjson(filePath)) {
    if (first) {
      asHeader(record, filePath);
      first = false;
      continue;
    }
    const kind = (record as { kind?: unknown } | null)?.kind;
    if (kind === 'conflicting-copy') continue;
    if (kind !== 'transaction' && kind !== 'change') {
      throw new SnapshotError(`${filePath}: unknown record kind ${JSON.stringify(kind)}`);
    }
    yield record as SnapshotRecord;
  }
  if (first) throw new SnapshotError(`${filePath}: empty snapshot`);
}

function asHeader(record: unknown, filePath: string): SnapshotHeader {
  const header = record as Partial<SnapshotHeader> | null;
  if (header?.kind !== 'header' || header.format !== SNAPSHOT_FORMAT) {
    throw new SnapshotError(`${filePath}: not a ${SNAPSHOT_FORMAT} file (first line is not its header)`);
  }
  return header as SnapshotHeader;
}
