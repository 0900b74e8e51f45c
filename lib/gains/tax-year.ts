/**
 * Calendar rules in the report's time zone: local dates, tax years and the holding period.
 */
import { DateTime } from 'luxon';
import { offsetMinutes } from '../domain/index.ts';
import type { TaxYearStart, Term } from './types.ts';

const DAY_MS = 86_400_000;
const dayTexts = new Map<number, string>();
const dayOffsets = new Map<string, number | null>();

/** The zone's offset at `ms`: read once per UTC day when it is the same at both ends of that day. */
function offsetOf(ms: number, zone: string): number {
  const utcDay = Math.floor(ms / DAY_MS);
  const key = `${zone}\u0000${utcDay}`;
  let offset = dayOffsets.get(key);
  if (offset === undefined) {
    const first = offsetMinutes(utcDay * DAY_MS, zone);
    offset = first === offsetMinutes((utcDay + 1) * DAY_MS - 1, zone) ? first : null;
    if (dayOffsets.size > 100_000) dayOffsets.clear();
    dayOffsets.set(key, offset);
  }
  return offset ?? offsetMinutes(ms, zone);
}

/** The local calendar date `YYYY-MM-DD` of instant `ms` in `zone`. */
export function localDate(ms: number, zone: string): string {
  const day = Math.floor((ms + offsetOf(ms, zone) * 60_000) / DAY_MS);
  let found = dayTexts.get(day);
  if (found === undefined) {
    found = new Date(day * DAY_MS).toISOString().slice(0, 10);
    if (dayTexts.size > 100_000) dayTexts.clear();
    dayTexts.set(day, found);
  }
  return found;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** The first year of the tax year that holds local date `date` (`YYYY-MM-DD`). */
export function taxYearOf(date: string, start: TaxYearStart): number {
  const year = Number(date.slice(0, 4));
  const monthDay = date.slice(5);
  return monthDay >= `${pad(start.month)}-${pad(start.day)}` ? year : year - 1;
}

/** Label of the tax year starting in `year`: `2025` for calendar years, else `2025/26`. */
export function taxYearLabel(year: number, start: TaxYearStart): string {
  if (start.month === 1 && start.day === 1) return String(year);
  return `${year}/${pad((year + 1) % 100)}`;
}

/** First and last local dates of the tax year starting in `year`. */
export function taxYearBounds(year: number, start: TaxYearStart): { first: string; last: string } {
  const first = DateTime.fromObject({ year, month: start.month, day: start.day }, { zone: 'utc' });
  return { first: first.toISODate() ?? '', last: first.plus({ years: 1, days: -1 }).toISODate() ?? '' };
}

/** Checks a tax year start: a day that exists in every year (29 February does not). */
export function validTaxYearStart(start: TaxYearStart): boolean {
  if (!Number.isInteger(start.month) || !Number.isInteger(start.day)) return false;
  const probe = DateTime.fromObject({ year: 2023, month: start.month, day: start.day }, { zone: 'utc' });
  return probe.isValid;
}

const plusYearsCache = new Map<string, string>();

/**
 * Long term when the local disposal date is strictly after the local acquisition date plus
 * `years` calendar years (29 February + 1 year = 28 February, Luxon's end-of-month rule).
 */
export function termOf(acquiredDate: string, disposedDate: string, years: number): Term {
  const cacheKey = `${acquiredDate}+${years}`;
  let threshold = plusYearsCache.get(cacheKey);
  if (threshold === undefined) {
    threshold = DateTime.fromISO(acquiredDate, { zone: 'utc' }).plus({ years }).toISODate() ?? acquiredDate;
    if (plusYearsCache.size > 100_000) plusYearsCache.clear();
    plusYearsCache.set(cacheKey, threshold);
  }
  return disposedDate > threshold ? 'long' : 'short';
}
