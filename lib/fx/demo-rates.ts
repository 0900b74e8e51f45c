/**
 * DEMO rates: made-up rates files in the ECB's and HMRC's published layouts, for trying UK and
 * German gains on the simulator's demo data (valued in USD) without downloading anything. Every
 * file's name starts with {@link DEMO_RATES_PREFIX}, so the Read me, the About sheet and the
 * manifest that name a run's rates files say DEMO, and {@link demoRatesNote} puts it on the
 * first screen of the reports. Nothing here is a published rate: not for filing.
 *
 * The rates are the ones `docs/tax-forms-demo.md` was computed with (distinct per day or month):
 * the ECB's `eurofxref-hist.csv` with USD and GBP per euro on the weekdays 2022-12-01 to
 * 2025-12-31 but a few holidays, and HMRC's monthly XML files 2022-01 to 2025-12 with USD per £1,
 * so the demo data (2023 to 2025) and a UK tax year's 30 days after are covered.
 */
import type { RateSource } from './table.ts';

/** What every DEMO rates file's name starts with. */
export const DEMO_RATES_PREFIX = 'DEMO-made-up_';

/** Whether a rates file's name marks it as DEMO rates (made up, not published). */
export const isDemoRatesFile = (name: string): boolean => name.startsWith(DEMO_RATES_PREFIX);

/** One DEMO rates file: its name, its source and its bytes. */
export interface DemoRatesFile {
  name: string;
  source: RateSource;
  bytes: Uint8Array;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** Days without an ECB publication besides weekends (as month-day, every year). */
const ECB_CLOSED = new Set(['12-25', '12-26', '01-01', '05-01']);

const DAY_MS = 86_400_000;

/** The made-up ECB history: newest day first, USD and GBP per euro, a trailing comma as published. */
export function demoEcbHistCsv(from = '2022-12-01', to = '2025-12-31'): string {
  const lines: string[] = [];
  const first = Date.parse(`${from}T00:00:00Z`);
  for (let at = Date.parse(`${to}T00:00:00Z`); at >= first; at -= DAY_MS) {
    const day = new Date(at);
    const iso = day.toISOString().slice(0, 10);
    if (day.getUTCDay() === 0 || day.getUTCDay() === 6 || ECB_CLOSED.has(iso.slice(5))) continue;
    const n = Math.floor(at / DAY_MS);
    lines.push(`${iso},${(1.05 + (n % 97) * 0.0011).toFixed(4)},${(0.84 + (n % 13) * 0.0013).toFixed(5)},`);
  }
  return `Date,USD,GBP,\n${lines.join('\n')}\n`;
}

/** One made-up HMRC month in the monthly XML layout: USD per £1, distinct per month. */
export function demoHmrcMonthXml(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const name = MONTHS[month - 1];
  const usdPerPound = (1.2 + ((year - 2022) * 12 + month - 1) * 0.0037).toFixed(4);
  return `<?xml version="1.0" encoding="UTF-8"?>
<exchangeRateMonthList Period="01/${name}/${year} to ${last}/${name}/${year}">
  <exchangeRate>
    <countryName>United States</countryName>
    <countryCode>US</countryCode>
    <currencyName>Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>${usdPerPound}</rateNew>
  </exchangeRate>
</exchangeRateMonthList>
`;
}

/** The name of the made-up copy of a published rates file (`eurofxref-hist.csv`, `monthly_xml_2024-05.xml`). */
export const demoRatesName = (published: string): string => `${DEMO_RATES_PREFIX}${published}`;

/** Every DEMO rates file: the ECB history, then HMRC's months 2022-01 to 2025-12. */
export function demoRatesFiles(): DemoRatesFile[] {
  const files: DemoRatesFile[] = [
    { name: demoRatesName('eurofxref-hist.csv'), source: 'ecb', bytes: Buffer.from(demoEcbHistCsv()) },
  ];
  for (const year of [2022, 2023, 2024, 2025]) {
    for (let month = 1; month <= 12; month += 1) {
      const name = demoRatesName(`monthly_xml_${year}-${String(month).padStart(2, '0')}.xml`);
      files.push({ name, source: 'hmrc', bytes: Buffer.from(demoHmrcMonthXml(year, month)) });
    }
  }
  return files;
}

/**
 * The warning for the first screen of a run's reports when its rates files (`gains.rates.files`,
 * name → SHA-256) include DEMO ones; `null` otherwise.
 */
export function demoRatesNote(files: Readonly<Record<string, string>> | undefined): string | null {
  const demo = Object.keys(files ?? {}).filter(isDemoRatesFile);
  if (demo.length === 0) return null;
  return `the exchange rates are DEMO rates, made up for trying pbs-export (${demo.length} rates file(s) named ${DEMO_RATES_PREFIX}…), not the ECB's or HMRC's published ones: the converted figures are not for filing`;
}
