/**
 * Whether a double gives a number token back as the same text, decided mostly from the token's
 * characters: the scans of `exact-json.ts` and `item-texts.ts` meet every number token of every
 * body, and slicing each one out to compare it with `String(Number(token))` cost more than the
 * comparison decides. A token in the plain form below always comes back as it is; any other is
 * still decided by that very round trip.
 */

const MINUS = 0x2d;
const DOT = 0x2e;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
/** Any decimal of at most this many significant digits is the only one of them a double holds. */
const SAFE_DIGITS = 15;
/** Fraction digits that start with this many zeros are below 1e-6, which a double writes as `1e-7`. */
const TINY_ZEROS = 6;

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9;
}

/**
 * True when `String(Number(token)) !== token` for the token `text[start, end)`, the rule that
 * decides whether `JSON.parse` would change a number token (`1.50`, `1e3`, `-0`, `0.0000001`,
 * more than 15 significant digits, anything not a number at all). Slices the token only when its
 * characters alone do not settle it.
 */
export function isInexactNumberToken(text: string, start: number, end: number): boolean {
  if (isPlainNumberToken(text, start, end)) return false;
  const token = text.slice(start, end);
  return String(Number(token)) !== token;
}

/**
 * A token a double always gives back unchanged: `-?(0|[1-9]\d*)(\.\d*[1-9])?` with at most 15
 * digits in all, no exponent, not `-0`, and not below 1e-6 (six zeros after `0.`). Between 1e-6
 * and 1e21, `String` writes a double in plain notation with the fewest digits that read back as
 * it; a decimal of at most 15 significant digits is the only decimal that short for its double
 * (doubles are denser than 15-digit decimals), and one with no trailing fraction zero, no leading
 * zero and no `-0` is written as `String` writes it. A false answer only means "ask the double".
 */
function isPlainNumberToken(text: string, start: number, end: number): boolean {
  let at = start;
  if (text.charCodeAt(at) === MINUS) at++;
  const wholeStart = at;
  while (at < end && isDigit(text.charCodeAt(at))) at++;
  const wholeDigits = at - wholeStart;
  if (wholeDigits === 0 || wholeDigits > SAFE_DIGITS) return false;
  const zeroWhole = text.charCodeAt(wholeStart) === DIGIT_0;
  if (zeroWhole && wholeDigits > 1) return false;
  // `-0` reads back as `0`; `-0.5` is written as it is.
  if (at === end) return !(zeroWhole && wholeStart > start);
  if (text.charCodeAt(at) !== DOT) return false;
  const fractionStart = at + 1;
  at = fractionStart;
  while (at < end && isDigit(text.charCodeAt(at))) at++;
  if (at !== end || end === fractionStart) return false;
  if (text.charCodeAt(end - 1) === DIGIT_0) return false;
  if (wholeDigits + (end - fractionStart) > SAFE_DIGITS) return false;
  return !(zeroWhole && leadingZeros(text, fractionStart, end) >= TINY_ZEROS);
}

/** How many `0`s `text[from, end)` starts with. */
function leadingZeros(text: string, from: number, end: number): number {
  let at = from;
  while (at < end && text.charCodeAt(at) === DIGIT_0) at++;
  return at - from;
}
