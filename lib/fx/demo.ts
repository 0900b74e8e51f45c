/**
 * Made-up rates files for the demo data (nothing downloaded, not fit for filing): written in the
 * ECB's and HMRC's published layouts (see README.md), so a run reads them as it reads the real
 * ones. The rates are distinct per day (ECB) and per month (HMRC), the same as the tax forms'
 * cross-check writes (docs/tax-forms-demo.md), so its figures can be rebuilt from these files.
 * The names the CLI gives them start with `DEMO_`, and the reports list the names they used.
 */

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Days the demo ECB file has no rates on besides weekends (TARGET holidays, every year). */
const NO_PUBLICATION = new Set(['12-25', '12-26', '01-01', '05-01']);

const DAY_MS = 86_400_000;

/** A made-up HMRC rate (USD per £1) for a month: distinct per month, four decimals. */
export function demoUsdPerPound(year: number, month: number): string {
  return (1.2 + ((year - 2022) * 12 + month - 1) * 0.0037).toFixed(4);
}

/** One month of made-up USD rates in HMRC's monthly XML layout (`monthly_xml_YYYY-MM.xml`). */
export function demoHmrcMonthXml(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const name = MONTH_NAMES[month - 1];
  return `<?xml version="1.0" encoding="UTF-8"?>
<exchangeRateMonthList Period="01/${name}/${year} to ${last}/${name}/${year}">
  <exchangeRate>
    <countryName>United States</countryName>
    <countryCode>US</countryCode>
    <currencyName>Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>${demoUsdPerPound(year, month)}</rateNew>
  </exchangeRate>
</exchangeRateMonthList>
`;
}

/**
 * Made-up USD and GBP rates per euro in the layout of the ECB's `eurofxref-hist.csv`, for every
 * weekday from `from` to `to` (`YYYY-MM-DD`, both included) but a few TARGET holidays: newest day
 * first, a trailing comma on every line.
 */
export function demoEcbHistCsv(from: string, to: string): string {
  const lines: string[] = [];
  const first = Date.parse(`${from}T00:00:00Z`);
  for (let at = Date.parse(`${to}T00:00:00Z`); at >= first; at -= DAY_MS) {
    const day = new Date(at);
    const weekday = day.getUTCDay();
    const iso = day.toISOString().slice(0, 10);
    if (weekday === 0 || weekday === 6 || NO_PUBLICATION.has(iso.slice(5))) continue;
    const n = Math.floor(at / DAY_MS);
    lines.push(`${iso},${(1.05 + (n % 97) * 0.0011).toFixed(4)},${(0.84 + (n % 13) * 0.0013).toFixed(5)},`);
  }
  return `Date,USD,GBP,\n${lines.join('\n')}\n`;
}
