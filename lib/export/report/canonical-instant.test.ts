import { describe, expect, it } from 'vitest';
import { isCanonicalInstant } from './canonical-instant.ts';

/** What a Date gives back for `text`: the independent expectation. */
function roundTrips(text: string): boolean {
  const ms = Date.parse(text);
  return !Number.isNaN(ms) && new Date(ms).toISOString() === text;
}

describe('isCanonicalInstant', () => {
  it("accepts exactly the texts toISOString gives back, over every day of a leap year's span and a century", () => {
    const texts: string[] = [];
    for (let ms = Date.UTC(1899, 11, 25); ms < Date.UTC(1901, 2, 5); ms += 86_400_000 + 3_723_001)
      texts.push(new Date(ms).toISOString());
    for (let ms = Date.UTC(2023, 11, 25); ms < Date.UTC(2025, 2, 5); ms += 86_400_000 + 61_001)
      texts.push(new Date(ms).toISOString());
    for (const text of texts) expect(isCanonicalInstant(text), text).toBe(true);
  });

  it('refuses what Date would read and write otherwise: days past the month, 24:00, other forms', () => {
    const texts = [
      '2023-02-29T00:00:00.000Z',
      '2024-02-30T00:00:00.000Z',
      '1900-02-29T10:00:00.000Z',
      '2025-04-31T00:00:00.000Z',
      '2025-13-01T00:00:00.000Z',
      '2025-00-10T00:00:00.000Z',
      '2025-01-00T00:00:00.000Z',
      '2025-01-01T24:00:00.000Z',
      '2025-01-01T23:60:00.000Z',
      '2025-01-01T23:59:60.000Z',
      '2025-01-01T10:00:00Z',
      '2025-01-01T10:00:00.00Z',
      '2025-01-01T10:00:00.000+00:00',
      '2025-01-01 10:00:00.000Z',
      '2025-01-01T10:00:00.000z',
      '+02025-01-01T10:00:00.000',
      '2025-1-01T10:00:00.0000Z',
      '２025-01-01T10:00:00.000Z',
    ];
    for (const text of texts) {
      expect(isCanonicalInstant(text), text).toBe(false);
      expect(roundTrips(text), text).toBe(false);
    }
    expect(isCanonicalInstant('2024-02-29T23:59:59.999Z')).toBe(true);
    expect(isCanonicalInstant('2000-02-29T00:00:00.000Z')).toBe(true);
  });
});
