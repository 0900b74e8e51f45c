import { describe, expect, it } from 'vitest';
import { previousLocalMonth, scheduleKey } from './monthly.ts';

describe('previousLocalMonth', () => {
  it('returns the month before the local date when the zone is still in the previous month', () => {
    // 2026-11-01T00:30Z is 2026-10-31 20:30 in New York: the local month is October.
    expect(previousLocalMonth('2026-11-01T00:30:00Z', 'America/New_York')).toBe('2026-09');
  });

  it('returns the month before the UTC month in UTC', () => {
    expect(previousLocalMonth('2026-11-01T00:30:00Z', 'UTC')).toBe('2026-10');
  });

  it('returns the month before the local date when the zone is already in the next month', () => {
    // 2026-10-31T15:30Z is 2026-11-01 00:30 in Tokyo.
    expect(previousLocalMonth('2026-10-31T15:30:00Z', 'Asia/Tokyo')).toBe('2026-10');
  });

  it('returns December of the previous year in January', () => {
    expect(previousLocalMonth('2027-01-01T06:00:00Z', 'Europe/Berlin')).toBe('2026-12');
  });

  it('reads an instant given with an offset', () => {
    expect(previousLocalMonth('2026-11-01T01:30:00+01:00', 'UTC')).toBe('2026-10');
  });
});

describe('scheduleKey', () => {
  it('returns schedule:{profile}:{month}', () => {
    expect(scheduleKey('acme', '2026-09')).toBe('schedule:acme:2026-09');
  });
});
