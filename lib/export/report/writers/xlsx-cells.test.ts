import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  cutMarker,
  decimalFormat,
  encodeSheetText,
  isExactNumber,
  sheetTextValue,
  toSheetText,
  toXlsxCell,
} from './xlsx-cells.ts';

describe('isExactNumber', () => {
  it.each(['0', '-1.25', '1234567.89', '1.500000000000000000', '123456789012345'])(
    'returns true for %s',
    (decimal) => {
      expect(isExactNumber(decimal, Number(decimal))).toBe(true);
    },
  );

  it.each(['0.123456789012345678', '1234567890123456', '0.1234567890123456', '9007199254740993'])(
    'returns false for %s',
    (decimal) => {
      expect(isExactNumber(decimal, Number(decimal))).toBe(false);
    },
  );

  it('returns what an exact comparison of the decimal with the number says, for any decimal literal', () => {
    const digits = (max: number) => fc.stringMatching(new RegExp(`^[0-9]{1,${max}}$`));
    const literal = fc
      .tuple(fc.boolean(), digits(18), fc.option(digits(20)))
      .map(
        ([minus, whole, fraction]) => `${minus ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}`,
      );
    fc.assert(
      fc.property(literal, (decimal) => {
        const value = Number(decimal);
        const exact = new Big(decimal);
        const expected = exact.c.length <= 15 && new Big(String(value)).eq(exact);
        expect(isExactNumber(decimal, value)).toBe(expected);
      }),
      { numRuns: 5000 },
    );
  });
});

describe('decimalFormat', () => {
  it.each([
    ['42', '#,##0'],
    ['-1.25', '#,##0.00'],
    ['0.000000000000000001', `#,##0.${'0'.repeat(18)}`],
    [`1.${'0'.repeat(40)}`, `#,##0.${'0'.repeat(14)}`],
    [`0.${'0'.repeat(20)}1${'0'.repeat(20)}`, `#,##0.${'0'.repeat(30)}`],
    // 15 significant digits at most: a double holds no more (the exact text is in `(exact)`).
    ['-0.024123745819401519', `#,##0.${'0'.repeat(16)}`],
    ['123456789012.123456', '#,##0.000'],
    ['1234567890123456.5', '#,##0'],
    ['2543.50', '#,##0.00'],
  ])('returns the format for %s', (decimal, format) => {
    expect(decimalFormat(decimal)).toBe(format);
  });

  it('returns, for any decimal literal, as many decimals as it has, within 15 significant digits and 30 decimals', () => {
    const literal = fc
      .tuple(
        fc.boolean(),
        fc.stringMatching(/^\d{1,20}$/),
        fc.option(fc.stringMatching(/^\d{1,40}$/), { nil: null }),
      )
      .map(
        ([minus, whole, fraction]) => `${minus ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}`,
      );
    fc.assert(
      fc.property(literal, (decimal) => {
        // Written out independently: significant digits before the point, else the fraction's leading zeros.
        const [whole = '', fraction = ''] = decimal.replace(/^-/, '').split('.');
        const significantWhole = whole.replace(/^0+/, '').length;
        const room =
          significantWhole > 0 ? 15 - significantWhole : (/^0*/.exec(fraction)?.[0].length ?? 0) + 15;
        const scale = Math.max(0, Math.min(fraction.length, room, 30));
        expect(decimalFormat(decimal)).toBe(scale === 0 ? '#,##0' : `#,##0.${'0'.repeat(scale)}`);
      }),
    );
  });
});

describe('isExactNumber beyond a spreadsheet number', () => {
  it('returns false for an amount past the range of a number', () => {
    const huge = `1${'0'.repeat(400)}`;
    expect(isExactNumber(huge, Number(huge))).toBe(false);
  });
});

describe('toSheetText', () => {
  it('returns CR, CRLF and every control character as sent', () => {
    expect(toSheetText('a\r\nb\rc\u0000d\u0007e\tf\u007f')).toBe('a\r\nb\rc\u0000d\u0007e\tf\u007f');
  });

  it('returns lone surrogates as U+FFFD and keeps surrogate pairs', () => {
    expect(toSheetText('a\ud800b\udc00c🚀')).toBe('a\ufffdb\ufffdc🚀');
  });

  it('returns text over 32,767 characters cut to fit, ending with a marker naming what was cut', () => {
    const text = toSheetText('x'.repeat(40_000));

    expect(text.length).toBeLessThanOrEqual(32_767);
    expect(text).toBe(`${'x'.repeat(40_000 - 7_301)}${cutMarker(7_301)}`);
  });

  it('never cuts a surrogate pair in two', () => {
    const text = toSheetText('🚀'.repeat(20_000));

    expect(text.replace(/…\[.*$/, '')).toMatch(/^(🚀)+$/u);
  });
});

describe('encodeSheetText', () => {
  it('returns C0 controls but tab and LF, CR and DEL as _xHHHH_ escapes', () => {
    expect(encodeSheetText('a\u0000b\u001b\tc\nd\re\u007f')).toBe('a_x0000_b_x001B_\tc\nd_x000D_e_x007F_');
  });

  it('escapes the underscore of text that looks like an escape, overlapping ones included', () => {
    expect([
      encodeSheetText('_x0041_'),
      encodeSheetText('_x005F_x0041_'),
      encodeSheetText('_x00ff_ x_1'),
    ]).toEqual(['_x005F_x0041_', '_x005F_x005F_x005F_x0041_', '_x005F_x00ff_ x_1']);
  });
});

describe('sheetTextValue', () => {
  it('returns plain text as a string and text needing escapes, edge spaces or holding &name; as rich text', () => {
    expect([
      sheetTextValue('plain'),
      sheetTextValue('a\u0001'),
      sheetTextValue(' x'),
      sheetTextValue('&amp;'),
    ]).toEqual([
      'plain',
      { richText: [{ text: 'a_x0001_' }] },
      { richText: [{ text: ' x' }] },
      { richText: [{ text: '&amp;' }] },
    ]);
  });

  it('returns any text as it is only when it needs no escape, no cut, no edge-space or entity care', () => {
    const text = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.stringMatching(/^[ -~]{0,40}$/),
      fc.constantFrom('_x0041_', 'tx_1', 'a&b;', '&lt;', ' a', 'a ', 'x'.repeat(40_000)),
    );
    fc.assert(
      fc.property(text, (value) => {
        const shown = toSheetText(value);
        const needsCare =
          encodeSheetText(shown) !== shown || /^\s|\s$|&[a-z]*;/.test(shown) || shown !== value;
        const result = sheetTextValue(value);
        if (needsCare) expect(result).not.toBe(value);
        else expect(result).toBe(value);
      }),
    );
  });
});

describe('toXlsxCell beyond a spreadsheet number', () => {
  const column = (companion: boolean) => ({
    source: { key: 'q', header: 'Q', kind: 'decimal' as const, exact: true },
    index: 0,
    companion,
    header: companion ? 'Q (exact)' : 'Q',
  });

  it('returns the exact decimal as text where no number can hold it, in the cell and its companion', () => {
    const huge = `1${'0'.repeat(400)}`;
    const tiny = `0.${'0'.repeat(399)}1`;

    expect([huge, tiny].flatMap((d) => [toXlsxCell(d, column(false)), toXlsxCell(d, column(true))])).toEqual([
      { value: huge },
      { value: huge },
      { value: tiny },
      { value: tiny },
    ]);
  });
});
