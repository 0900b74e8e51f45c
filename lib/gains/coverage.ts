/**
 * How much of each tax year an export's period covers. A period of a calendar year under uk rules
 * (tax year from 6 April) reports parts of two tax years; a month reports a twelfth of one. Every
 * tax-year summary says so in words (its `Covers` cell), so a part is never read as the whole year.
 */
import { DateTime } from 'luxon';
import type { Column } from '../domain/index.ts';
import { localDate, taxYearBounds, taxYearLabel, taxYearOf } from './tax-year.ts';
import type { TaxYearStart } from './types.ts';

/** What {@link createCoverage} needs: the reported instants and the calendar of the tax years. */
export interface CoverageOptions {
  /** First reported instant (ms), or null: from the beginning. */
  periodStart: number | null;
  /** First instant after the period (ms, exclusive), or null: no end. */
  periodEnd: number | null;
  /** IANA zone of the tax years (the rule set's zone, else the request's). */
  timeZone: string;
  taxYearStart: TaxYearStart;
  /**
   * The report starts at local midnight of the start's day (HMRC identification reports whole
   * days: the engine takes in the events of the start's day before the start instant).
   */
  wholeStartDay?: boolean;
}

/** One tax year and the part of it the period covers. */
export interface TaxYearCoverage {
  /** `2025` or `2024/25`. */
  label: string;
  /** First and last local dates of the tax year. */
  first: string;
  last: string;
  /** Whether the period covers the whole tax year. */
  complete: boolean;
  /** Whether the period covers any of it. */
  overlaps: boolean;
  /** The covered part, e.g. `2025-01-01 to 2025-04-05` (empty when none). */
  span: string;
  /**
   * The `Covers` cell: `2025-01-01 to 2025-04-05: only part of the tax year 2024/25` or
   * `2025-01-01 to 2025-12-31: the whole tax year 2025`.
   */
  text: string;
}

/** The coverage of a period, tax year by tax year. */
export interface Coverage {
  /** The tax year of `label` (`2025`, `2024/25`). */
  of(label: string): TaxYearCoverage;
  /** Every tax year the period touches, in order (none when the period is open at either end). */
  years(): TaxYearCoverage[];
}

/** A period's coverage of its tax years. */
export function createCoverage(options: CoverageOptions): Coverage {
  const { timeZone, taxYearStart } = options;
  const reportedStart =
    options.periodStart === null
      ? null
      : options.wholeStartDay === true
        ? DateTime.fromMillis(options.periodStart, { zone: timeZone }).startOf('day').toMillis()
        : options.periodStart;
  const reportedEnd = options.periodEnd;
  const yearStart = (year: number) =>
    DateTime.fromObject({ year, month: taxYearStart.month, day: taxYearStart.day }, { zone: timeZone })
      .startOf('day')
      .toMillis();
  const cache = new Map<number, TaxYearCoverage>();
  const ofYear = (year: number): TaxYearCoverage => {
    const found = cache.get(year);
    if (found !== undefined) return found;
    const label = taxYearLabel(year, taxYearStart);
    const { first, last } = taxYearBounds(year, taxYearStart);
    const begins = yearStart(year);
    const ends = yearStart(year + 1);
    const from = reportedStart === null ? begins : Math.max(begins, reportedStart);
    const to = reportedEnd === null ? ends : Math.min(ends, reportedEnd);
    const overlaps = from < to;
    const complete = from === begins && to === ends;
    const covered = overlaps ? span(from, to, timeZone) : '';
    const text = !overlaps
      ? `none of the tax year ${label}: outside the period`
      : `${covered}: ${complete ? 'the whole' : 'only part of the'} tax year ${label}`;
    const coverage = { label, first, last, complete, overlaps, span: covered, text };
    cache.set(year, coverage);
    return coverage;
  };
  return {
    of: (label) => ofYear(Number(label.slice(0, 4))),
    years() {
      if (reportedStart === null || reportedEnd === null || reportedEnd <= reportedStart) return [];
      const firstYear = taxYearOf(localDate(reportedStart, timeZone), taxYearStart);
      const lastYear = taxYearOf(localDate(reportedEnd - 1, timeZone), taxYearStart);
      const years: TaxYearCoverage[] = [];
      for (let year = firstYear; year <= lastYear; year += 1) years.push(ofYear(year));
      return years;
    },
  };
}

/**
 * `[from, to)` in local words: dates when both ends are local midnights (`2025-01-01 to
 * 2025-04-05`, the last day included), else the time of the end that is not, with the zone
 * (`2025-04-06 up to 2025-04-06 01:00 Europe/London`, the end not included).
 */
function span(from: number, to: number, zone: string): string {
  const start = DateTime.fromMillis(from, { zone });
  const end = DateTime.fromMillis(to, { zone });
  const midnight = (t: DateTime) => t.toMillis() === t.startOf('day').toMillis();
  const startText = midnight(start) ? start.toISODate() : `${start.toFormat('yyyy-MM-dd HH:mm')} ${zone}`;
  if (midnight(end)) return `${startText} to ${end.minus({ days: 1 }).toISODate()}`;
  return `${startText} up to ${end.toFormat('yyyy-MM-dd HH:mm')} ${zone}`;
}

/**
 * The `Covers` column of every tax-year summary: the part of the tax year the export's period
 * covers, so a summary of part of a year is never read as the whole year's.
 */
export const COVERS_COLUMN: Column = {
  key: 'covers',
  header: 'Covers',
  kind: 'text',
  wrap: true,
  width: 32,
  description:
    "the part of the tax year the export's period covers (in the tax year's time zone): \"only part of the tax year\" means the figures are not the whole year's",
};
