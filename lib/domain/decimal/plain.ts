/**
 * Exact decimal strings: validation, normalisation and the few operations the export needs.
 * Amounts never pass through binary floating point. Occasional arithmetic uses big.js; the running
 * sums of the summaries, which see every amount of every transaction, add scaled BigInt integers
 * (several times faster than big.js, measured by `npm run bench`), exact all the same.
 */
import { isExactNumber } from '../json/exact-json.ts';
import { Big, text as plainText, ZERO } from './big.ts';

const DECIMAL = /^(-)?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;
/** Already plain and normal: no leading zero in the integer part, no exponent. */
const NORMAL_PLAIN = /^-?(?:0|[1-9]\d*)(?:\.\d+)?$/;
/** A plain decimal: `-?\d+(\.\d+)?`, the form every other function here prefers. */
const PLAIN = /^(-?)(\d+)(?:\.(\d+))?$/;
const NEGATIVE_ZERO = /^-[0.]+$/;

/** Largest exponent magnitude accepted in `1e-7` forms; bounds the plain string's length. */
export const MAX_DECIMAL_EXPONENT = 1000;

/**
 * Parses a decimal amount into plain notation, exactly. Accepts `-?\d+(\.\d+)?` and exponent forms
 * (`1e-7`, `-1.5E+3`), converted digit by digit (`1e-7` → `0.0000001`). The fractional scale given
 * is kept (`4205.120000` stays as is), leading integer zeros are dropped and `-0` becomes `0`.
 * A JSON number arrives from the lossless parser (`domain/json/exact-json.ts`) as an `ExactNumber` (its
 * source text) or, when a double gives back its text exactly, as a `number`, accepted through its
 * shortest round-trip text. Returns `null` for anything else (including `+1`, `.5`, `1.`, `NaN`).
 */
export function parseDecimal(input: unknown): string | null {
  let text: string;
  if (typeof input === 'string') {
    // The common case, what the service sends: already plain, nothing to convert.
    if (NORMAL_PLAIN.test(input)) return NEGATIVE_ZERO.test(input) ? input.slice(1) : input;
    text = input;
  } else if (typeof input === 'number' && Number.isFinite(input)) text = String(input);
  else if (isExactNumber(input)) text = input.value;
  else return null;
  const match = DECIMAL.exec(text);
  if (match === null) return null;
  const negative = match[1] === '-';
  const intPart = match[2] ?? '0';
  const fracPart = match[3] ?? '';
  const exponent = match[4] === undefined ? 0 : Number(match[4]);
  if (Math.abs(exponent) > MAX_DECIMAL_EXPONENT) return null;

  const digits = intPart + fracPart;
  const point = intPart.length + exponent;
  let whole: string;
  let fraction: string;
  if (point <= 0) {
    whole = '0';
    fraction = '0'.repeat(-point) + digits;
  } else if (point >= digits.length) {
    whole = digits + '0'.repeat(point - digits.length);
    fraction = '';
  } else {
    whole = digits.slice(0, point);
    fraction = digits.slice(point);
  }
  whole = whole.replace(/^0+(?=\d)/, '');
  const plain = fraction === '' ? whole : `${whole}.${fraction}`;
  return negative && !/^[0.]+$/.test(plain) ? `-${plain}` : plain;
}

/** Whether `input` is a decimal string (or number) that {@link parseDecimal} accepts. */
export function isDecimal(input: unknown): boolean {
  return parseDecimal(input) !== null;
}

/** `a + b`, exact, in plain notation without trailing fractional zeros. */
export function addDecimal(a: string, b: string): string {
  return plainText(new Big(a).plus(b));
}

/** `a - b`, exact, in plain notation without trailing fractional zeros. */
export function subtractDecimal(a: string, b: string): string {
  return plainText(new Big(a).minus(b));
}

/** The exact sum of `values` (`0` for none), in plain notation without trailing fractional zeros. */
export function sumDecimals(values: Iterable<string>): string {
  let total = ZERO;
  for (const value of values) total = total.plus(value);
  return plainText(total);
}

/** `-a`, keeping the scale of a plain decimal string (`0.00` stays `0.00`). */
export function negateDecimal(a: string): string {
  if (a.startsWith('-')) return a.slice(1);
  return isZeroDecimal(a) ? a : `-${a}`;
}

/** `|a|`, keeping the scale of a plain decimal string. */
export function absDecimal(a: string): string {
  return a.startsWith('-') ? a.slice(1) : a;
}

/** Whether the decimal string is zero (`0`, `-0.000`, `0e5`). */
export function isZeroDecimal(a: string): boolean {
  return new Big(a).eq(0);
}

/** Compares two decimal strings numerically: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): -1 | 0 | 1 {
  return new Big(a).cmp(b) as -1 | 0 | 1;
}

/** The sign of a decimal string: -1, 0 or 1. */
export function signDecimal(a: string): -1 | 0 | 1 {
  if (!PLAIN.test(a)) return compareDecimal(a, '0');
  if (/^-?[0.]+$/.test(a)) return 0;
  return a.startsWith('-') ? -1 : 1;
}

/** Plain notation without trailing fractional zeros, for display (`4205.120000` → `4205.12`). */
export function trimDecimal(a: string): string {
  if (!NORMAL_PLAIN.test(a)) return plainText(new Big(a));
  const trimmed = a.includes('.') ? a.replace(/\.?0+$/, '') : a;
  return trimmed === '-0' ? '0' : trimmed;
}

const POWERS_OF_TEN: bigint[] = [1n];
function tenTo(exponent: number): bigint {
  for (let n = POWERS_OF_TEN.length; n <= exponent; n += 1)
    POWERS_OF_TEN.push((POWERS_OF_TEN[n - 1] as bigint) * 10n);
  return POWERS_OF_TEN[exponent] as bigint;
}

/**
 * A running exact sum: the total is an integer count of units of 10^-scale, where scale is the
 * largest number of decimals added so far. Each amount is read once; the total is printed only
 * when asked.
 */
export class DecimalSum {
  #units = 0n;
  #scale = 0;

  /** Adds an exact decimal string (plain, or any form {@link parseDecimal} accepts). */
  add(value: string): void {
    const match = PLAIN.exec(value) ?? PLAIN.exec(parseDecimal(value) ?? '');
    if (match === null) throw new RangeError(`not a decimal: ${JSON.stringify(value.slice(0, 40))}`);
    const fraction = match[3] ?? '';
    let units = BigInt((match[2] as string) + fraction);
    if (match[1] === '-') units = -units;
    if (fraction.length > this.#scale) {
      this.#units *= tenTo(fraction.length - this.#scale);
      this.#scale = fraction.length;
    } else if (fraction.length < this.#scale) {
      units *= tenTo(this.#scale - fraction.length);
    }
    this.#units += units;
  }

  /** The sum in plain notation without trailing fractional zeros (`0` for none). */
  text(): string {
    const negative = this.#units < 0n;
    const digits = (negative ? -this.#units : this.#units).toString().padStart(this.#scale + 1, '0');
    const whole = digits.slice(0, digits.length - this.#scale);
    const fraction = digits.slice(digits.length - this.#scale).replace(/0+$/, '');
    const text = fraction === '' ? whole : `${whole}.${fraction}`;
    return negative && text !== '0' ? `-${text}` : text;
  }
}
