/**
 * The part of each tax year an export's period covers. Every expectation is worked out by hand from
 * the calendar: the UK tax year starts at London midnight of 6 April (BST since 30 March 2025 and
 * 31 March 2024, so 2025-04-05T23:00Z and 2024-04-05T23:00Z); Berlin is UTC+1 on 1 January.
 */
import { describe, expect, it } from 'vitest';
import { type CoverageOptions, createCoverage } from './coverage.ts';

const UK = { timeZone: 'Europe/London', taxYearStart: { month: 4, day: 6 } } as const;
const CALENDAR = { taxYearStart: { month: 1, day: 1 } } as const;
const at = (iso: string) => Date.parse(iso);

const covered = (options: CoverageOptions) =>
  createCoverage(options)
    .years()
    .map((year) => [year.label, year.complete, year.text]);

describe('createCoverage', () => {
  it('returns the calendar year 2025 as parts of the uk tax years 2024/25 and 2025/26', () => {
    expect(
      covered({ ...UK, periodStart: at('2025-01-01T00:00:00Z'), periodEnd: at('2026-01-01T00:00:00Z') }),
    ).toEqual([
      ['2024/25', false, '2025-01-01 to 2025-04-05: only part of the tax year 2024/25'],
      ['2025/26', false, '2025-04-06 to 2025-12-31: only part of the tax year 2025/26'],
    ]);
  });

  it('returns a period of London days from 6 April to 5 April as the whole uk tax year', () => {
    expect(
      covered({ ...UK, periodStart: at('2024-04-05T23:00:00Z'), periodEnd: at('2025-04-05T23:00:00Z') }),
    ).toEqual([['2024/25', true, '2024-04-06 to 2025-04-05: the whole tax year 2024/25']]);
  });

  it('returns the same days in UTC as an hour short of 2024/25 and the first hour of 2025/26', () => {
    // 2024-04-06T00:00Z is 01:00 in London; 2025-04-06T00:00Z is 01:00 on 6 April 2025.
    const period = { periodStart: at('2024-04-06T00:00:00Z'), periodEnd: at('2025-04-06T00:00:00Z') };
    expect(covered({ ...UK, ...period })).toEqual([
      ['2024/25', false, '2024-04-06 01:00 Europe/London to 2025-04-05: only part of the tax year 2024/25'],
      [
        '2025/26',
        false,
        '2025-04-06 up to 2025-04-06 01:00 Europe/London: only part of the tax year 2025/26',
      ],
    ]);
    // HMRC identification reports whole days: the first day is taken from London midnight.
    expect(covered({ ...UK, ...period, wholeStartDay: true })).toEqual([
      ['2024/25', true, '2024-04-06 to 2025-04-05: the whole tax year 2024/25'],
      [
        '2025/26',
        false,
        '2025-04-06 up to 2025-04-06 01:00 Europe/London: only part of the tax year 2025/26',
      ],
    ]);
  });

  it('returns a period ending at London midnight of 6 April without the next tax year', () => {
    expect(
      covered({ ...UK, periodStart: at('2025-03-01T00:00:00Z'), periodEnd: at('2025-04-05T23:00:00Z') }),
    ).toEqual([['2024/25', false, '2025-03-01 to 2025-04-05: only part of the tax year 2024/25']]);
  });

  it('returns a Berlin month as part of the calendar tax year', () => {
    expect(
      covered({
        ...CALENDAR,
        timeZone: 'Europe/Berlin',
        periodStart: at('2025-02-28T23:00:00Z'),
        periodEnd: at('2025-03-31T22:00:00Z'),
      }),
    ).toEqual([['2025', false, '2025-03-01 to 2025-03-31: only part of the tax year 2025']]);
  });

  it('returns a UTC calendar year read in Berlin as all of 2025 but its first hour, and the first hour of 2026', () => {
    expect(
      covered({
        ...CALENDAR,
        timeZone: 'Europe/Berlin',
        periodStart: at('2025-01-01T00:00:00Z'),
        periodEnd: at('2026-01-01T00:00:00Z'),
      }),
    ).toEqual([
      ['2025', false, '2025-01-01 01:00 Europe/Berlin to 2025-12-31: only part of the tax year 2025'],
      ['2026', false, '2026-01-01 up to 2026-01-01 01:00 Europe/Berlin: only part of the tax year 2026'],
    ]);
  });

  it('returns every tax year whole without a period, and none listed', () => {
    const coverage = createCoverage({ ...UK, periodStart: null, periodEnd: null });
    expect([coverage.years(), coverage.of('2023/24').text, coverage.of('2023/24').complete]).toEqual([
      [],
      '2023-04-06 to 2024-04-05: the whole tax year 2023/24',
      true,
    ]);
  });

  it('returns a tax year the period does not reach as not covered', () => {
    const coverage = createCoverage({
      ...CALENDAR,
      timeZone: 'UTC',
      periodStart: at('2025-01-01T00:00:00Z'),
      periodEnd: at('2025-02-01T00:00:00Z'),
    });
    expect([coverage.of('2024').overlaps, coverage.of('2024').text]).toEqual([
      false,
      'none of the tax year 2024: outside the period',
    ]);
  });
});
