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
import { isInexactNumberToken } from './number-token.ts';

/** A JSON number kept as its source text (`.value`), because a double would not give it back. */
export type ExactNumber = LosslessNumber;

/** True for a number token kept as text by {@link parseJson}. */
export function isExactNumber(value: unknown): value is ExactNumber {
  return isLosslessNumber(value);
}

/**
 * The end of a number token: one after `:`, `,` or `[`, before `,`, `}` or `]` (or the end),
 * whitespace aside (a token at the very start is looked at apart). A real token is never missed,
 * since one always stands between those characters. Inside a string the pattern may match too
 * (`"a:1.50]"`): that only costs the slower parse, never exactness. Date-times
 * (`"09:26:53.000Z"`) do not match: a letter follows the digits. No capture and `test`, not
 * `exec`: a match allocates nothing, and the token is read in place from where the match ends.
 */
const NUMBER_TOKEN = /[:,[][ \t\n\r]*-?\d[\d.eE+-]*(?=[ \t\n\r]*(?:[,}\]]|$))/g;
const FOLLOWS_TOKEN = /^[ \t\n\r]*(?:[,}\]]|$)/;
const LEADS_TOKEN = /^[ \t\n\r]*-?\d[\d.eE+-]*/;

/**
 * True when `text` may hold a number token that `JSON.parse` would not keep exactly: one whose
 * double, written back as `JSON.stringify` writes it, is not the same text (`1.50`, `1e3`, `-0`,
 * more than 15 significant digits, `0.0000001`). Decided by that very round trip, token by token
 * (`number-token.ts`, which settles most tokens from their characters).
 */
export function mayHoldInexactNumbers(text: string): boolean {
  if (startsWithInexactNumber(text)) return true;
  NUMBER_TOKEN.lastIndex = 0;
  while (NUMBER_TOKEN.test(text)) {
    const end = NUMBER_TOKEN.lastIndex;
    let start = end;
    while (start > 0 && isTokenCharacter(text.charCodeAt(start - 1))) start--;
    if (isInexactNumberToken(text, start, end)) return true;
  }
  return false;
}

/** Whether `code` may be part of a token matched by {@link NUMBER_TOKEN}: `-+.`, a digit, `e`, `E`. */
function isTokenCharacter(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2e ||
    code === 0x2d ||
    code === 0x2b ||
    (code | 0x20) === 0x65
  );
}

/** A number token at the start of `text` (a body that is one number) that a double would change. */
function startsWithInexactNumber(text: string): boolean {
  const lead = LEADS_TOKEN.exec(text);
  if (lead === null) return false;
  const end = lead[0].length;
  if (!FOLLOWS_TOKEN.test(text.slice(end))) return false;
  const token = lead[0].trimStart();
  return isInexactNumberToken(token, 0, token.length);
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
