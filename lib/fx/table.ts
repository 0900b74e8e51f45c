/**
 * Published exchange rates as one table: periods (an ECB publication day, an HMRC month), each
 * with the rates of that period as published ("units of a currency per 1 unit of the base"), and
 * the lookup of a currency's rate on a calendar day.
 */
import { compareDecimal } from '../domain/index.ts';
import { MissingRateError, RatesFileError } from './errors.ts';

/** Who published the rates: the ECB's euro reference rates, or HMRC's monthly exchange rates. */
export type RateSource = 'ecb' | 'hmrc';

/** The sources a request may name. */
export const RATE_SOURCES = ['ecb', 'hmrc'] as const satisfies readonly RateSource[];

/** The currency each source quotes against. */
export const BASE_CURRENCY: Readonly<Record<RateSource, string>> = { ecb: 'EUR', hmrc: 'GBP' };

/** The source in words, as the Read me and the conversions file name it. */
export const SOURCE_NAMES: Readonly<Record<RateSource, string>> = {
  ecb: 'ECB euro foreign exchange reference rates (units per 1 EUR)',
  hmrc: 'HMRC monthly exchange rates (currency units per £1)',
};

/**
 * Most calendar days an ECB lookup goes back from a day without a publication (a weekend or a
 * TARGET holiday) to the latest earlier publication day. The longest regular gap, Easter, needs 4.
 */
export const ECB_FALLBACK_DAYS = 7;

/** One period of published rates: `first` to `last`, calendar days (`YYYY-MM-DD`), both included. */
export interface RatePeriod {
  first: string;
  last: string;
  /** Currency code → rate as published (exact decimal text), units of the currency per 1 base unit. */
  rates: ReadonlyMap<string, string>;
}

/** One file as parsed: its source, the layout it was read as and its periods. */
export interface ParsedRates {
  source: RateSource;
  /** The published layout it was read as, e.g. `ecb-hist-csv`, `hmrc-xml`. */
  format: string;
  periods: RatePeriod[];
}

/** A rates file given to a run: its name and SHA-256 (the request and manifest record them). */
export interface RatesFileInfo {
  name: string;
  sha256: string;
  format: string;
}

/** Every rate of a run, from one source, periods in order and not overlapping. */
export interface RateTable {
  source: RateSource;
  base: string;
  periods: readonly RatePeriod[];
  files: readonly RatesFileInfo[];
}

/** A currency's rate as used for one day: the rate as published and the period it was published for. */
export interface RateQuote {
  currency: string;
  /** Units of `currency` per 1 unit of the base, exactly as published (`1` for the base itself). */
  perBase: string;
  /** The publication day (ECB) or the month's first and last day (HMRC), as the conversions file shows it. */
  of: string;
}

/**
 * Merges parsed files of one source into a table. The same period in two files (the ECB's history
 * and its daily file) merges when their rates agree; a rate published differently for one period
 * and currency, or periods that overlap without being the same, are refused naming the file.
 */
export function mergeRates(files: readonly { info: RatesFileInfo; parsed: ParsedRates }[]): RateTable {
  const first = files[0];
  if (first === undefined) throw new RatesFileError('(none)', 'no rates file given');
  const source = first.parsed.source;
  const byFirst = new Map<string, { period: RatePeriod; rates: Map<string, string> }>();
  for (const { info, parsed } of files) {
    if (parsed.source !== source) {
      throw new RatesFileError(
        info.name,
        `holds ${parsed.source.toUpperCase()} rates, but ${first.info.name} holds ${source.toUpperCase()} rates: give files of one source`,
      );
    }
    for (const period of parsed.periods) mergePeriod(byFirst, period, info.name);
  }
  const periods = [...byFirst.values()]
    .map(({ period, rates }) => ({ ...period, rates }))
    .sort((a, b) => (a.first < b.first ? -1 : 1));
  for (let i = 1; i < periods.length; i++) {
    const before = periods[i - 1] as RatePeriod;
    const period = periods[i] as RatePeriod;
    if (period.first <= before.last) {
      throw new RatesFileError(
        files.map((file) => file.info.name).join(', '),
        `the periods ${before.first} to ${before.last} and ${period.first} to ${period.last} overlap`,
      );
    }
  }
  return { source, base: BASE_CURRENCY[source], periods, files: files.map((file) => file.info) };
}

function mergePeriod(
  byFirst: Map<string, { period: RatePeriod; rates: Map<string, string> }>,
  period: RatePeriod,
  file: string,
): void {
  const known = byFirst.get(period.first);
  if (known === undefined) {
    byFirst.set(period.first, { period, rates: new Map(period.rates) });
    return;
  }
  if (known.period.last !== period.last) {
    throw new RatesFileError(
      file,
      `the period from ${period.first} ends on ${period.last} here, ${known.period.last} in another file`,
    );
  }
  for (const [currency, rate] of period.rates) {
    const other = known.rates.get(currency);
    if (other !== undefined && compareDecimal(other, rate) !== 0) {
      throw new RatesFileError(
        file,
        `${currency} on ${period.first} is ${rate} here, ${other} in another file`,
      );
    }
    known.rates.set(currency, other ?? rate);
  }
}

/** Days from `a` to `b` (`YYYY-MM-DD`), positive when `b` is later. */
function daysBetween(a: string, b: string): number {
  return Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / 86_400_000);
}

/** Index of the last period that starts on or before `day`, or -1. */
function periodAtOrBefore(periods: readonly RatePeriod[], day: string): number {
  let low = 0;
  let high = periods.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >> 1;
    if ((periods[mid] as RatePeriod).first <= day) {
      found = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  return found;
}

/**
 * The rate of `currency` on `day` (`YYYY-MM-DD`). HMRC: the rate of the month holding the day.
 * ECB: the rate published that day; on a day without a publication (weekend, holiday), the rate
 * of the latest earlier publication day, at most {@link ECB_FALLBACK_DAYS} back, and only when the
 * rates go on past the day (a file that ends before it cannot tell a holiday from a missing day).
 * The base currency's rate is 1. Throws {@link MissingRateError} naming the day and the currency.
 */
export function lookupRate(table: RateTable, currency: string, day: string): RateQuote {
  if (currency === table.base) return { currency, perBase: '1', of: day };
  const { periods } = table;
  const index = periodAtOrBefore(periods, day);
  const period = periods[index];
  const name = table.source.toUpperCase();
  const firstDay = periods[0]?.first ?? '';
  const lastDay = periods[periods.length - 1]?.last ?? '';
  if (period === undefined) {
    throw new MissingRateError(currency, day, `the ${name} rates given start on ${firstDay}`);
  }
  const inside = day <= period.last;
  if (!inside) {
    if (table.source === 'hmrc') {
      throw new MissingRateError(currency, day, `no HMRC monthly rates file given covers ${day.slice(0, 7)}`);
    }
    if (index === periods.length - 1) {
      throw new MissingRateError(currency, day, `the ECB rates given end on ${lastDay}`);
    }
    if (daysBetween(period.last, day) > ECB_FALLBACK_DAYS) {
      throw new MissingRateError(
        currency,
        day,
        `the ECB rates given have no publication day in the ${ECB_FALLBACK_DAYS} days up to it (the latest before is ${period.last})`,
      );
    }
  }
  const rate = period.rates.get(currency);
  if (rate === undefined) {
    throw new MissingRateError(
      currency,
      day,
      `the ${name} rates of ${describePeriod(table, period)} have none for ${currency}`,
    );
  }
  return { currency, perBase: rate, of: describePeriod(table, period) };
}

function describePeriod(table: RateTable, period: RatePeriod): string {
  return table.source === 'ecb' ? period.first : `${period.first} to ${period.last}`;
}
