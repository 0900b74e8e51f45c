import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { crc32, createDeflateRaw } from 'node:zlib';
import { outputClosed } from './xlsx-pacing.ts';

/**
 * The workbook's zip, written into `out` entry after entry: each entry's bytes deflated (level 1)
 * on libuv's pool, its CRC-32 by `zlib.crc32` (Node ≥ 22.2), then a data descriptor; the central directory last.
 *
 * The bytes are archiver 5.3.2's for the same entries (`archiver('zip')`, each appended with a
 * name and date, as `xlsx-book.ts` used it: `xlsx-zip.test.ts` compares them), without its module
 * graph: archiver, zip-stream, compress-commons, readable-stream and their utilities took about
 * 8 MB of the worker thread's memory, loaded once per workbook thread (section of 2026-12-08 in
 * docs/developer/performance.md).
 */

/** Deflate level: archiver's zip default (compress-commons' `ZLIB_BEST_SPEED`). */
const LEVEL = 1;
const SIG_LOCAL = 0x04034b50;
const SIG_DESCRIPTOR = 0x08074b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_END = 0x06054b50;
const SIG_ZIP64_END = 0x06064b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const METHOD_STORED = 0;
const METHOD_DEFLATED = 8;
/** General purpose flags: sizes and CRC in a data descriptor after the data; names in UTF-8. */
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_UTF8 = 0x0800;
const VERSION_DESCRIPTOR = 20;
const VERSION_ZIP64 = 45;
/** Made by: Unix (3), version 4.5; the mode `-rw-r--r--` with the DOS archive bit. */
const MADE_BY = (3 << 8) | 45;
const FILE_ATTRIBUTES = 2175008800;
const MAGIC32 = 0xffffffff;
const MAGIC16 = 0xffff;

/** What an entry is made of: a text, or a stream of its bytes. */
export type ZipSource = string | Readable;

/** An entry written, as the central directory lists it. */
interface Written {
  name: Buffer;
  flags: number;
  method: number;
  time: number;
  crc: number;
  size: number;
  compressed: number;
  offset: number;
}

/**
 * A zip written into `out` as its entries are appended (in order, one at a time; a stream's entry
 * is read only once the entries before it are written) and ended by {@link finalize}. Waits for
 * `out` to drain; `failed` rejects with the first error of `out`, of a source or of deflate.
 */
export class ZipWriter {
  /** Rejects with the first failure (never resolves). */
  readonly failed: Promise<never>;
  private readonly queue: [ZipSource, string][] = [];
  private readonly written: Written[] = [];
  private readonly dosTime: number;
  private wake: (() => void) | undefined;
  private finishing = false;
  private offset = 0;
  private deflating: { writableLength: number; readableLength: number } | undefined;
  private readonly finished: Promise<void>;

  /** `date`: every entry's modification time. */
  constructor(
    private readonly out: Writable,
    date: Date,
  ) {
    this.dosTime = dosTime(date);
    this.finished = this.run();
    this.failed = this.finished.then(() => new Promise<never>(() => {}));
    this.failed.catch(() => {});
  }

  /**
   * Bytes waiting in the current entry's deflate stream, in and out, not yet written into `out`
   * (read as a stream's buffer by the pacer's statistics).
   */
  get readableLength(): number {
    const deflate = this.deflating;
    return deflate === undefined ? 0 : deflate.writableLength + deflate.readableLength;
  }

  /** Appends an entry named `name` (written once the entries before it are). */
  append(source: ZipSource, name: string): void {
    this.queue.push([source, name]);
    this.wake?.();
  }

  /** Writes the central directory after the last entry and ends `out`; resolves once that is done. */
  finalize(): Promise<void> {
    this.finishing = true;
    this.wake?.();
    return this.finished;
  }

  private async run(): Promise<void> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        await this.entry(next[0], next[1]);
      } else if (this.finishing) {
        break;
      } else {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
        });
        this.wake = undefined;
      }
    }
    await this.put(centralDirectory(this.written, this.offset));
    this.out.end();
  }

  /** One entry: its local header, its data deflated (stored if it is an empty text), its data descriptor. */
  private async entry(source: ZipSource, entryName: string): Promise<void> {
    const name = Buffer.from(entryName);
    const flags = FLAG_DESCRIPTOR | (name.length === entryName.length ? 0 : FLAG_UTF8);
    const method = source === '' ? METHOD_STORED : METHOD_DEFLATED;
    const offset = this.offset;
    const header = Buffer.alloc(30);
    header.writeUInt32LE(SIG_LOCAL, 0);
    header.writeUInt16LE(VERSION_DESCRIPTOR, 4);
    header.writeUInt16LE(flags, 6);
    header.writeUInt16LE(method, 8);
    header.writeUInt32LE(this.dosTime, 10);
    header.writeUInt16LE(name.length, 26);
    await this.put(Buffer.concat([header, name]));
    const data = method === METHOD_STORED ? { crc: 0, size: 0, compressed: 0 } : await this.deflate(source);
    const zip64 = data.size > MAGIC32 || data.compressed > MAGIC32;
    const descriptor = Buffer.alloc(zip64 ? 24 : 16);
    descriptor.writeUInt32LE(SIG_DESCRIPTOR, 0);
    descriptor.writeUInt32LE(data.crc, 4);
    if (zip64) {
      descriptor.writeBigUInt64LE(BigInt(data.compressed), 8);
      descriptor.writeBigUInt64LE(BigInt(data.size), 16);
    } else {
      descriptor.writeUInt32LE(data.compressed, 8);
      descriptor.writeUInt32LE(data.size, 12);
    }
    await this.put(descriptor);
    this.written.push({ name, flags, method, time: this.dosTime, offset, ...data });
  }

  /** Deflates `source` into `out`: its CRC, size and compressed size. */
  private async deflate(source: ZipSource): Promise<{ crc: number; size: number; compressed: number }> {
    const deflate = createDeflateRaw({ level: LEVEL });
    this.deflating = deflate;
    let compressed = 0;
    const sink = (async () => {
      for await (const chunk of deflate as AsyncIterable<Buffer>) {
        compressed += chunk.length;
        await this.put(chunk);
      }
    })();
    sink.catch(() => {});
    let crc = 0;
    let size = 0;
    const chunks: AsyncIterable<Uint8Array | string> | Buffer[] =
      typeof source === 'string' ? [Buffer.from(source)] : source;
    for await (const piece of chunks) {
      const chunk = typeof piece === 'string' ? Buffer.from(piece) : piece;
      crc = crc32(chunk, crc);
      size += chunk.length;
      if (!deflate.write(chunk)) await Promise.race([once(deflate, 'drain'), sink]);
    }
    deflate.end();
    await sink;
    this.deflating = undefined;
    return { crc, size, compressed };
  }

  /** Writes `bytes` into `out`, waiting for its drain when it asks to. */
  private async put(bytes: Buffer): Promise<void> {
    if (this.out.destroyed) throw this.out.errored ?? outputClosed();
    this.offset += bytes.length;
    if (!this.out.write(bytes)) await once(this.out, 'drain');
  }
}

/** The central directory and its end record (zip64's too when offsets, sizes or counts need it). */
function centralDirectory(entries: readonly Written[], start: number): Buffer {
  const parts = entries.map(centralHeader);
  const length = parts.reduce((sum, part) => sum + part.length, 0);
  const zip64 = entries.length > MAGIC16 || length > MAGIC32 || start > MAGIC32;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(SIG_END, 0);
  end.writeUInt16LE(zip64 ? MAGIC16 : entries.length, 8);
  end.writeUInt16LE(zip64 ? MAGIC16 : entries.length, 10);
  end.writeUInt32LE(zip64 ? MAGIC32 : length, 12);
  end.writeUInt32LE(zip64 ? MAGIC32 : start, 16);
  return Buffer.concat([...parts, ...(zip64 ? [zip64End(entries.length, length, start)] : []), end]);
}

/** An entry's central directory header; sizes and offset in a zip64 extra field past 4 GiB. */
function centralHeader(entry: Written): Buffer {
  const zip64 = entry.size > MAGIC32 || entry.compressed > MAGIC32 || entry.offset > MAGIC32;
  const extra = Buffer.alloc(zip64 ? 28 : 0);
  if (zip64) {
    extra.writeUInt16LE(1, 0);
    extra.writeUInt16LE(24, 2);
    extra.writeBigUInt64LE(BigInt(entry.size), 4);
    extra.writeBigUInt64LE(BigInt(entry.compressed), 12);
    extra.writeBigUInt64LE(BigInt(entry.offset), 20);
  }
  const header = Buffer.alloc(46);
  header.writeUInt32LE(SIG_CENTRAL, 0);
  header.writeUInt16LE(MADE_BY, 4);
  header.writeUInt16LE(zip64 ? VERSION_ZIP64 : VERSION_DESCRIPTOR, 6);
  header.writeUInt16LE(entry.flags, 8);
  header.writeUInt16LE(entry.method, 10);
  header.writeUInt32LE(entry.time, 12);
  header.writeUInt32LE(entry.crc, 16);
  header.writeUInt32LE(zip64 ? MAGIC32 : entry.compressed, 20);
  header.writeUInt32LE(zip64 ? MAGIC32 : entry.size, 24);
  header.writeUInt16LE(entry.name.length, 28);
  header.writeUInt16LE(extra.length, 30);
  header.writeUInt32LE(FILE_ATTRIBUTES, 38);
  header.writeUInt32LE(Math.min(entry.offset, MAGIC32), 42);
  return Buffer.concat([header, entry.name, extra]);
}

/** Zip64's end of central directory record and its locator. */
function zip64End(count: number, length: number, start: number): Buffer {
  const record = Buffer.alloc(56 + 20);
  record.writeUInt32LE(SIG_ZIP64_END, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(VERSION_ZIP64, 12);
  record.writeUInt16LE(VERSION_ZIP64, 14);
  record.writeBigUInt64LE(BigInt(count), 24);
  record.writeBigUInt64LE(BigInt(count), 32);
  record.writeBigUInt64LE(BigInt(length), 40);
  record.writeBigUInt64LE(BigInt(start), 48);
  record.writeUInt32LE(SIG_ZIP64_LOCATOR, 56);
  record.writeBigUInt64LE(BigInt(start + length), 64);
  record.writeUInt32LE(1, 72);
  return record;
}

/** `date` as MS-DOS date and time (UTC; seconds halved), clamped to 1980–2043 as archiver does. */
export function dosTime(date: Date): number {
  const year = date.getUTCFullYear();
  if (year < 1980) return 2162688;
  if (year >= 2044) return 2141175677;
  return (
    (((year - 1980) << 25) |
      ((date.getUTCMonth() + 1) << 21) |
      (date.getUTCDate() << 16) |
      (date.getUTCHours() << 11) |
      (date.getUTCMinutes() << 5) |
      (date.getUTCSeconds() / 2)) >>>
    0
  );
}
