/**
 * UTF-8 decoding of response bodies, the same text as `Buffer#toString('utf8')` at a third of its
 * cost for the usual body: ASCII but for a few characters (`é`, `✓`). Node decodes a buffer fast
 * only up to its first non-ASCII byte and byte by byte after it, so one accented name early in a
 * page of 570 kB made the whole page slow. Here the ASCII stretches, found with the vectorised
 * `isAscii`, are copied as they are, and only small pieces around other bytes are decoded.
 */
import { isAscii } from 'node:buffer';

/** Pieces of at most this many bytes holding a non-ASCII byte are decoded as UTF-8 whole. */
const DECODED_PIECE_BYTES = 1024;

/**
 * The text of `bytes` as `bytes.toString('utf8')` gives it, malformed sequences included (each
 * piece ends just before an ASCII byte, which ends any sequence in the whole text too, so the
 * pieces decode as the whole does). `pieceBytes` is for tests.
 */
export function decodeUtf8(bytes: Buffer, pieceBytes = DECODED_PIECE_BYTES): string {
  let text = '';
  const decode = (start: number, end: number): void => {
    if (isAscii(bytes.subarray(start, end))) {
      text += bytes.toString('latin1', start, end);
      return;
    }
    let middle = start + Math.floor((end - start) / 2);
    while (middle < end && (bytes[middle] as number) >= 0x80) middle++;
    if (end - start <= pieceBytes || middle === end) {
      text += bytes.toString('utf8', start, end);
      return;
    }
    decode(start, middle);
    decode(middle, end);
  };
  if (bytes.length > 0) decode(0, bytes.length);
  return text;
}
