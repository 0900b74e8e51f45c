import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  absDecimal,
  addDecimal,
  compareDecimal,
  DecimalSum,
  isDecimal,
  isZeroDecimal,
  negateDecimal,
  parseDecimal,
  signDecimal,
  subtractDecimal,
  sumDecimals,
  trimDecimal,
} from './plain.ts';

/** Plain decimal strings with up to 30 integer and 18 fractional digits. */
const plainDecimal = fc
  .tuple(
    fc.boolean(),
    fc.stringMatching(/^[1-9]\d{0,29}$|^0$/),
    fc.option(fc.stringMatching(/^\d{1,18}$/), { nil: undefined }),
  )
  .map(([negative, whole, fraction]) => {
    const text = fraction === undefined ? whole : `${whole}.${fraction}`;
    return negative && !/^[0.]+$/.test(text) ? `-${text}` : text;
  });

describe('parseDecimal', () => {
  it('returns a plain decimal string unchanged, keeping its scale', () => {
    expect(parseDecimal('-1.250000000000000000')).toBe('-1.250000000000000000');
  });

  it('returns the plain form of a negative exponent', () => {
    expect(parseDecimal('1e-7')).toBe('0.0000001');
  });

  it('returns the plain form of a positive exponent with a fraction', () => {
    expect(parseDecimal('-1.5E+3')).toBe('-1500');
  });

  it('returns the plain form of an exponent that moves the point inside the digits', () => {
    expect(parseDecimal('12.345e1')).toBe('123.45');
  });

  it('returns 0 for negative zero', () => {
    expect(parseDecimal('-0.000')).toBe('0.000');
  });

  it('returns the value without leading integer zeros', () => {
    expect(parseDecimal('007.5')).toBe('7.5');
  });

  it('returns the shortest round-trip text of a finite number', () => {
    expect(parseDecimal(4210.55)).toBe('4210.55');
  });

  it.each(['', '+1', '.5', '1.', '1,5', 'abc', '1e', '0x10', ' 1', 'NaN', 'Infinity', '1e1001'])(
    'returns null for %j',
    (text) => {
      expect(parseDecimal(text)).toBeNull();
    },
  );

  it('returns null for a non-finite number', () => {
    expect(parseDecimal(Number.POSITIVE_INFINITY)).toBeNull();
  });

  it('returns null for a non-string, non-number value', () => {
    expect(parseDecimal({ amount: '1' })).toBeNull();
  });

  it('returns a value equal to the input for any exponent form', () => {
    fc.assert(
      fc.property(plainDecimal, fc.integer({ min: -40, max: 40 }), (decimal, shift) => {
        // decimal × 10^shift written as mantissa "decimal" and exponent "shift".
        const parsed = parseDecimal(`${decimal}e${shift}`) as string;
        expect(parsed).toMatch(/^-?\d+(\.\d+)?$/);
        expect(compareDecimal(parsed, trimDecimal(`${decimal}e${shift}`))).toBe(0);
        expect(parseDecimal(`${parsed}e${-shift}`)).not.toBeNull();
        expect(compareDecimal(parseDecimal(`${parsed}e${-shift}`) as string, decimal)).toBe(0);
      }),
    );
  });
});

describe('isDecimal', () => {
  it('returns true for an exponent form', () => {
    expect(isDecimal('2.5e-3')).toBe(true);
  });

  it('returns false for text with a currency', () => {
    expect(isDecimal('12 USD')).toBe(false);
  });
});

describe('addDecimal', () => {
  it('returns the exact sum where binary floating point is off', () => {
    expect(addDecimal('0.1', '0.2')).toBe('0.3');
  });

  it('returns 0 rather than -0 for opposite values', () => {
    expect(addDecimal('-1.5', '1.5')).toBe('0');
  });

  it('returns plain notation for tiny and huge sums', () => {
    expect(addDecimal('0.000000000000000001', '100000000000000000000000')).toBe(
      '100000000000000000000000.000000000000000001',
    );
  });

  it('returns a sum that subtracting one addend gives back the other', () => {
    fc.assert(
      fc.property(plainDecimal, plainDecimal, (a, b) => {
        expect(compareDecimal(subtractDecimal(addDecimal(a, b), b), a)).toBe(0);
      }),
    );
  });
});

describe('sumDecimals', () => {
  it('returns 0 for no values', () => {
    expect(sumDecimals([])).toBe('0');
  });

  it('returns the exact sum of many values', () => {
    expect(sumDecimals(Array.from({ length: 10 }, () => '0.1'))).toBe('1');
  });
});

describe('negateDecimal', () => {
  it('returns the negative keeping the scale', () => {
    expect(negateDecimal('4205.120000')).toBe('-4205.120000');
  });

  it('returns the positive of a negative value', () => {
    expect(negateDecimal('-1.25')).toBe('1.25');
  });

  it('returns zero unsigned', () => {
    expect(negateDecimal('0.00')).toBe('0.00');
  });
});

describe('absDecimal', () => {
  it('returns the magnitude keeping the scale', () => {
    expect(absDecimal('-1.250000')).toBe('1.250000');
  });
});

describe('isZeroDecimal', () => {
  it('returns true for zero with a scale', () => {
    expect(isZeroDecimal('0.000')).toBe(true);
  });

  it('returns false for the smallest 18-digit amount', () => {
    expect(isZeroDecimal('0.000000000000000001')).toBe(false);
  });
});

describe('compareDecimal', () => {
  it('returns 0 for equal values of different scale', () => {
    expect(compareDecimal('1.50', '1.5')).toBe(0);
  });

  it('returns -1 when the first value is smaller beyond float precision', () => {
    expect(compareDecimal('1.000000000000000001', '1.000000000000000002')).toBe(-1);
  });
});

describe('signDecimal', () => {
  it('returns -1 for a negative value', () => {
    expect(signDecimal('-0.001')).toBe(-1);
  });
});

describe('trimDecimal', () => {
  it('returns the value without trailing fractional zeros', () => {
    expect(trimDecimal('4205.120000')).toBe('4205.12');
  });
});

describe('DecimalSum', () => {
  it('equals the sum big.js computes, for any plain decimals of any scales and signs', () => {
    fc.assert(
      fc.property(fc.array(plainDecimal, { maxLength: 40 }), (values) => {
        const sum = new DecimalSum();
        for (const value of values) sum.add(value);
        expect(sum.text()).toBe(sumDecimals(values));
      }),
    );
  });

  it('prints a sum that cancels out as 0 and keeps no trailing fractional zeros', () => {
    const sum = new DecimalSum();
    for (const value of ['0.10', '-0.1', '2.500', '-0.5']) sum.add(value);
    expect(sum.text()).toBe('2');
  });

  it('adds amounts in exponent form exactly, and refuses text that is not a decimal', () => {
    const sum = new DecimalSum();
    sum.add('1e-7');
    sum.add('-1.5E+3');
    expect(sum.text()).toBe('-1499.9999999');
    expect(() => sum.add('1,5')).toThrow(/not a decimal: "1,5"/);
  });
});

describe('signDecimal and trimDecimal on plain decimals', () => {
  it('agree with big.js for any plain decimal', () => {
    fc.assert(
      fc.property(plainDecimal, (value) => {
        expect(signDecimal(value)).toBe(compareDecimal(value, '0'));
        expect(compareDecimal(trimDecimal(value), value)).toBe(0);
        expect(trimDecimal(value)).toBe(addDecimal(value, '0'));
      }),
    );
  });
});
