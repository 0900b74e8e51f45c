/**
 * Reads the one file of a ZIP archive, as the ECB publishes its CSV files (`eurofxref-hist.zip`
 * holds `eurofxref-hist.csv`). Stored and deflated entries only, checked against their CRC-32.
 *
 * Written here rather than taken from a ZIP library: the one archive read holds one file, node's
 * zlib inflates it and computes its CRC-32, and a corrupt download must fail on that check, which
 * fflate's `unzipSync` (the ZIP library already in the tree) does not make.
 */
import { crc32, inflateRawSync } from 'node:zlib';

const END_OF_DIRECTORY = 0x06054b50;
const DIRECTORY_ENTRY = 0x02014b50;
const LOCAL_HEADER = 0x04034b50;

/** Whether `bytes` start like a ZIP archive. */
export function isZip(bytes: Uint8Array): boolean {
  return (
    bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && bytes[2] === 0x03 && bytes[3] === 0x04
  );
}

/** The name and content of the single file in a ZIP archive. Throws an `Error` saying what is wrong. */
export function unzipSingle(bytes: Uint8Array): { name: string; content: Buffer } {
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
  const nameLength = zip.readUInt16LE(at + 28);
  const local = zip.readUInt32LE(at + 42);
  const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
  if (local + 30 > zip.length || zip.readUInt32LE(local) !== LOCAL_HEADER)
    throw new Error(`the entry ${name} is damaged`);
  const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
  const data = zip.subarray(start, start + compressedSize);
  let content: Buffer;
  if (method === 0) content = Buffer.from(data);
  else if (method === 8) content = inflateRawSync(data);
  else
    throw new Error(
      `the entry ${name} uses compression method ${method} (only stored and deflated are read)`,
    );
  if (crc32(content) !== crc) throw new Error(`the entry ${name} fails its CRC-32 check`);
  return { name, content };
}

function findEndOfDirectory(zip: Buffer): number {
  // The record is 22 bytes plus a comment of at most 65 535 bytes, at the very end.
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (zip.readUInt32LE(at) === END_OF_DIRECTORY) return at;
  }
  throw new Error('it is not a complete ZIP archive');
}
