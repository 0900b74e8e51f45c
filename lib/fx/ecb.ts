/**
 * The ECB's euro foreign exchange reference rates, in the layouts the ECB publishes them
 * (https://www.ecb.europa.eu/stats/policy_and_exchange_rates/euro_reference_exchange_rates/html/index.en.html):
 *
 * - `eurofxref-hist.csv` (inside `eurofxref-hist.zip`): a header `Date,USD,JPY,…,` then one line
 *   per publication day, newest first, `2024-03-18,1.0872,162.43,…,`; `N/A` where a currency was
 *   not quoted that day; every line ends with a comma.
 * - `eurofxref.csv` (inside `eurofxref.zip`), the latest day: `Date, USD, JPY, …, ` then
 *   `18 March 2024, 1.0872, 162.43, …, `.
 * - `eurofxref-daily.xml`, `eurofxref-hist-90d.xml`, `eurofxref-hist.xml`: a `gesmes:Envelope`
 *   whose `Cube` holds one `<Cube time="2024-03-18">` per day, each with
 *   `<Cube currency="USD" rate="1.0872"/>` per currency.
 *
 * Every rate is units of the currency per 1 EUR, kept exactly as published.
 */
import { readCsvRecords } from '../csv-records.ts';
import type { ParsedRates, RatePeriod } from './table.ts';
import { dayText, rateText, xmlElements } from './text.ts';

/** Whether `text` looks like one of the ECB's CSV files (its first cell is `Date`). */
export function isEcbCsv(text: string): boolean {
  return /^\uFEFF?Date\s*,/.test(text);
}

/** Whether `text` looks like one of the ECB's XML files. */
export function isEcbXml(text: string): boolean {
  return /<gesmes:Envelope[\s>]/.test(text);
}

/** Parses an ECB CSV file (history or daily). Throws an `Error` naming the line at fault. */
export function parseEcbCsv(text: string): ParsedRates {
  const [header, ...rows] = readCsvRecords(text);
  if (header === undefined || header.cells[0]?.trim() !== 'Date')
    throw new Error('the first line is not the "Date,USD,…" header');
  const currencies = header.cells.slice(1).map((cell) => cell.trim());
  const periods: RatePeriod[] = [];
  for (const { cells: row, line } of rows) {
    const day = dayText(row[0] ?? '');
    if (day === null) throw new Error(`line ${line}: ${JSON.stringify(row[0] ?? '')} is not a date`);
    if (
      row.some((cell, column) => column > 0 && cell.trim() !== '' && (currencies[column - 1] ?? '') === '')
    ) {
      throw new Error(`line ${line}: more values than the header names currencies`);
    }
    const rates = new Map<string, string>();
    currencies.forEach((currency, column) => {
      const cell = (row[column + 1] ?? '').trim();
      if (currency === '' || cell === '' || cell === 'N/A') return;
      if (!/^[A-Z]{3}$/.test(currency))
        throw new Error(
          `the header's column ${column + 2} (${JSON.stringify(currency)}) is not a currency code`,
        );
      const rate = rateText(cell);
      if (rate === null)
        throw new Error(`line ${line}: ${currency} ${JSON.stringify(cell)} is not a positive rate`);
      rates.set(currency, rate);
    });
    periods.push({ first: day, last: day, rates });
  }
  if (periods.length === 0) throw new Error('no line of rates under the header');
  return {
    source: 'ecb',
    format: /^\d{4}-/.test(rows[0]?.cells[0] ?? '') ? 'ecb-hist-csv' : 'ecb-daily-csv',
    periods,
  };
}

/** Parses an ECB XML file (daily, 90 days or the whole history). */
export function parseEcbXml(text: string): ParsedRates {
  const periods: RatePeriod[] = [];
  let current: { day: string; rates: Map<string, string> } | null = null;
  for (const element of xmlElements(text)) {
    if (element.name !== 'Cube') continue;
    const { time, currency, rate } = element.attributes;
    if (time !== undefined) {
      const day = dayText(time);
      if (day === null) throw new Error(`<Cube time="${time}"> is not a date`);
      current = { day, rates: new Map() };
      periods.push({ first: day, last: day, rates: current.rates });
    } else if (currency !== undefined) {
      if (current === null) throw new Error(`<Cube currency="${currency}"> outside a <Cube time="…">`);
      const published = rateText(rate ?? '');
      if (!/^[A-Z]{3}$/.test(currency) || published === null) {
        throw new Error(
          `${current.day}: <Cube currency="${currency}" rate="${rate ?? ''}"> is not a currency and a positive rate`,
        );
      }
      current.rates.set(currency, published);
    }
  }
  if (periods.length === 0) throw new Error('no <Cube time="…"> in the gesmes:Envelope');
  return { source: 'ecb', format: 'ecb-xml', periods };
}
