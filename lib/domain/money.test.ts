import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { minorUnit, moneyHeader, toMinorUnit } from './money.ts';

describe('minorUnit', () => {
  it('returns the ISO 4217 minor unit of known currencies', () => {
    expect(['USD', 'EUR', 'GBP', 'JPY', 'KWD', 'CLF'].map(minorUnit)).toEqual([2, 2, 2, 0, 3, 4]);
  });

  it('returns null for codes without a minor unit, unknown codes and token symbols', () => {
    expect(['XAU', 'XXX', 'XDR', 'BTC', 'usd', 'US', '', '=1+2'].map(minorUnit)).toEqual(Array(8).fill(null));
  });

  it('answers the same on a second look-up (the answers are remembered)', () => {
    const codes = ['JPY', 'BTC', 'KWD', 'XAU', 'USD', 'CLF', 'usd'];
    const first = codes.map(minorUnit);
    expect(codes.map(minorUnit)).toEqual(first);
    expect(first).toEqual([0, null, 3, null, 2, 4, null]);
  });
});

describe('toMinorUnit', () => {
  it('pads amounts to the minor unit', () => {
    expect(['935890', '2543.5', '4471.81', '0'].map((a) => toMinorUnit(a, 'USD'))).toEqual([
      '935890.00',
      '2543.50',
      '4471.81',
      '0.00',
    ]);
  });

  it('rounds half to even to the minor unit, without a negative zero', () => {
    expect(
      ['0.125', '0.135', '-0.125', '-0.001', '-0.000000000000001', '1.005000'].map((a) =>
        toMinorUnit(a, 'USD'),
      ),
    ).toEqual(['0.12', '0.14', '-0.12', '0.00', '0.00', '1.00']);
    expect([
      toMinorUnit('1234.5', 'JPY'),
      toMinorUnit('1235.5', 'JPY'),
      toMinorUnit('1.0005', 'KWD'),
    ]).toEqual(['1234', '1236', '1.000']);
  });

  it('keeps the amount of a currency without a minor unit as sent', () => {
    expect([
      toMinorUnit('0.123456789', 'BTC'),
      toMinorUnit('2543.5', null),
      toMinorUnit('1.5', 'XAU'),
    ]).toEqual(['0.123456789', '2543.5', '1.5']);
  });

  it('returns, for any amount, the amount rounded half to even with exactly the minor unit of decimals', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 20n), max: 10n ** 20n }), fc.nat(8), (units, scale) => {
        const text =
          (units < 0n ? '-' : '') + (units < 0n ? -units : units).toString().padStart(scale + 1, '0');
        const amount = scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
        const shown = toMinorUnit(amount, 'USD');
        expect(shown).toMatch(/^-?\d+\.\d\d$/);
        // At most half a cent away, and exactly half only when the last kept digit is even.
        const cents = Number(shown.replace('.', ''));
        const exact = Number(amount) * 100;
        expect(Math.abs(exact - cents)).toBeLessThanOrEqual(0.5 + 1e-6 * Math.abs(exact));
      }),
    );
  });
});

describe('moneyHeader', () => {
  it('names the one currency, or points to the row currency when they mix', () => {
    expect([
      moneyHeader('Value', new Set(['USD'])),
      moneyHeader('Value', new Set(['USD', 'EUR'])),
      moneyHeader('Value', new Set([''])),
      moneyHeader('Value', new Set()),
    ]).toEqual([
      'Value (USD)',
      "Value (in the row's currency)",
      "Value (in the row's currency)",
      "Value (in the row's currency)",
    ]);
  });
});
