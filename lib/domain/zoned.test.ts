import { DateTime } from 'luxon';
import { describe, expect, it } from 'vitest';
import { wallClock, wallClockMillis } from './zoned.ts';

/** The wall-clock time of `ms` in `zone` read as UTC, by luxon's calendar fields (the independent reading). */
function byLuxon(ms: number, zone: string): number {
  const t = DateTime.fromMillis(ms, { zone });
  return Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second, t.millisecond);
}

describe('wallClockMillis', () => {
  it('returns the local wall-clock time read as UTC, as luxon reads it, across zones and DST changes', () => {
    const instants = [
      Date.UTC(2025, 2, 30, 0, 59, 59, 999),
      Date.UTC(2025, 2, 30, 1, 0, 0, 0),
      Date.UTC(2025, 9, 26, 0, 30),
      Date.UTC(2025, 9, 26, 1, 30),
      Date.UTC(1999, 11, 31, 23, 59, 59),
      Date.UTC(2024, 1, 29, 12),
      -86_400_000,
    ];
    for (const zone of ['UTC', 'Europe/Berlin', 'America/St_Johns', 'Asia/Kathmandu', 'Pacific/Chatham']) {
      for (const ms of instants) {
        expect(wallClockMillis(ms, zone)).toBe(byLuxon(ms, zone));
        expect(wallClock(ms, zone).getTime()).toBe(wallClockMillis(ms, zone));
      }
    }
  });

  it("returns NaN past a Date's range, as an invalid Date's time does", () => {
    expect(wallClockMillis(8.64e15, 'Asia/Kathmandu')).toBeNaN();
    expect(wallClockMillis(8.64e15, 'UTC')).toBe(8.64e15);
    expect(wallClockMillis(Number.NaN, 'UTC')).toBeNaN();
  });
});
