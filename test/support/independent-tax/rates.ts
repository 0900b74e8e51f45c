/**
 * Rates files for the cross-check, written in the layouts the ECB and HMRC publish (made-up
 * rates, nothing downloaded), and read back here by a parser of their own, independent of lib/fx.
 */
import BigJs from 'big.js';
import { DateTime } from 'luxon';

const Big = BigJs();
Big.DP = 40;

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A made-up HMRC rate (USD per £1) for a month: distinct per month, four decimals. */
export function hmrcUsdPerPound(year: number, month: number): string {
  return (1.2 + ((year - 2022) * 12 + month - 1) * 0.0037).toFixed(4);
}

/** One month in HMRC's monthly XML layout. */
export function hmrcMonthXml(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const name = MONTHS[month - 1];
  return `<?xml version="1.0" encoding="UTF-8"?>
<exchangeRateMonthList Period="01/${name}/${year} to ${last}/${name}/${year}">
  <exchangeRate>
    <countryName>United States</countryName>
    <countryCode>US</countryCode>
    <currencyName>Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>${hmrcUsdPerPound(year, month)}</rateNew>
  </exchangeRate>
</exchangeRateMonthList>
`;
}

/**
 * The ECB's `eurofxref-hist.csv` for every weekday from `from` to `to` (newest first, trailing
 * commas), USD and GBP per euro, with a few weekdays left out as TARGET holidays.
 */
export function ecbHistCsv(from: string, to: string): string {
  const lines: string[] = [];
  let day = DateTime.fromISO(to, { zone: 'UTC' });
  const first = DateTime.fromISO(from, { zone: 'UTC' });
  for (; day >= first; day = day.minus({ days: 1 })) {
    if (day.weekday > 5 || ['12-25', '12-26', '01-01', '05-01'].includes(day.toFormat('MM-dd'))) continue;
    const n = Math.floor(day.toSeconds() / 86_400);
    const usd = (1.05 + (n % 97) * 0.0011).toFixed(4);
    const gbp = (0.84 + (n % 13) * 0.0013).toFixed(5);
    lines.push(`${day.toISODate()},${usd},${gbp},`);
  }
  return `Date,USD,GBP,\n${lines.join('\n')}\n`;
}

/** USD amounts into the filing currency, by the calendar day in the tax zone. */
export interface Converter {
  /** `usd` (a decimal string) on local `day` (yyyy-MM-dd) in the filing currency, exact to 18 places. */
  convert(usd: string, day: string): BigJs;
}

/** HMRC: the month's USD per £1; amount ÷ rate. */
export function hmrcConverter(files: readonly string[]): Converter {
  const rates = new Map<string, string>();
  for (const text of files) {
    const period = /Period="\d\d\/(\w+)\/(\d{4}) to/.exec(text);
    const usd = /<currencyCode>USD<\/currencyCode>\s*<rateNew>([\d.]+)<\/rateNew>/.exec(text);
    if (!period || !usd) throw new Error('not an HMRC monthly file');
    const month = String(MONTHS.indexOf(period[1] as string) + 1).padStart(2, '0');
    rates.set(`${period[2]}-${month}`, usd[1] as string);
  }
  return {
    convert(usd, day) {
      const rate = rates.get(day.slice(0, 7));
      if (!rate) throw new Error(`no HMRC rate for ${day}`);
      return new Big(usd).div(rate).round(18, Big.roundHalfEven);
    },
  };
}

/** ECB: the day's EUR rate of USD, or the latest earlier publication (weekends, holidays); amount ÷ rate. */
export function ecbConverter(csv: string): Converter {
  const [, ...rows] = csv.trim().split('\n');
  const rates = new Map(rows.map((row) => row.split(',') as [string, string]));
  return {
    convert(usd, day) {
      let d = DateTime.fromISO(day, { zone: 'UTC' });
      for (let back = 0; back <= 7; back++, d = d.minus({ days: 1 })) {
        const rate = rates.get(d.toISODate() as string);
        if (rate) return new Big(usd).div(rate).round(18, Big.roundHalfEven);
      }
      throw new Error(`no ECB rate for ${day}`);
    },
  };
}

/** Identity: the values stay in USD. */
export const usdConverter: Converter = { convert: (usd) => new Big(usd) };
