/**
 * Lossless JSON for the service's bodies. `JSON.parse` turns a number token into a double, which
 * rounds `1234567890.123456789012345678` and `12345678901234567890123`, and forgets the text of
 * `1.50` or `1e3`. Amounts must reach the files exactly as sent, so a body whose number tokens a
 * double cannot give back as the same text is parsed with `lossless-json` (a well-kept parser made
 * for this), keeping those tokens as {@link ExactNumber}s; every other number stays a `number`.
 *
 * Parsing is the fetch's main CPU cost and `lossless-json` is about five times slower than the
 * native parser, so a body is first scanned for such tokens (about a quarter of a native parse)
 * and, as for nearly every body, parsed natively when it has none.
 */
import { isLosslessNumber, LosslessNumber, parse, stringify } from 'lossless-json';

/** A JSON number kept as its source text (`.value`), because a double would not give it back. */
export type ExactNumber = LosslessNumber;

/** True for a number token kept as text by {@link parseJson}. */
export function isExactNumber(value: unknown): value is ExactNumber {
  return isLosslessNumber(value);
}

/**
 * A number token: after `:`, `,` or `[` (or at the start), before `,`, `}` or `]` (or the end),
 * whitespace aside. A real token is never missed, since one always stands between those
 * characters. Inside a string the pattern may match too (`"a:1.50]"`): that only costs the slower
 * parse, never exactness. Date-times (`"09:26:53.000Z"`) do not match: a letter follows the digits.
 */
const NUMBER_TOKEN = /(?:^|[:,[])[ \t\n\r]*(-?\d[\d.eE+-]*)(?=[ \t\n\r]*(?:[,}\]]|$))/g;

/**
 * True when `text` may hold a number token that `JSON.parse` would not keep exactly: one whose
 * double, written back as `JSON.stringify` writes it, is not the same text (`1.50`, `1e3`, `-0`,
 * more than 15 significant digits, `0.0000001`). Decided by that very round trip, token by token.
 */
export function mayHoldInexactNumbers(text: string): boolean {
  NUMBER_TOKEN.lastIndex = 0;
  for (let match = NUMBER_TOKEN.exec(text); match !== null; match = NUMBER_TOKEN.exec(text)) {
    const token = match[1] as string;
    if (String(Number(token)) !== token) return true;
  }
  return false;
}

function parseNumberToken(token: string): number | ExactNumber {
  const value = Number(token);
  return String(value) === token ? value : new LosslessNumber(token);
}

/** The result of {@link parseJson}: the value, and whether any number was kept as text. */
export interface ParsedJson {
  value: unknown;
  /** True when the value may hold {@link ExactNumber}s: write it with {@link stringifyJson}. */
  exactNumbers: boolean;
}

/**
 * Parses JSON text without losing any number: a number token that a double cannot give back as
 * the same text becomes an {@link ExactNumber}; all others are `number`s. Throws `SyntaxError` on
 * invalid JSON, as `JSON.parse` does.
 */
export function parseJson(text: string): ParsedJson {
  if (!mayHoldInexactNumbers(text)) return { value: JSON.parse(text), exactNumbers: false };
  // Validate with the native parser first: its errors are the ones callers already expect.
  JSON.parse(text);
  return { value: parse(text, null, parseNumberToken), exactNumbers: true };
}

/**
 * Parses JSON text known to hold number tokens a double would change (see {@link parseJson}):
 * those become {@link ExactNumber}s. Throws `SyntaxError` on invalid JSON.
 */
export function parseJsonExactly(text: string): unknown {
  return parse(text, null, parseNumberToken);
}

/** {@link parseJson}'s value alone. */
export function parseJsonValue(text: string): unknown {
  return parseJson(text).value;
}

/**
 * JSON text of a value that may hold {@link ExactNumber}s, which are written as their source text
 * (so a body parsed with {@link parseJson} is written back with every number token as it came).
 * Plain values give the same text as `JSON.stringify`.
 */
export function stringifyJson(value: unknown): string {
  return stringify(value) ?? 'null';
}

/** Source text of a number kept by {@link parseJson}, or `String` of a plain number. */
export function numberText(value: number | ExactNumber): string {
  return typeof value === 'number' ? String(value) : value.value;
}
