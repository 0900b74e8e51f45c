import { describe, expect, it } from 'vitest';
import { decimalFormat, isExactNumber, toSheetText } from './xlsx-cells.ts';

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
});

describe('decimalFormat', () => {
  it.each([
    ['42', '#,##0'],
    ['-1.25', '#,##0.00'],
    ['0.000000000000000001', `#,##0.${'0'.repeat(18)}`],
    [`1.${'0'.repeat(40)}`, `#,##0.${'0'.repeat(30)}`],
  ])('returns the format for %s', (decimal, format) => {
    expect(decimalFormat(decimal)).toBe(format);
  });
});

describe('toSheetText', () => {
  it('returns CR and CRLF as LF', () => {
    expect(toSheetText('a\r\nb\rc')).toBe('a\nb\nc');
  });

  it('returns text without XML-invalid control characters', () => {
    expect(toSheetText('a\u0000b\u0007c\td')).toBe('abc\td');
  });

  it('returns text cut to the 32,767 characters Excel holds', () => {
    expect(toSheetText('x'.repeat(40_000))).toHaveLength(32_767);
  });
});
