/**
 * HMRC's monthly exchange rates, in the layouts HMRC publishes them on the UK Trade Tariff
 * service (https://www.trade-tariff.service.gov.uk/exchange_rates; files
 * `/api/v2/exchange_rates/files/monthly_xml_2024-05.xml`, `monthly_csv_2024-05.csv`; earlier
 * years on the National Archives' copy of hmrc.gov.uk, `exrates-monthly-0524.xml`), one file a month:
 *
 * - XML: `<exchangeRateMonthList Period="01/May/2024 to 31/May/2024">` holding one
 *   `<exchangeRate>` per country with `countryName`, `countryCode`, `currencyName`,
 *   `currencyCode`, `rateNew`.
 * - CSV with the XML's fields: `Period,countryName,countryCode,currencyName,currencyCode,rateNew`,
 *   the period written as in the XML.
 * - CSV of the Trade Tariff page: `Country/Territories,Currency,Currency Code,Currency Units per £1,Start date,End date`.
 *
 * Every rate is currency units per £1, kept exactly as published. A currency used by several
 * countries appears once per country; its rates must agree.
 */
import { readCsvRecords } from '../csv-records.ts';
import type { ParsedRates, RatePeriod } from './table.ts';
import { dayText, rateText, xmlElements } from './text.ts';

/** Whether `text` looks like HMRC's monthly XML. */
export function isHmrcXml(text: string): boolean {
  return /<exchangeRateMonthList[\s>]/.test(text);
}

/** Whether `text` looks like one of HMRC's monthly CSV layouts. */
export function isHmrcCsv(text: string): boolean {
  return /^\uFEFF?(Period,countryName|"?Country\/Territories"?,)/.test(text);
}

/** `01/May/2024 to 31/May/2024` → its first and last day. */
function periodOf(text: string): { first: string; last: string } {
  const [from, to, ...rest] = text.split(/\s+to\s+/);
  const first = dayText(from ?? '');
  const last = dayText(to ?? '');
  if (first === null || last === null || rest.length > 0 || last < first) {
    throw new Error(`${JSON.stringify(text)} is not a period "01/May/2024 to 31/May/2024"`);
  }
  return { first, last };
}

/** Adds a currency's rate to a month, refusing a second, different rate for it. */
function addRate(rates: Map<string, string>, currency: string, rate: string | null, where: string): void {
  if (!/^[A-Z]{3}$/.test(currency) || rate === null)
    throw new Error(`${where}: ${currency} has no currency code and positive rate`);
  const known = rates.get(currency);
  if (known !== undefined && known !== rate)
    throw new Error(`${where}: ${currency} is published as ${known} and as ${rate}`);
  rates.set(currency, rate);
}

/** Parses an HMRC monthly XML file. */
export function parseHmrcXml(text: string): ParsedRates {
  let period: { first: string; last: string } | null = null;
  const rates = new Map<string, string>();
  let code = '';
  for (const element of xmlElements(text)) {
    if (element.name === 'exchangeRateMonthList') period = periodOf(element.attributes.Period ?? '');
    else if (element.name === 'currencyCode') code = element.text;
    else if (element.name === 'rateNew') addRate(rates, code, rateText(element.text), 'exchangeRate');
  }
  if (period === null) throw new Error('no <exchangeRateMonthList Period="…">');
  if (rates.size === 0) throw new Error('no <exchangeRate> with a currencyCode and a rateNew');
  return { source: 'hmrc', format: 'hmrc-xml', periods: [{ ...period, rates }] };
}

/** Parses either of HMRC's monthly CSV layouts; a file may hold several months. */
export function parseHmrcCsv(text: string): ParsedRates {
  const [header, ...rows] = readCsvRecords(text);
  const names = (header?.cells ?? []).map((cell) => cell.trim());
  const column = (name: string) => names.indexOf(name);
  const tariff = column('Currency Units per £1') !== -1;
  const [codeAt, rateAt] = tariff
    ? [column('Currency Code'), column('Currency Units per £1')]
    : [column('currencyCode'), column('rateNew')];
  if (codeAt === -1 || rateAt === -1) throw new Error('the header names no currency code and rate columns');
  const months = new Map<string, RatePeriod & { rates: Map<string, string> }>();
  for (const { cells: row, line } of rows) {
    const where = `line ${line}`;
    const span = tariff
      ? checkedSpan(row[column('Start date')] ?? '', row[column('End date')] ?? '', where)
      : periodOf(row[column('Period')] ?? '');
    const key = `${span.first}/${span.last}`;
    const month = months.get(key) ?? { ...span, rates: new Map<string, string>() };
    months.set(key, month);
    addRate(month.rates, (row[codeAt] ?? '').trim(), rateText(row[rateAt] ?? ''), where);
  }
  if (months.size === 0) throw new Error('no line of rates under the header');
  return { source: 'hmrc', format: tariff ? 'hmrc-tariff-csv' : 'hmrc-csv', periods: [...months.values()] };
}

function checkedSpan(start: string, end: string, where: string): { first: string; last: string } {
  const first = dayText(start);
  const last = dayText(end);
  if (first === null || last === null || last < first)
    throw new Error(`${where}: ${start} to ${end} is not a period`);
  return { first, last };
}
