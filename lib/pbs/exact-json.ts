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
 * A number token (after `:`, `,` or `[`, before `,`, `}` or `]`) that a double does not give back
 * as the same text: more than 15 significant digits, a trailing fractional zero, an exponent, a
 * leading zero, `-0`, or `0.000000x` (which `String` writes with an exponent). Inside a string
 * the pattern may match too (`"a:1.50]"`): that only costs the slower parse, never exactness. A real
 * token is never missed: one always stands between those characters, whitespace aside.
 */
const INEXACT_NUMBER_TOKEN =
  /(?:^|[:,[])[ \t\n\r]*(?!-?(?:0|[1-9]\d{0,14})(?:\.\d{0,13}[1-9])?[ \t\n\r]*(?:[,}\]]|$))-?\d[\d.eE+-]*[ \t\n\r]*(?:[,}\]]|$)/;

/** True when `text` may hold a number token that `JSON.parse` would not keep exactly. */
export function mayHoldInexactNumbers(text: string): boolean {
  return INEXACT_NUMBER_TOKEN.test(text);
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
