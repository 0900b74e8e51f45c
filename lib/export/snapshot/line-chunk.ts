/**
 * One NDJSON line encoded into a chunk of bytes being gathered: the snapshot's writer and the part
 * store's writer gather lines the same way (`prefix`, the JSON text or its UTF-8 bytes, `suffix`,
 * a newline), so a part spilled to its file holds the bytes a part file written directly holds.
 */

/** The most bytes {@link appendLine} may write for this line: 3 bytes of UTF-8 per UTF-16 code unit. */
export function mostLineBytes(json: string | Uint8Array, prefix: string, suffix: string): number {
  return 3 * (prefix.length + suffix.length) + (typeof json === 'string' ? 3 : 1) * json.length + 1;
}

/**
 * Writes `prefix`, `json` and `suffix` and a newline into `chunk` at `used` (the caller made room
 * for {@link mostLineBytes}); returns where the chunk's bytes now end.
 */
export function appendLine(
  chunk: Buffer,
  used: number,
  json: string | Uint8Array,
  prefix: string,
  suffix: string,
): number {
  let end = used;
  if (prefix !== '') end += chunk.write(prefix, end);
  if (typeof json === 'string') end += chunk.write(json, end);
  else {
    chunk.set(json, end);
    end += json.length;
  }
  if (suffix !== '') end += chunk.write(suffix, end);
  chunk[end] = NEWLINE;
  return end + 1;
}

const NEWLINE = 0x0a;
