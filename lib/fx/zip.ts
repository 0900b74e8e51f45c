/**
 * Reads the one file of a ZIP archive, as the ECB publishes its CSV files (`eurofxref-hist.zip`
 * holds `eurofxref-hist.csv`). Stored and deflated entries only, checked against their CRC-32.
 *
 * Written here rather than taken from a ZIP library: the one archive read holds one file, node's
 * zlib inflates it and computes its CRC-32, and a corrupt download must fail on that check, which
 * fflate's `unzipSync` (the ZIP library already in the tree) does not make.
 *
 * A ZIP can inflate to a thousand times its size (a 1 MiB file to 1 GiB: a "zip bomb"), so the
 * entry is inflated with a limit: refused at once when its directory says it is larger, and
 * inflated chunk by chunk, stopped as soon as its output passes the limit when the directory lies.
 * The archive holds one entry, so that limit is also the limit of the archive's total.
 */
import { crc32, inflateRawSync } from 'node:zlib';

/**
 * The most a rates file may hold, in bytes, inflated (32 MiB): the published files are a few MB at
 * most (the ECB's whole history), and parsing takes many times a file's size in memory.
 */
export const MAX_RATES_FILE_BYTES = 32 * 1024 * 1024;

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** Whether `bytes` start like a ZIP archive. */
export function isZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
  );
}

/** `bytes` in words: `1 GiB`, `32 MiB`, `1.5 KiB`, `700 bytes`. */
export function byteSize(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${Number((bytes / 1024 ** 3).toFixed(1))} GiB`;
  if (bytes >= 1024 * 1024) return `${Number((bytes / (1024 * 1024)).toFixed(1))} MiB`;
  if (bytes >= 1024) return `${Number((bytes / 1024).toFixed(1))} KiB`;
  return `${bytes} bytes`;
}

/**
 * The name and content of the single file in a ZIP archive, its content at most `maxBytes`
 * (default {@link MAX_RATES_FILE_BYTES}) inflated. Throws an `Error` saying what is wrong.
 */
export function unzipSingle(
  bytes: Uint8Array,
  maxBytes = MAX_RATES_FILE_BYTES,
): { name: string; content: Buffer } {
  const zip = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const end = findEndOfDirectory(zip);
  const entries = zip.readUInt16LE(end + 10);
  if (entries !== 1) throw new Error(`the archive holds ${entries} files, not one`);
  const at = zip.readUInt32LE(end + 16);
  if (at + 46 > zip.length || zip.readUInt32LE(at) !== DIRECTORY_ENTRY)
    throw new Error('its central directory is damaged');
  const method = zip.readUInt16LE(at + 10);
  const crc = zip.readUInt32LE(at + 16);
  const compressedSize = zip.readUInt32LE(at + 20);
  const size = zip.readUInt32LE(at + 24);
  const nameLength = zip.readUInt16LE(at + 28);
  const local = zip.readUInt32LE(at + 42);
  const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
  if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL_HEADER)
    throw new Error(`the entry ${name} is damaged`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + compressedSize);
  // The directory's size first: an honest bomb is refused before anything is inflated.
  if (size > maxBytes) throw tooLarge(name, maxBytes, size);
  let content: Buffer;
  if (method === 0) content = Buffer.from(data);
  else if (method === 8) content = inflateLimited(name, data, maxBytes);
  else
    throw new Error(
      `the entry ${name} uses compression method ${method} (only stored and deflated are read)`,
    );
  if (content.length !== size)
    throw new Error(`the entry ${name} holds ${content.length} bytes, not the ${size} its directory says`);
  if (crc32(content) !== crc) throw new Error(`the entry ${name} fails its CRC-32 check`);
  return { name, content };
}

/**
 * Inflates `data`, stopping once the output passes `maxBytes`: zlib inflates chunk by chunk and
 * gives up past `maxOutputLength`, so no more than that (and one chunk) is ever held.
 */
function inflateLimited(name: string, data: Buffer, maxBytes: number): Buffer {
  try {
    return inflateRawSync(data, { maxOutputLength: maxBytes, chunkSize: 64 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(name, maxBytes);
    throw new Error(`the entry ${name} cannot be inflated (${(error as Error).message})`, { cause: error });
  }
}

/** The refusal of an entry larger than `maxBytes` (`declared`: the size its directory says). */
function tooLarge(name: string, maxBytes: number, declared?: number): Error {
  const what =
    declared === undefined
      ? `inflates to more than ${byteSize(maxBytes)}`
      : `says it inflates to ${byteSize(declared)}, more than ${byteSize(maxBytes)}`;
  return new Error(`the entry ${name} ${what}, ${TOO_LARGE}`);
}

/** Why a file over the limit is refused (the end of the message). */
export const TOO_LARGE = 'the most a rates file may hold: no published rates file is that large';

function findEndOfDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65 535 bytes, at the very end.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new Error('it is not a complete ZIP archive');
}
