import { describe, expect, it } from 'vitest';
import { Big, mulDiv, text } from './big.ts';

const md = (a: string, b: string, c: string, scale: number) =>
  text(mulDiv(new Big(a), new Big(b), new Big(c), scale));

describe('mulDiv', () => {
  it('returns the exact quotient when it fits the scale', () => {
    expect(md('4007.995', '1.05', '1.999', 18)).toBe('2105.25');
  });

  it('returns a half rounded to the even neighbour below', () => {
    // 0.125 at 2 places: the 2 is even, so 0.12.
    expect(md('1', '1', '8', 2)).toBe('0.12');
  });

  it('returns a half rounded to the even neighbour above', () => {
    // 0.375 at 2 places: the 7 is odd, so 0.38.
    expect(md('3', '1', '8', 2)).toBe('0.38');
  });

  it('returns a negative quotient rounded half to even symmetrically', () => {
    expect(md('-3', '1', '8', 2)).toBe('-0.38');
  });

  it('returns the quotient rounded once at the scale, not twice', () => {
    // 2/3 = 0.666… → 0.666666666666666667 at 18 places.
    expect(md('2', '1', '3', 18)).toBe('0.666666666666666667');
  });

  it('returns any remainder rounded up, away from zero, with rounding up (HMRC)', () => {
    // £345,000 × 100,000 / 110,000 = £313,636.36… → £313,637 (CRYPTO22256); exact stays exact.
    expect(text(mulDiv(new Big('345000'), new Big('100000'), new Big('110000'), 0, 'up'))).toBe('313637');
    expect(text(mulDiv(new Big('-345000'), new Big('100000'), new Big('110000'), 0, 'up'))).toBe('-313637');
    expect(text(mulDiv(new Big('225000'), new Big('20000'), new Big('50000'), 0, 'up'))).toBe('90000');
  });

  it('throws on a zero divisor', () => {
    expect(() => md('1', '1', '0', 2)).toThrow(RangeError);
  });
});

describe('mulDiv (operands)', () => {
  it('returns exact results for operands with large exponents and tiny fractions', () => {
    // 12000 × 0.000000000000000003 / 0.0004 = 0.00000000009
    expect(md('12000', '0.000000000000000003', '0.0004', 18)).toBe('0.00000000009');
  });

  it('returns exact results for negative operands on both sides', () => {
    expect(md('-1.5', '2', '-0.25', 18)).toBe('12');
  });
});
