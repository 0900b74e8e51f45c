/**
 * The About sheet's and the run summary's labels in words a person reads: what each count
 * counts, that a value total is turnover (not what the portfolio holds), request fields without
 * their camelCase, and windows as the calendar days they cover. The manifest keeps its keys.
 */
import { DateTime } from 'luxon';

/** What each count of a run counts, by its manifest key. */
const COUNT_WORDS: Record<string, string> = {
  transactions: 'Transactions in the period (rows of the transactions report)',
  duplicatesDropped: 'Duplicate copies of a transaction dropped (the service sent them twice)',
  conflictingCopies: 'Transactions the service sent twice with different contents',
  outsideWindowDropped: 'Transactions dropped because they lay outside the window asked for',
  keptFromOtherWindow: 'Transactions kept though the service sent them with another window',
  changes:
    'Changes to transactions the timeline reported since the "since" date (rows of the changes report)',
  changesBeforeSinceDropped: 'Changes dropped because they were older than the "since" date',
  historyTransactions:
    'Transactions of the whole history read for the gains (all years, not only the period)',
  gainsLotsMatched: 'Gains: lots matched to disposals over the whole history (all years)',
  gainsDisposals:
    'Gains: disposals over the whole history (all years; the Disposals sheet and file list those of the period)',
  gainsWarnings: 'Gains: warnings over the whole history (the Warnings sheet and file list each one)',
};

/** `someKey` as `some key`. */
export function keyWords(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/** The label of count `key`: what it counts, in words. */
export function countWords(key: string): string {
  return COUNT_WORDS[key] ?? `Count of ${keyWords(key)}`;
}

/**
 * The label of a total of the run summary (`value (USD)`, `fees (USD)`): the value total adds
 * every transaction's value, so it is turnover, not what the portfolio is worth.
 */
export function totalWords(name: string): string {
  const match = /^(value|fees)(?: \((.+)\))?$/.exec(name);
  if (match === null) return name;
  const unit = match[2] === undefined ? '' : ` (${match[2]})`;
  return match[1] === 'value'
    ? `Turnover: value of all transactions in the period${unit}, not holdings`
    : `Fees paid in the period${unit}`;
}

/**
 * A window as the calendar days it covers in `timeZone` (its end is exclusive: the last day is
 * the one before it), then its instants: `2025-12-01 to 2025-12-31 (2025-12-01T00:00:00.000Z up
 * to 2026-01-01T00:00:00.000Z, not included)`.
 */
export function windowWords(start: string, end: string, timeZone: string): string {
  const day = (iso: string) => DateTime.fromISO(iso, { zone: timeZone }).toISODate() ?? iso;
  const lastDay = DateTime.fromISO(end, { zone: timeZone }).minus({ milliseconds: 1 }).toISO() ?? end;
  return `${day(start)} to ${day(lastDay)} (${start} up to ${end}, not included)`;
}
