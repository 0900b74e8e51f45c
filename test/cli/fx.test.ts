/**
 * Values converted into the filing currency end to end: the CLI on the embedded simulator's USD
 * data, with HMRC monthly rates files written locally in HMRC's published XML layout (nothing is
 * downloaded), against figures worked out separately in the test.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BigJs from 'big.js';
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { ecbHistCsv, ecbPublished, usdPerEuro } from '../support/rates.ts';

const HistoryBig = BigJs();
HistoryBig.DP = 40;

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

/** A made-up HMRC rate (USD per £1) for each month: distinct, 4 decimals, as HMRC writes them. */
function usdPerPound(year: number, month: number): string {
  const index = (year - 2023) * 12 + (month - 1);
  return (1.2 + index * 0.0037).toFixed(4);
}

const MONTH_NAMES = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** One month in HMRC's monthly XML layout (exchangeRateMonthList / exchangeRate / rateNew). */
function hmrcMonthXml(year: number, month: number): string {
  const last = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const name = MONTH_NAMES[month - 1];
  return `<?xml version="1.0" encoding="UTF-8"?>
<exchangeRateMonthList Period="01/${name}/${year} to ${last}/${name}/${year}">
  <exchangeRate>
    <countryName>Eurozone</countryName>
    <countryCode>EU</countryCode>
    <currencyName>Euro</currencyName>
    <currencyCode>EUR</currencyCode>
    <rateNew>1.1500</rateNew>
  </exchangeRate>
  <exchangeRate>
    <countryName>United States</countryName>
    <countryCode>US</countryCode>
    <currencyName>Dollar</currencyName>
    <currencyCode>USD</currencyCode>
    <rateNew>${usdPerPound(year, month)}</rateNew>
  </exchangeRate>
</exchangeRateMonthList>
`;
}

async function csvRows(file: string): Promise<Record<string, string>[]> {
  return parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[];
}

async function runFolder(out: string): Promise<string> {
  const [runDir] = (await readdir(join(out, 'reports/demo/2024-04-06_2025-04-05'))).filter(
    (n) => !n.startsWith('.'),
  );
  return join(out, 'reports/demo/2024-04-06_2025-04-05', runDir as string);
}

const UK_RUN = [
  'run',
  '--simulator',
  '--profile',
  'demo',
  '--period',
  '2024-04-06..2025-04-05',
  '--time-zone',
  'Europe/London',
  '--report',
  'gains',
  '--tax-rules',
  'uk',
  '--format',
  'csv',
];

describe('pbs-export run --tax-rules uk --rates (HMRC monthly XML files)', () => {
  let dir: string;
  let rateFiles: string[];
  let rateFlags: string[];
  let converted: string;
  let dollars: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-fx-'));
    await mkdir(join(dir, 'rates'));
    rateFiles = [];
    for (const year of [2023, 2024, 2025]) {
      for (let month = 1; month <= 12; month++) {
        const file = join(dir, 'rates', `monthly_xml_${year}-${String(month).padStart(2, '0')}.xml`);
        await writeFile(file, hmrcMonthXml(year, month));
        rateFiles.push(file);
      }
    }
    rateFlags = rateFiles.flatMap((file) => ['--rates', file]);
    const gbp = captureIo();
    const usd = captureIo();
    const codes = [
      await main([...UK_RUN, ...rateFlags, '--out', join(dir, 'gbp')], gbp.io),
      await main([...UK_RUN, '--gains-currency', 'USD', '--out', join(dir, 'usd')], usd.io),
    ];
    expect({ codes, errors: gbp.stderr() + usd.stderr() }).toMatchObject({ codes: [0, 0] });
    converted = await runFolder(join(dir, 'gbp'));
    dollars = await runFolder(join(dir, 'usd'));
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("converts each USD value at the rate of its month in London, as the conversions file shows, to HMRC's figures", async () => {
    const lines = await csvRows(join(converted, 'demo_2024-04-06_2025-04-05_fx_conversions_exact.csv'));
    expect(lines.length).toBeGreaterThan(100);
    const checked = lines.filter((_, index) => index % 97 === 0);
    const expected = checked.map((line) => {
      const local = DateTime.fromISO(line.date as string, { zone: 'utc' }).setZone('Europe/London');
      const rate = usdPerPound(local.year, local.month);
      return {
        day: local.toISODate(),
        rate,
        value: new HistoryBig(line.value as string).div(rate).round(18, BigJs.roundHalfEven).toFixed(),
      };
    });
    expect(
      checked.map((line) => ({
        day: line.day,
        rate: line.from_per_base,
        value: new HistoryBig(line.value_converted as string).toFixed(),
      })),
    ).toEqual(expected);
  });

  it("gives each disposal's proceeds in GBP: the dollar run's proceeds at the disposal month's rate", async () => {
    const name = 'demo_2024-04-06_2025-04-05_disposals_exact.csv';
    // uk rules round each disposal's proceeds to whole pounds (dollars in the dollar run) before
    // sharing them over the lots matched: compare per disposing transaction, to within that pound.
    const byDisposal = (lines: Record<string, string>[]) => {
      const sums = new Map<string, { proceeds: BigJs; at: string }>();
      for (const line of lines) {
        const id = line.disposed_tx_id ?? '';
        const known = sums.get(id) ?? { proceeds: new HistoryBig(0), at: line.date_disposed ?? '' };
        sums.set(id, { ...known, proceeds: known.proceeds.plus(line.proceeds ?? '0') });
      }
      return sums;
    };
    const pounds = byDisposal(await csvRows(join(converted, name)));
    const usd = byDisposal(await csvRows(join(dollars, name)));
    const differences = [...usd].flatMap(([id, { proceeds, at }]) => {
      const disposed = DateTime.fromISO(at, { zone: 'Europe/London' });
      const expected = proceeds.div(usdPerPound(disposed.year, disposed.month));
      const got = pounds.get(id)?.proceeds ?? new HistoryBig(-1);
      return got.minus(expected).abs().gt(1)
        ? [{ id, at, pounds: got.toFixed(), expected: expected.toFixed(6) }]
        : [];
    });
    const large = [...usd.values()].filter(({ proceeds }) => proceeds.gt(10_000)).length;
    expect({ same: [...pounds.keys()].sort(), large: large > 10, differences }).toEqual({
      same: [...usd.keys()].sort(),
      large: true,
      differences: [],
    });
  });

  it('names GBP in the headers, the source in the Read me and the rates files with their sha256 in the manifest', async () => {
    const readme = await readFile(join(converted, 'README.txt'), 'utf8');
    const manifest = JSON.parse(await readFile(join(converted, 'manifest.json'), 'utf8'));
    const may = await readFile(join(dir, 'rates', 'monthly_xml_2024-05.xml'));
    const { createHash } = await import('node:crypto');
    expect({
      gbp: readme.includes('Proceeds (GBP)'),
      source: readme.includes(
        'HMRC monthly exchange rates (currency units per £1) (https://www.trade-tariff.service.gov.uk/exchange_rates)',
      ),
      recorded: manifest.request.gains.rates.files['monthly_xml_2024-05.xml'],
    }).toEqual({ gbp: true, source: true, recorded: createHash('sha256').update(may).digest('hex') });
  });

  it('rebuilds the same figures from the snapshot with the same rates files', async () => {
    const snapshot = join(converted, 'demo_2024-04-06_2025-04-05_snapshot.ndjson.gz');
    const again = captureIo();
    const code = await main(
      ['render', '--snapshot', snapshot, ...rateFlags, '--out', join(dir, 'again')],
      again.io,
    );
    expect({ code, err: again.stderr() }).toEqual({ code: 0, err: '' });
    const name = 'demo_2024-04-06_2025-04-05_disposals_exact.csv';
    expect(await readFile(join(await runFolder(join(dir, 'again')), name), 'utf8')).toBe(
      await readFile(join(converted, name), 'utf8'),
    );
  });

  it('refuses to rebuild from the snapshot with a rates file changed since the run, exit 2 naming the file', async () => {
    const snapshot = join(converted, 'demo_2024-04-06_2025-04-05_snapshot.ndjson.gz');
    await mkdir(join(dir, 'changed'));
    const may = join(dir, 'changed', 'monthly_xml_2024-05.xml');
    await writeFile(may, hmrcMonthXml(2024, 5).replace(usdPerPound(2024, 5), '1.3000'));
    const files = rateFiles.map((file) => (file.endsWith('monthly_xml_2024-05.xml') ? may : file));
    const changed = captureIo();
    const code = await main(
      [
        'render',
        '--snapshot',
        snapshot,
        ...files.flatMap((file) => ['--rates', file]),
        '--out',
        join(dir, 'changed'),
      ],
      changed.io,
    );
    expect({ code, err: changed.stderr().split('\n')[0] }).toMatchObject({
      code: 2,
      err: expect.stringMatching(
        /^error: --rates: the rates files given are not the ones this run was made with: give .*monthly_xml_2024-05\.xml \(sha256 [0-9a-f]{64}\)/,
      ),
    });
  });

  it('refuses to rebuild from the snapshot without its rates files, exit 2 naming --rates', async () => {
    const snapshot = join(converted, 'demo_2024-04-06_2025-04-05_snapshot.ndjson.gz');
    const without = captureIo();
    const code = await main(['render', '--snapshot', snapshot, '--out', join(dir, 'without')], without.io);
    expect({ code, err: without.stderr().split('\n')[0] }).toMatchObject({
      code: 2,
      err: expect.stringMatching(/^error: --rates: the snapshot's run converted values at HMRC rates/),
    });
  });

  it('fails with exit 2 naming the date and currency when a month has no rates file, and publishes nothing', async () => {
    const missing = captureIo();
    const kept = rateFiles
      .filter((file) => !file.endsWith('monthly_xml_2024-08.xml'))
      .flatMap((file) => ['--rates', file]);
    const code = await main([...UK_RUN, ...kept, '--out', join(dir, 'missing')], missing.io);
    expect({ code, err: missing.stderr().trim().split('\n').pop() }).toMatchObject({
      code: 2,
      err: expect.stringMatching(
        /^error: gains\.rates: no rate for USD on 2024-08-\d\d: no HMRC monthly rates file given covers 2024-08$/,
      ),
    });
    const left = await readdir(join(dir, 'missing'), { recursive: true }).catch(() => []);
    expect(left.filter((name) => String(name).endsWith('manifest.json'))).toEqual([]);
  });
});

describe('pbs-export run --tax-rules de --rates ecb:eurofxref-hist.csv', () => {
  let dir: string;
  let run: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-fx-de-'));
    await writeFile(join(dir, 'eurofxref-hist.csv'), ecbHistCsv());
    const io = captureIo();
    const code = await main(
      [
        ...['run', '--simulator', '--profile', 'demo', '--period', '2024', '--time-zone', 'Europe/Berlin'],
        ...['--report', 'gains', '--tax-rules', 'de', '--format', 'csv', '--out', join(dir, 'out')],
        ...['--rates', `ecb:${join(dir, 'eurofxref-hist.csv')}`],
      ],
      io.io,
    );
    expect({ code, err: io.stderr() }).toMatchObject({ code: 0 });
    const [runDir] = await readdir(join(dir, 'out/reports/demo/2024'));
    run = join(dir, 'out/reports/demo/2024', runDir as string);
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('converts each USD value at the ECB rate of its Berlin day, or of the latest publication before a weekend or holiday', async () => {
    const lines = await csvRows(join(run, 'demo_2024_fx_conversions_exact.csv'));
    const checked = lines.filter((_, index) => index % 13 === 0);
    const expected = checked.map((line) => {
      let day = DateTime.fromISO(line.date as string, { zone: 'utc' })
        .setZone('Europe/Berlin')
        .startOf('day');
      while (!ecbPublished(day)) day = day.minus({ days: 1 });
      const of = day.toISODate() as string;
      return {
        of,
        value: new HistoryBig(line.value as string)
          .div(usdPerEuro(of))
          .round(18, BigJs.roundHalfEven)
          .toFixed(),
      };
    });
    expect(
      checked.map((line) => ({
        of: line.rate_of,
        value: new HistoryBig(line.value_converted as string).toFixed(),
      })),
    ).toEqual(expected);
    expect(checked.some((line) => line.rate_of !== line.day)).toBe(true);
  });

  it('refuses --rates with generic rules, which name no currency to convert into, exit 2 naming --rates', async () => {
    const io = captureIo();
    const code = await main(
      [
        ...['run', '--simulator', '--period', '2024', '--report', 'gains', '--out', join(dir, 'generic')],
        ...['--rates', join(dir, 'eurofxref-hist.csv')],
      ],
      io.io,
    );
    expect({ code, err: io.stderr().split('\n')[0] }).toMatchObject({
      code: 2,
      err: expect.stringContaining('--rates: needs --gains-currency'),
    });
  });
});
