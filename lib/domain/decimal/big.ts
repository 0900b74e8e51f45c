/**
 * Exact arithmetic for the export and the gains engine: one private big.js constructor (no other
 * module's settings reach it) and the one rounding rule, used wherever a fiat amount comes from a division.
 */
import BigFactory from 'big.js';

/** Private big.js constructor; addition, subtraction and multiplication are exact. */
export const Big = BigFactory();
export type Big = BigFactory.Big;

/** Zero of the private constructor. */
export const ZERO = new Big(0);

/** `value` as an integer and a power of ten, `value = n / 10^scale`, read from big.js's digits. */
function scaled(value: Big): { n: bigint; scale: number } {
  // big.js keeps the digits in `c`, the exponent of the first digit in `e` and the sign in `s`.
  const shift = value.e - (value.c.length - 1);
  let n = BigInt(value.c.join(''));
  if (value.s < 0) n = -n;
  return shift >= 0 ? { n: n * 10n ** BigInt(shift), scale: 0 } : { n, scale: -shift };
}

const TEN = 10n;

/**
 * How a division is rounded: half to even (the default), half up (ties away from zero), or up
 * (any remainder away from zero: HMRC's examples round an allowable cost up to the pound).
 */
export type Rounding = 'half-even' | 'half-up' | 'up';

/**
 * `a × b / c`, rounded half to even (or half up, or up) at `scale` decimal places: the only inexact
 * operation of the engine, rounded once. Computed on integers (big.js's long division is slow at
 * this precision).
 */
export function mulDiv(a: Big, b: Big, c: Big, scale: number, rounding: Rounding = 'half-even'): Big {
  const x = scaled(a);
  const y = scaled(b);
  const z = scaled(c);
  if (z.n === 0n) throw new RangeError('division by zero');
  let num = x.n * y.n * TEN ** BigInt(z.scale + scale);
  let den = z.n * TEN ** BigInt(x.scale + y.scale);
  const negative = num < 0n !== den < 0n && num !== 0n;
  if (num < 0n) num = -num;
  if (den < 0n) den = -den;
  let q = num / den;
  const rest = num % den;
  const twice = rest * 2n;
  if (rounding === 'up') {
    if (rest > 0n) q += 1n;
  } else if (twice > den || (twice === den && (rounding === 'half-up' || q % 2n === 1n))) q += 1n;
  let digits = q.toString();
  if (scale > 0) {
    digits = digits.padStart(scale + 1, '0');
    digits = `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  }
  return new Big(negative ? `-${digits}` : digits);
}

/** Plain notation without exponent or trailing zeros; `-0` is `0`. */
export function text(value: Big): string {
  const out = value.toFixed();
  return out === '-0' ? '0' : out;
}
