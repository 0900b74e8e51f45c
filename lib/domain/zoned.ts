import { IANAZone } from 'luxon';

const QUARTER_HOUR_MS = 15 * 60 * 1000;
const CACHE_LIMIT = 100_000;
const offsets = new Map<string, Map<number, number>>();
const UTC_NAMES = new Set(['UTC', 'Etc/UTC', 'Etc/Universal', 'Universal', 'Zulu', 'Etc/Zulu']);
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?Z$/;

/** Whether `zone` is UTC itself (shown with `Z`), not merely a zone at offset zero. */
export function isUtcZone(zone: string): boolean {
  return UTC_NAMES.has(zone);
}

/**
 * Offset of `zone` from UTC at instant `ms`, in minutes. Offsets are cached per quarter hour of
 * UTC time: since 1970 every zone changes its offset on a quarter-hour boundary, and a report
 * converts the same few offsets millions of times.
 */
export function offsetMinutes(ms: number, zone: string): number {
  if (isUtcZone(zone)) return 0;
  let cache = offsets.get(zone);
  if (cache === undefined) {
    cache = new Map();
    offsets.set(zone, cache);
  }
  const bucket = Math.floor(ms / QUARTER_HOUR_MS);
  let offset = cache.get(bucket);
  if (offset === undefined) {
    offset = IANAZone.create(zone).offset(ms);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(bucket, offset);
  }
  return offset;
}

/** The local wall-clock time of `ms` in `zone`, as a Date whose UTC fields show it. */
export function wallClock(ms: number, zone: string): Date {
  return new Date(wallClockMillis(ms, zone));
}

/** Past this many milliseconds from 1970 a Date is invalid (ECMAScript's TimeClip). */
const MAX_DATE_MS = 8.64e15;

/**
 * {@link wallClock}'s time value without the Date: the epoch milliseconds whose UTC fields show
 * the local wall-clock time of `ms` in `zone` (whole milliseconds, NaN out of a Date's range, as
 * `new Date(…).getTime()` gives).
 */
export function wallClockMillis(ms: number, zone: string): number {
  const local = ms + offsetMinutes(ms, zone) * 60_000;
  // TimeClip: NaN past the range, else the integer towards zero (and +0 for -0).
  return Math.abs(local) > MAX_DATE_MS ? Number.NaN : Math.trunc(local) + 0;
}

/** ISO-8601 with milliseconds in `zone`: `…Z` for UTC, else the offset, e.g. `…+01:00`. */
export function isoInZone(ms: number, zone: string): string {
  if (isUtcZone(zone)) return new Date(ms).toISOString();
  const offset = offsetMinutes(ms, zone);
  const local = new Date(ms + offset * 60_000).toISOString().slice(0, 23);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  return `${local}${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * Milliseconds of an ISO-8601 instant; the common `…Z` form without a parser library. Returns
 * NaN when `text` is not in that form (callers fall back to a full ISO parser).
 */
export function fastUtcInstant(text: string): number {
  return ISO_UTC.test(text) ? Date.parse(text) : Number.NaN;
}
