import type { DateFormat } from '../pbs/index.ts';
import { badParameter } from './errors.ts';

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?Z$/;
const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

function utc(y: string, mo: string, d: string, h = '0', mi = '0', s = '0', ms = '0'): number | null {
  const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const millis = Number(ms.padEnd(3, '0'));
  const value = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const back = new Date(value);
  // Reject values Date.UTC silently rolls over, such as month 13 or 25:00.
  if (
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    back.getUTCHours() !== hour ||
    back.getUTCMinutes() !== minute ||
    back.getUTCSeconds() !== second
  ) {
    return null;
  }
  return value;
}

/**
 * Parses a date query parameter written as `format` into epoch ms. For `iso-date` the value is
 * the start of that UTC day (use `endOfDay` for an inclusive end). Throws a 400 naming `name`.
 */
export function parseDateParam(name: string, text: string, format: DateFormat): number {
  let value: number | null = null;
  if (format === 'iso-instant') {
    const m = INSTANT.exec(text);
    if (m) value = utc(m[1] ?? '', m[2] ?? '', m[3] ?? '', m[4], m[5], m[6], m[7]);
  } else if (format === 'iso-date') {
    const m = DAY.exec(text);
    if (m) value = utc(m[1] ?? '', m[2] ?? '', m[3] ?? '');
  } else if (/^\d{1,16}$/.test(text)) {
    value = Number(text);
    if (!Number.isSafeInteger(value)) value = null;
  }
  if (value === null) throw badParameter(name, `expected ${describeFormat(format)}, got "${text}"`);
  return value;
}

/** The exclusive end of an inclusive whole UTC day that starts at `dayStartMs`. */
export function endOfDay(dayStartMs: number): number {
  return dayStartMs + DAY_MS;
}

function describeFormat(format: DateFormat): string {
  if (format === 'iso-instant') return 'an ISO-8601 UTC instant such as 2025-03-14T09:26:53.000Z';
  if (format === 'iso-date') return 'an ISO date such as 2025-03-14';
  return 'milliseconds since the Unix epoch as a decimal integer';
}
