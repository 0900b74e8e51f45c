/**
 * The one reading of the service's instants (transaction dates, `lastModifiedDate`, date-bounds),
 * used by every stage: validation at the edge, the fetch's part lines, the windows, the reports.
 *
 * Where the specification is silent (GAPS.md: "ISO-8601 UTC instants with milliseconds and `Z`"),
 * an instant is read only when it says which instant it is: ISO text with an offset (`Z`,
 * `+01:00`), or, when the deployment names the zone the service writes its wall-clock times in
 * (`shape.instants.offsetlessZone`), ISO text without one. A JSON number counts in the configured
 * epoch unit and must land between 2009 and 2100, so epoch seconds read as milliseconds (1970) or
 * milliseconds read as seconds (year 56 000) are refused instead of silently misplaced. Never
 * `Date.parse` (whose offset-less reading is the machine's own zone) and never a guess.
 */
import { DateTime, IANAZone } from 'luxon';

/** How the service writes instants (the shape's `instants`). */
export interface InstantReading {
  /**
   * IANA zone of ISO instants written without an offset (`2025-10-31T22:00:00`); `null`, the
   * default, refuses them, as the machine's zone would otherwise decide which instant they are.
   */
  offsetlessZone: string | null;
  /** Unit of instants sent as JSON numbers. Default `milliseconds` (GAPS.md's epoch format). */
  epochUnit: 'milliseconds' | 'seconds';
}

/** The default reading: offsets required, epoch numbers in milliseconds. */
export const DEFAULT_INSTANT_READING: InstantReading = Object.freeze({
  offsetlessZone: null,
  epochUnit: 'milliseconds',
});

/** Epoch instants before this (2009-01-01, the year of the first crypto-asset block) are implausible. */
export const EARLIEST_PLAUSIBLE_MS = Date.UTC(2009, 0, 1);
/** Epoch instants from this (2100-01-01) on are implausible. */
export const LATEST_PLAUSIBLE_MS = Date.UTC(2100, 0, 1);

const HOUR_MS = 3_600_000;

/** An instant read, or why it could not be. */
export type InstantResult = { ok: true; ms: number } | { ok: false; reason: string };

/** `2025-03-14T09:26:53.000Z`: the GAPS.md default, read without luxon. */
const UTC_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** ISO-8601 date and time (`T` or one space), optional seconds and fraction, optional offset. */
const ISO_DATE_TIME =
  /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:[.,]\d{1,9})?)?)(Z|[+-]\d{2}(?::?\d{2})?)?$/i;
/** ISO calendar date. */
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Reads one instant the service sent. Offset-less text needs `offsetlessZone`; numbers count in
 * `epochUnit` and must be plausible (2009 … 2099). Fractions beyond milliseconds are cut.
 */
export function readInstant(
  value: unknown,
  reading: InstantReading = DEFAULT_INSTANT_READING,
): InstantResult {
  if (typeof value === 'number') return readEpoch(value, reading);
  if (typeof value !== 'string')
    return { ok: false, reason: 'expected an ISO-8601 instant or an epoch number' };
  if (UTC_MILLIS.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return { ok: true, ms };
  }
  const match = ISO_DATE_TIME.exec(value);
  if (match === null) {
    return ISO_DATE.test(value)
      ? { ok: false, reason: `${JSON.stringify(value)} is a calendar date, not an instant` }
      : { ok: false, reason: `${JSON.stringify(value)} is not an ISO-8601 instant` };
  }
  const [, day, time, offset] = match;
  const text = `${day}T${(time as string).replace(',', '.')}${offset ?? ''}`;
  if (offset === undefined && reading.offsetlessZone === null) {
    return {
      ok: false,
      reason: `${JSON.stringify(value)} has no offset (Z or ±hh:mm), so it names no instant; set shape.instants.offsetlessZone to the zone the service writes it in`,
    };
  }
  const parsed =
    offset === undefined
      ? DateTime.fromISO(text, { zone: reading.offsetlessZone as string })
      : DateTime.fromISO(text, { setZone: true });
  if (!parsed.isValid) return { ok: false, reason: `${JSON.stringify(value)} is not a valid date and time` };
  return { ok: true, ms: parsed.toMillis() };
}

function readEpoch(value: number, reading: InstantReading): InstantResult {
  if (!Number.isFinite(value)) return { ok: false, reason: 'is not a finite number' };
  // Seconds with a fraction are rounded to the millisecond: `x.123 * 1000` is not exact in binary.
  const ms = reading.epochUnit === 'seconds' ? Math.round(value * 1000) : Math.floor(value);
  if (ms >= EARLIEST_PLAUSIBLE_MS && ms < LATEST_PLAUSIBLE_MS) return { ok: true, ms };
  const other = reading.epochUnit === 'seconds' ? 'milliseconds' : 'seconds';
  const otherMs = other === 'seconds' ? value * 1000 : value;
  const hint =
    otherMs >= EARLIEST_PLAUSIBLE_MS && otherMs < LATEST_PLAUSIBLE_MS
      ? `; it looks like epoch ${other}: set shape.instants.epochUnit to "${other}"`
      : '';
  const shown = Number.isNaN(new Date(ms).getTime()) ? 'out of range' : new Date(ms).toISOString();
  return {
    ok: false,
    reason: `${value} read as epoch ${reading.epochUnit} is ${shown}, outside 2009 … 2099 (implausible)${hint}`,
  };
}

/** Reads one instant as epoch milliseconds, or `NaN` when {@link readInstant} refuses it. */
export function instantMillis(value: unknown, reading: InstantReading = DEFAULT_INSTANT_READING): number {
  const result = readInstant(value, reading);
  return result.ok ? result.ms : Number.NaN;
}

/**
 * The span a date-bound denotes: an instant is itself; a calendar date (`2025-10-31`) is its whole
 * day: in `offsetlessZone` when one is configured, else in every zone (from its start at UTC+14 to
 * its end at UTC−12), so a plan built on it never stops before the last transaction of that day.
 */
export function readBound(
  value: unknown,
  reading: InstantReading = DEFAULT_INSTANT_READING,
): { ok: true; first: number; last: number } | { ok: false; reason: string } {
  if (typeof value === 'string' && ISO_DATE.test(value)) {
    const zone = reading.offsetlessZone ?? 'UTC';
    const start = DateTime.fromISO(value, { zone });
    if (!start.isValid) return { ok: false, reason: `${JSON.stringify(value)} is not a calendar date` };
    const end = start.plus({ days: 1 });
    // Without a zone the day is taken in every zone: it starts first at UTC+14, ends last at UTC−12.
    const earlier = reading.offsetlessZone === null ? 14 * HOUR_MS : 0;
    const later = reading.offsetlessZone === null ? 12 * HOUR_MS : 0;
    return { ok: true, first: start.toMillis() - earlier, last: end.toMillis() + later - 1 };
  }
  const result = readInstant(value, reading);
  return result.ok ? { ok: true, first: result.ms, last: result.ms } : result;
}

/** Checks a configured reading; returns the field and reason of the first problem, or null. */
export function instantReadingProblem(
  reading: Partial<InstantReading>,
): { field: string; reason: string } | null {
  const zone = reading.offsetlessZone;
  if (zone !== undefined && zone !== null && !IANAZone.isValidZone(zone)) {
    return {
      field: 'shape.instants.offsetlessZone',
      reason: `${JSON.stringify(zone)} is not an IANA time zone`,
    };
  }
  const unit = reading.epochUnit;
  if (unit !== undefined && unit !== 'milliseconds' && unit !== 'seconds') {
    return { field: 'shape.instants.epochUnit', reason: 'must be "milliseconds" or "seconds"' };
  }
  return null;
}
