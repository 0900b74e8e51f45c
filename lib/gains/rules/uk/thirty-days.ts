/**
 * HMRC identification's 30-day rule looks past the period: a disposal on the period's last day is
 * matched with the acquisitions of the next 30 days (TCGA 1992 s 106A). A tax-year export that
 * stopped at 5 April would lose those matches, so the history is fetched, and given to the engine,
 * through the 30 days after the period's last day; the reports still keep to the period.
 */
import { DateTime } from 'luxon';

/**
 * The end of the 30 days after the last day of a period ending at `periodEnd` (exclusive): local
 * midnight, in `timeZone` (the zone of the matching days), after the 30th day.
 */
export function matchingHorizon(periodEnd: Date, timeZone: string): Date {
  const lastDay = DateTime.fromMillis(periodEnd.getTime() - 1, { zone: timeZone }).startOf('day');
  return lastDay.plus({ days: 31 }).toJSDate();
}
