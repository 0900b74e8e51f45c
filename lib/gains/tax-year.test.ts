import { describe, expect, it } from 'vitest';
import { localDate, taxYearBounds, taxYearLabel, taxYearOf, termOf, validTaxYearStart } from './tax-year.ts';

const JAN_1 = { month: 1, day: 1 };
const UK = { month: 4, day: 6 };
const JULY_1 = { month: 7, day: 1 };

describe('localDate', () => {
  it('returns the next local day for 23:30 UTC in Europe/Berlin', () => {
    // 2024-12-31T23:30Z is 2025-01-01 00:30 CET (UTC+1).
    expect(localDate(Date.parse('2024-12-31T23:30:00Z'), 'Europe/Berlin')).toBe('2025-01-01');
  });

  it('returns the previous local day for 03:00 UTC in America/New_York', () => {
    // 2025-01-01T03:00Z is 2024-12-31 22:00 EST (UTC−5).
    expect(localDate(Date.parse('2025-01-01T03:00:00Z'), 'America/New_York')).toBe('2024-12-31');
  });
});

describe('localDate (daylight saving)', () => {
  it('returns the summer-time local day on the day the clocks change', () => {
    // Berlin moves to UTC+2 at 2025-03-30T01:00Z: 22:30Z that day is 2025-03-31 00:30 local.
    expect(localDate(Date.parse('2025-03-30T22:30:00Z'), 'Europe/Berlin')).toBe('2025-03-31');
  });

  it('returns the winter-time local day before the clocks change', () => {
    // 2025-03-29T23:30Z is 2025-03-30 00:30 CET (UTC+1).
    expect(localDate(Date.parse('2025-03-29T23:30:00Z'), 'Europe/Berlin')).toBe('2025-03-30');
  });

  it('returns the same local day for 21:59 UTC on the day the clocks change', () => {
    // 2025-03-30T21:59Z is 23:59 CEST on 2025-03-30.
    expect(localDate(Date.parse('2025-03-30T21:59:00Z'), 'Europe/Berlin')).toBe('2025-03-30');
  });
});

describe('taxYearOf', () => {
  it('returns the calendar year by default', () => {
    expect(taxYearOf('2025-12-31', JAN_1)).toBe(2025);
  });

  it('returns the previous year before 6 April in the UK', () => {
    expect(taxYearOf('2025-04-05', UK)).toBe(2024);
  });

  it('returns the same year from 6 April in the UK', () => {
    expect(taxYearOf('2025-04-06', UK)).toBe(2025);
  });

  it('returns the previous year on 30 June with a 1 July start', () => {
    expect(taxYearOf('2025-06-30', JULY_1)).toBe(2024);
  });
});

describe('taxYearLabel', () => {
  it('returns the bare year for calendar tax years', () => {
    expect(taxYearLabel(2025, JAN_1)).toBe('2025');
  });

  it('returns a split label for other starts', () => {
    expect(taxYearLabel(2099, UK)).toBe('2099/00');
  });
});

describe('taxYearBounds', () => {
  it('returns 6 April to 5 April for the UK', () => {
    expect(taxYearBounds(2024, UK)).toEqual({ first: '2024-04-06', last: '2025-04-05' });
  });
});

describe('validTaxYearStart', () => {
  it('returns false for 29 February', () => {
    expect(validTaxYearStart({ month: 2, day: 29 })).toBe(false);
  });
});

describe('termOf', () => {
  it('returns short for exactly one year', () => {
    expect(termOf('2024-03-10', '2025-03-10', 1)).toBe('short');
  });

  it('returns long for one year and one day', () => {
    expect(termOf('2024-03-10', '2025-03-11', 1)).toBe('long');
  });

  it('returns long on 1 March for a 29 February acquisition', () => {
    // 2024-02-29 + 1 year = 2025-02-28 (end of month); 2025-03-01 is after it.
    expect(termOf('2024-02-29', '2025-03-01', 1)).toBe('long');
  });

  it('returns short on 28 February for a 29 February acquisition', () => {
    expect(termOf('2024-02-29', '2025-02-28', 1)).toBe('short');
  });
});
