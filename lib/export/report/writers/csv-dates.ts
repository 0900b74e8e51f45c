/**
 * How the CSV writer shows an instant, in both dialects: the wall time of the column's zone as an
 * ISO-8601 local date-time, `2025-10-01T00:36:46.000` (decimal comma in the European dialect:
 * `2025-10-01T00:36:46,000`, which ISO 8601 allows too), and for a column in a zone other than
 * UTC a companion column `<key>_utc_offset` right after it with the offset of that instant
 * (`UTC+02:00`). LibreOffice imports this form as a date in en-US and de-DE alike, with and
 * without "detect special numbers", which an instant with an offset or `Z` never is (it stays
 * text); the companion keeps the instant recoverable, the two instants of a fall-back hour too.
 * Pure functions, called once per cell.
 */
import type { Column } from '../../../domain/index.ts';
import { isUtcZone, offsetMinutes } from '../../../domain/index.ts';

/** Suffix of the key of a datetime column's companion offset column. */
export const OFFSET_SUFFIX = '_utc_offset';

/** The zone a datetime column is shown in (no zone: UTC). */
export function columnZone(column: Column): string {
  return column.timeZone ?? 'UTC';
}

/** Whether the CSV shows `column` with a companion offset column: a datetime column not in UTC. */
export function hasOffsetColumn(column: Column): boolean {
  return column.kind === 'datetime' && !isUtcZone(columnZone(column));
}

/** The header keys `column` takes in the CSV: its key, and its offset column's where it has one. */
export function csvHeaderKeys(column: Column): string[] {
  return hasOffsetColumn(column) ? [column.key, `${column.key}${OFFSET_SUFFIX}`] : [column.key];
}

/**
 * Instant `ms` as the wall time of `zone`, ISO-8601 local date-time with milliseconds and no
 * offset: `2025-10-01T00:36:46.000`, with `decimalSeparator` before the milliseconds.
 */
export function csvLocalDateTime(ms: number, zone: string, decimalSeparator: '.' | ','): string {
  const wall = new Date(ms + offsetMinutes(ms, zone) * 60_000).toISOString();
  return decimalSeparator === '.' ? wall.slice(0, 23) : `${wall.slice(0, 19)},${wall.slice(20, 23)}`;
}

/**
 * The offset of `zone` from UTC at instant `ms`, as `UTC+02:00` / `UTC-05:00` / `UTC+00:00`: text
 * in any spreadsheet (a bare `+02:00` would be read as a time, or guarded as a formula).
 */
export function utcOffsetText(ms: number, zone: string): string {
  const offset = offsetMinutes(ms, zone);
  const abs = Math.abs(offset);
  const hours = String(Math.floor(abs / 60)).padStart(2, '0');
  const minutes = String(abs % 60).padStart(2, '0');
  return `UTC${offset < 0 ? '-' : '+'}${hours}:${minutes}`;
}
