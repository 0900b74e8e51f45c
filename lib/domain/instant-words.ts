/**
 * An instant as an accountant reads it (issue 42 follow-up): a day in the period's time zone, not
 * the UTC instant the manifest's machine fields keep. The reconciliation's notes, its warnings,
 * the tax pack and `verify`'s findings all say their instants through this one helper.
 */
import { DateTime } from 'luxon';

/** Which side of a day boundary the instant is read as: a period's start, or its end. */
export type DayEdge = 'start' | 'end';

/**
 * `iso` in `timeZone`, in words. At the start of a local day (a period's bound): `the start of
 * 2025-01-01 (Europe/Berlin)` read as a start, `the end of 2024-12-31 (Europe/Berlin)` read as an
 * end; any other instant (a period not over, reconciled when the export started) as its local
 * date and time: `2025-02-14 10:32:07 (Europe/Berlin)`. Text that is no instant is returned as it is.
 */
export function instantWords(iso: string, timeZone: string, edge: DayEdge): string {
  const local = DateTime.fromISO(iso, { setZone: true }).setZone(timeZone);
  if (!local.isValid) return iso;
  if (local.startOf('day').toMillis() !== local.toMillis()) {
    return `${local.toFormat('yyyy-MM-dd HH:mm:ss')} (${timeZone})`;
  }
  return edge === 'start'
    ? `the start of ${local.toISODate()} (${timeZone})`
    : `the end of ${local.minus({ days: 1 }).toISODate()} (${timeZone})`;
}
