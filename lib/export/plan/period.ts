/**
 * The reporting period of an export: a calendar month, a calendar year or an inclusive range of
 * calendar days, always read as local calendar days in the request's time zone.
 */
import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.ts';

/** A validated period as it appears in an export request: `YYYY-MM`, `YYYY` or a day range. */
export type Period = string | { from: string; to: string };

/** A period taken apart by kind. */
export type PeriodParts =
  | { kind: 'month'; year: number; month: number }
  | { kind: 'year'; year: number }
  | { kind: 'range'; from: CalendarDay; to: CalendarDay };

/** A calendar day without a zone. */
export interface CalendarDay {
  year: number;
  month: number;
  day: number;
}

const YEAR = /^(\d{4})$/;
const MONTH = /^(\d{4})-(\d{2})$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses `YYYY-MM-DD` into a calendar day; `null` when malformed or impossible (2025-02-30). */
export function parseCalendarDay(text: string): CalendarDay | null {
  const match = DAY.exec(text);
  if (match === null) return null;
  const day = { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) };
  return DateTime.fromObject(day, { zone: 'UTC' }).isValid ? day : null;
}

function compareDays(a: CalendarDay, b: CalendarDay): number {
  return a.year - b.year || a.month - b.month || a.day - b.day;
}

/**
 * Explains what is wrong with a period, or returns `null` when it is valid. The path is relative
 * to the period (`[]`, `['from']`, `['to']`).
 */
export function periodProblem(value: unknown): { path: string[]; reason: string } | null {
  if (typeof value === 'string') {
    if (YEAR.test(value)) return null;
    const month = MONTH.exec(value);
    if (month !== null) {
      const m = Number(month[2]);
      return m >= 1 && m <= 12 ? null : { path: [], reason: `month ${month[2]} does not exist` };
    }
    return { path: [], reason: 'expected a month "YYYY-MM", a year "YYYY" or {from, to}' };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { path: [], reason: 'expected a month "YYYY-MM", a year "YYYY" or {from, to}' };
  }
  const record = value as Record<string, unknown>;
  const unknownKey = Object.keys(record).find((key) => key !== 'from' && key !== 'to');
  if (unknownKey !== undefined) return { path: [unknownKey], reason: 'unrecognized key' };
  const days: CalendarDay[] = [];
  for (const key of ['from', 'to'] as const) {
    const text = record[key];
    if (text === undefined) return { path: [key], reason: 'required' };
    const day = typeof text === 'string' ? parseCalendarDay(text) : null;
    if (day === null) return { path: [key], reason: 'expected an existing calendar day "YYYY-MM-DD"' };
    days.push(day);
  }
  const [from, to] = days as [CalendarDay, CalendarDay];
  return compareDays(from, to) <= 0 ? null : { path: ['to'], reason: 'must not be before from' };
}

/** Takes a valid period apart; throws `ValidationError` on `period` for an invalid one. */
export function parsePeriod(period: Period): PeriodParts {
  const problem = periodProblem(period);
  if (problem !== null) {
    throw new ValidationError(['period', ...problem.path].join('.'), problem.reason);
  }
  if (typeof period === 'string') {
    const month = MONTH.exec(period);
    if (month !== null) return { kind: 'month', year: Number(month[1]), month: Number(month[2]) };
    return { kind: 'year', year: Number(period) };
  }
  return {
    kind: 'range',
    from: parseCalendarDay(period.from) as CalendarDay,
    to: parseCalendarDay(period.to) as CalendarDay,
  };
}

/** The first instant of a local calendar day (midnight, or later where DST skips midnight). */
function startOfLocalDay(day: CalendarDay, timeZone: string): DateTime {
  return DateTime.fromObject(day, { zone: timeZone }).startOf('day');
}

/**
 * The period as instants in `timeZone`: `start` inclusive, `end` exclusive, both at the start of a
 * local calendar day (a month in Europe/Berlin starts at 22:00 or 23:00 UTC the day before).
 */
export function periodRange(period: Period, timeZone: string): { start: DateTime; end: DateTime } {
  const parts = parsePeriod(period);
  switch (parts.kind) {
    case 'month': {
      const first = { year: parts.year, month: parts.month, day: 1 };
      const next =
        parts.month === 12
          ? { year: parts.year + 1, month: 1, day: 1 }
          : { ...first, month: parts.month + 1 };
      return { start: startOfLocalDay(first, timeZone), end: startOfLocalDay(next, timeZone) };
    }
    case 'year':
      return {
        start: startOfLocalDay({ year: parts.year, month: 1, day: 1 }, timeZone),
        end: startOfLocalDay({ year: parts.year + 1, month: 1, day: 1 }, timeZone),
      };
    case 'range': {
      const after = DateTime.fromObject(parts.to, { zone: 'UTC' }).plus({ days: 1 });
      return {
        start: startOfLocalDay(parts.from, timeZone),
        end: startOfLocalDay({ year: after.year, month: after.month, day: after.day }, timeZone),
      };
    }
  }
}

/**
 * When the period is not over at `at` (its end, in `timeZone`, is later): the cut-off of an
 * export made then, `at` itself, since the data holds only what the service had by then; `null`
 * for a period that is over. A report of an open period is a partial one and says so.
 */
export function openPeriodCutOff(period: Period, timeZone: string, at: Date): Date | null {
  return periodRange(period, timeZone).end.toMillis() > at.getTime() ? at : null;
}

/** A file-path-safe label of the period: `2026-10`, `2026` or `2026-01-05_2026-02-10`. */
export function periodLabel(period: Period): string {
  parsePeriod(period);
  return typeof period === 'string' ? period : `${period.from}_${period.to}`;
}

/** Hours 00-23 (no `24:00`), minutes and seconds 00-59, offsets of at most ±14:59 (real zones: −12 … +14). */
const INSTANT =
  /^\d{4}-\d{2}-\d{2}T([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-](?:0\d|1[0-4]):?[0-5]\d)$/i;

/**
 * Whether `text` is an ISO calendar day (`YYYY-MM-DD`) or an ISO instant with an explicit offset
 * (`2025-03-14T09:26:53.000Z`, `…+01:00`). An instant without an offset is refused as ambiguous,
 * and so are `24:00` and offsets no zone has (`+25:00`).
 */
export function isDayOrInstant(text: string): boolean {
  if (parseCalendarDay(text) !== null) return true;
  return INSTANT.test(text) && DateTime.fromISO(text, { setZone: true }).isValid;
}

/**
 * The instant a `changesSince` value denotes: an instant as given, a calendar day at its start
 * in `timeZone`. Throws `ValidationError` on `changesSince` for anything else.
 */
export function resolveChangesSince(changesSince: string, timeZone: string): Date {
  const day = parseCalendarDay(changesSince);
  if (day !== null) return startOfLocalDay(day, timeZone).toJSDate();
  if (!isDayOrInstant(changesSince)) {
    throw new ValidationError('changesSince', 'expected an ISO date or an ISO instant with offset');
  }
  return DateTime.fromISO(changesSince, { setZone: true }).toJSDate();
}
