/**
 * The secret scan of the security tests: every text a run produced (log lines, error messages, API
 * answers, job records, manifests, every object and file, gzip and XLSX entries expanded) searched
 * for every secret value, in the encodings it could take on the way (as is, URL-encoded with either
 * case of hex, JSON-escaped with `\/`, base64, base64url, hex of its bytes in either case, a hex
 * value uppercased).
 */
import { gunzipSync, inflateRawSync } from 'node:zlib';

/** One text to search, named for the report. */
export interface ScanSource {
  name: string;
  text: string;
}

/** One value that must not appear, named for the report (never printed itself). */
export interface Needle {
  label: string;
  value: string;
}

/** A needle found in a source. */
export interface Leak {
  needle: string;
  source: string;
}

/** The entries of a ZIP archive (an XLSX), each inflated: name → bytes. */
export function unzipEntries(zip: Buffer): Map<string, Buffer> {
  const entries = new Map<string, Buffer>();
  let end = -1;
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 65_557); at -= 1) {
    if (zip.readUInt32LE(at) === 0x06054b50) {
      end = at;
      break;
    }
  }
  if (end < 0) throw new Error('not a ZIP archive: no end of central directory');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  for (let index = 0; index < count; index += 1) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error('corrupt ZIP central directory');
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const localOffset = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    const dataStart =
      localOffset + 30 + zip.readUInt16LE(localOffset + 26) + zip.readUInt16LE(localOffset + 28);
    const data = zip.subarray(dataStart, dataStart + compressedSize);
    entries.set(name, method === 8 ? inflateRawSync(data) : Buffer.from(data));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * The texts of a file: gzip is expanded, an XLSX (ZIP) yields each entry, anything else is read
 * as UTF-8. Fails loudly on a file it cannot expand, so nothing escapes the scan unread.
 */
export function expandFile(name: string, bytes: Buffer): ScanSource[] {
  if (name.endsWith('.gz')) return [{ name, text: gunzipSync(bytes).toString('utf8') }];
  if (name.endsWith('.xlsx')) {
    return [...unzipEntries(bytes)].map(([entry, data]) => ({
      name: `${name}!${entry}`,
      text: data.toString('utf8'),
    }));
  }
  return [{ name, text: bytes.toString('utf8') }];
}

/** The forms a secret may take in a text. */
function variants(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const forms = new Set([
    value,
    encodeURIComponent(value),
    encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    JSON.stringify(value).slice(1, -1).replace(/\//g, '\\/'),
    bytes.toString('base64'),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ]);
  if (/^[0-9a-f]+$/.test(value)) forms.add(value.toUpperCase());
  return [...forms].filter((form) => form.length >= 8);
}

/**
 * Every (needle, source) pair where the needle appears in any of its forms. Hex signatures are
 * found through one pass over the 64-hex-digit tokens of each source.
 */
export function findLeaks(
  sources: readonly ScanSource[],
  needles: readonly Needle[],
): { checks: number; leaks: Leak[] } {
  const hexNeedles = new Map<string, string>();
  const plain: Needle[] = [];
  for (const needle of needles) {
    if (/^[0-9a-f]{64}$/.test(needle.value)) hexNeedles.set(needle.value, needle.label);
    else plain.push(needle);
  }
  const leaks: Leak[] = [];
  for (const source of sources) {
    for (const needle of plain) {
      if (variants(needle.value).some((form) => source.text.includes(form))) {
        leaks.push({ needle: needle.label, source: source.name });
      }
    }
    // Every 64-digit window of every hex run (a signature may sit inside a longer run).
    for (const run of source.text.match(/[0-9a-fA-F]{64,}/g) ?? []) {
      for (let at = 0; at + 64 <= run.length; at += 1) {
        const label = hexNeedles.get(run.slice(at, at + 64).toLowerCase());
        if (label !== undefined) leaks.push({ needle: label, source: source.name });
      }
    }
  }
  return { checks: sources.length * needles.length, leaks };
}
