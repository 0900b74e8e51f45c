/**
 * The ISO-8601 text `Date.prototype.toISOString` writes for the years 0000 to 9999
 * (`2025-10-01T00:36:46.000Z`), recognised without a `Date`: the service sends its dates in this
 * form, and every row shows its date in a column or two, so reading each one into a `Date` only to
 * write the same text again is the largest part of showing it.
 */

/** Days of each month of a common year. */
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True when `text` is exactly what `new Date(Date.parse(text)).toISOString()` gives back: the
 * 24-character form with milliseconds and `Z`, every field in its range (no 24:00, no 30 February,
 * which `Date.parse` would accept and move to another day).
 */
export function isCanonicalInstant(text: string): boolean {
  if (text.length !== 24 || text.charCodeAt(23) !== Z) return false;
  for (let i = 0; i < 23; i += 1) {
    const code = text.charCodeAt(i);
    const expected = SEPARATORS[i];
    if (expected === undefined ? code < ZERO || code > NINE : code !== expected) return false;
  }
  const year = number(text, 0, 4);
  const month = number(text, 5, 2);
  const day = number(text, 8, 2);
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  const days = month === 2 && leap ? 29 : (DAYS_IN_MONTH[month - 1] as number);
  return day <= days && number(text, 11, 2) < 24 && number(text, 14, 2) < 60 && number(text, 17, 2) < 60;
}

const ZERO = 0x30;
const NINE = 0x39;
const Z = 0x5a;
/** The separator each position of the form holds (`undefined`: a digit). */
const SEPARATORS: (number | undefined)[] = [...'dddd-dd-ddTdd:dd:dd.ddd'].map((char) =>
  char === 'd' ? undefined : char.charCodeAt(0),
);

/** The decimal number of `length` digits at `start` (already checked to be digits). */
function number(text: string, start: number, length: number): number {
  let value = 0;
  for (let i = start; i < start + length; i += 1) value = value * 10 + text.charCodeAt(i) - ZERO;
  return value;
}
