import type { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../errors.ts';
import {
  isDayOrInstant,
  parseCalendarDay,
  parsePeriod,
  periodLabel,
  periodProblem,
  periodRange,
  resolveChangesSince,
} from './period.ts';

const iso = (range: { start: DateTime; end: DateTime }) => [
  range.start.toUTC().toISO(),
  range.end.toUTC().toISO(),
];

describe('parseCalendarDay', () => {
  it('returns the parts of an existing day', () => {
    expect(parseCalendarDay('2024-02-29')).toEqual({ year: 2024, month: 2, day: 29 });
  });

  it('returns null for an impossible day', () => {
    expect(parseCalendarDay('2025-02-30')).toBeNull();
  });

  it('returns null for a day without leading zeros', () => {
    expect(parseCalendarDay('2025-3-1')).toBeNull();
  });
});

describe('periodProblem', () => {
  it('returns null for a month', () => {
    expect(periodProblem('2026-10')).toBeNull();
  });

  it('returns a reason for month 13', () => {
    expect(periodProblem('2026-13')).toEqual({ path: [], reason: 'month 13 does not exist' });
  });

  it('returns the path of a range end before its start', () => {
    expect(periodProblem({ from: '2026-02-10', to: '2026-01-05' })?.path).toEqual(['to']);
  });

  it('returns the path of a missing range start', () => {
    expect(periodProblem({ to: '2026-01-05' })?.path).toEqual(['from']);
  });

  it('returns the path of an unknown key in a range', () => {
    expect(periodProblem({ from: '2026-01-05', to: '2026-01-05', until: 'x' })?.path).toEqual(['until']);
  });

  it('returns null for a single-day range', () => {
    expect(periodProblem({ from: '2026-01-05', to: '2026-01-05' })).toBeNull();
  });
});

describe('parsePeriod', () => {
  it('returns a year', () => {
    expect(parsePeriod('2026')).toEqual({ kind: 'year', year: 2026 });
  });

  it('throws a ValidationError on period for a malformed value', () => {
    expect(() => parsePeriod('26-10')).toThrow(ValidationError);
  });
});

describe('periodRange', () => {
  it('returns a UTC month from its first midnight to the next month', () => {
    expect(iso(periodRange('2026-10', 'UTC'))).toEqual([
      '2026-10-01T00:00:00.000Z',
      '2026-11-01T00:00:00.000Z',
    ]);
  });

  it('returns a Berlin summer-time month starting at 22:00 UTC the day before', () => {
    expect(periodRange('2026-07', 'Europe/Berlin').start.toUTC().toISO()).toBe('2026-06-30T22:00:00.000Z');
  });

  it('returns a Berlin winter-time month ending at 23:00 UTC the day before', () => {
    expect(periodRange('2026-11', 'Europe/Berlin').end.toUTC().toISO()).toBe('2026-11-30T23:00:00.000Z');
  });

  it('returns a December that ends at the next new year', () => {
    expect(iso(periodRange('2025-12', 'UTC'))[1]).toBe('2026-01-01T00:00:00.000Z');
  });

  it('returns a year in New York from its local midnight', () => {
    expect(iso(periodRange('2026', 'America/New_York'))).toEqual([
      '2026-01-01T05:00:00.000Z',
      '2027-01-01T05:00:00.000Z',
    ]);
  });

  it('returns a range that includes its last day', () => {
    expect(iso(periodRange({ from: '2026-01-05', to: '2026-02-10' }, 'UTC'))).toEqual([
      '2026-01-05T00:00:00.000Z',
      '2026-02-11T00:00:00.000Z',
    ]);
  });

  it('returns a range ending on 31 December at the next new year', () => {
    expect(iso(periodRange({ from: '2025-12-31', to: '2025-12-31' }, 'UTC'))[1]).toBe(
      '2026-01-01T00:00:00.000Z',
    );
  });

  it('returns a start at 01:00 local where DST skips midnight', () => {
    // Santiago moved clocks from 00:00 to 01:00 on 2024-09-08.
    const { start } = periodRange({ from: '2024-09-08', to: '2024-09-08' }, 'America/Santiago');
    expect(start.toFormat('HH:mm')).toBe('01:00');
  });
});

describe('periodLabel', () => {
  it('returns a month as given', () => {
    expect(periodLabel('2026-10')).toBe('2026-10');
  });

  it('returns a year as given', () => {
    expect(periodLabel('2026')).toBe('2026');
  });

  it('returns a range as both days joined by an underscore', () => {
    expect(periodLabel({ from: '2026-01-05', to: '2026-02-10' })).toBe('2026-01-05_2026-02-10');
  });
});

describe('isDayOrInstant', () => {
  it('returns true for an instant with an offset', () => {
    expect(isDayOrInstant('2025-03-14T09:26:53+01:00')).toBe(true);
  });

  it('returns false for an instant without an offset', () => {
    expect(isDayOrInstant('2025-03-14T09:26:53')).toBe(false);
  });

  it('returns false for an impossible time', () => {
    expect(isDayOrInstant('2025-03-14T25:00:00Z')).toBe(false);
  });

  it.each([
    '2025-03-14T00:00+25:00',
    '2025-03-14T00:00+15:00',
    '2025-03-14T00:00-00:60',
    '2025-03-14T24:00Z',
  ])('returns false for %s: an offset no zone has, or 24:00', (text) => {
    expect(isDayOrInstant(text)).toBe(false);
  });

  it.each(['2025-03-14T00:00+14:00', '2025-03-14T00:00-12:00', '2025-03-14T23:59:59.999+0530'])(
    'returns true for %s: the extreme offsets real zones have',
    (text) => {
      expect(isDayOrInstant(text)).toBe(true);
    },
  );
});

describe('resolveChangesSince', () => {
  it('returns the start of a day in the time zone', () => {
    expect(resolveChangesSince('2026-07-01', 'Europe/Berlin').toISOString()).toBe('2026-06-30T22:00:00.000Z');
  });

  it('returns an instant as given', () => {
    expect(resolveChangesSince('2026-07-01T12:00:00.000+02:00', 'UTC').toISOString()).toBe(
      '2026-07-01T10:00:00.000Z',
    );
  });

  it('throws a ValidationError on changesSince for other text', () => {
    expect(() => resolveChangesSince('yesterday', 'UTC')).toThrow('changesSince');
  });
});
