/**
 * The three filing packages (SA108, Anlage SO, Form 8949/Schedule D with Schedule 1 line 8v)
 * checked line by line against a second, independent computation (test/support/independent-tax):
 * the CLI runs as a process on the embedded simulator's demo data, with rates files written in the
 * ECB's and HMRC's published layouts; the cross-check reads the run's own snapshot and the same
 * rates files, converts the values itself and applies the rules as lib/gains/README.md states them.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anlageSo } from '../support/independent-tax/de.ts';
import { Big, readSnapshot, toTaxEvents } from '../support/independent-tax/events.ts';
import {
  ecbConverter,
  ecbHistCsv,
  hmrcConverter,
  hmrcMonthXml,
  usdConverter,
} from '../support/independent-tax/rates.ts';
import { hmrcDisposals, sa108 } from '../support/independent-tax/uk.ts';
import { form8949Totals, netProceeds, scheduleOne } from '../support/independent-tax/us.ts';

type Row = Record<string, string>;

/** Runs `pbs-export` as a process, to its exit. */
async function cli(args: readonly string[], home: string): Promise<{ code: number | null; stderr: string }> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AWS_') && !name.startsWith('PBS_')) env[name] = value;
  }
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/pbs-export.ts', ...args], {
    env: { ...env, HOME: home, AWS_EC2_METADATA_DISABLED: 'true' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

async function runFolder(out: string, period: string): Promise<string> {
  const folder = join(out, 'reports/demo', period);
  const [run] = (await readdir(folder)).filter((name) => !name.startsWith('.'));
  return join(folder, run as string);
}

async function csv(folder: string, name: string): Promise<Row[]> {
  return parse(await readFile(join(folder, name)), { bom: true, columns: true }) as Row[];
}

/** The tax summary's rows by item: the amount (or the number when the row has one) and the form line. */
function byItem(rows: readonly Row[]): Record<string, { line: string; value: string; currency: string }> {
  return Object.fromEntries(
    rows.map((r) => [
      r.item,
      { line: r.form_line ?? '', value: r.number || r.amount || '', currency: r.currency ?? '' },
    ]),
  );
}

const UK = '2024-04-06_2025-04-05';
let dir: string;
let ukRun: string;
let deRun: string;
let usRun: string;
let hmrcFiles: string[];
let ecbFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-forms-'));
  await mkdir(join(dir, 'rates'));
  hmrcFiles = [];
  for (const year of [2022, 2023, 2024, 2025]) {
    for (let month = 1; month <= 12; month++) {
      const file = join(dir, 'rates', `monthly_xml_${year}-${String(month).padStart(2, '0')}.xml`);
      await writeFile(file, hmrcMonthXml(year, month));
      hmrcFiles.push(file);
    }
  }
  ecbFile = join(dir, 'rates', 'eurofxref-hist.csv');
  await writeFile(ecbFile, ecbHistCsv('2022-12-01', '2025-12-31'));
  const common = ['run', '--simulator', '--profile', 'demo', '--report', 'gains', '--format', 'csv'];
  const runs = await Promise.all([
    cli(
      [
        ...common,
        ...['--period', '2024-04-06..2025-04-05', '--time-zone', 'Europe/London', '--tax-rules', 'uk'],
        ...hmrcFiles.flatMap((file) => ['--rates', `hmrc:${file}`]),
        ...['--out', join(dir, 'uk')],
      ],
      dir,
    ),
    cli(
      [
        ...common,
        ...['--period', '2024', '--time-zone', 'Europe/Berlin', '--tax-rules', 'de'],
        ...['--rates', `ecb:${ecbFile}`, '--out', join(dir, 'de')],
      ],
      dir,
    ),
    cli([...common, '--period', '2025', '--tax-rules', 'us', '--out', join(dir, 'us')], dir),
  ]);
  // stderr carries the simulator notice ("Using the embedded simulator …"), nothing else.
  expect(
    runs.map(({ code, stderr }) => ({
      code,
      stderr: stderr.replace(/^Using the embedded simulator .*\n/, ''),
    })),
  ).toEqual([
    { code: 0, stderr: '' },
    { code: 0, stderr: '' },
    { code: 0, stderr: '' },
  ]);
  ukRun = await runFolder(join(dir, 'uk'), UK);
  deRun = await runFolder(join(dir, 'de'), '2024');
  usRun = await runFolder(join(dir, 'us'), '2025');
}, 180_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('SA108 2024/25 (uk, HMRC monthly rates) against an independent HMRC identification', () => {
  it('gives every cryptoasset box and the 30 October split to the penny', async () => {
    const texts = await Promise.all(hmrcFiles.map((file) => readFile(file, 'utf8')));
    const events = toTaxEvents(readSnapshot(join(ukRun, `demo_${UK}_snapshot.ndjson.gz`)), {
      zone: 'Europe/London',
      convert: hmrcConverter(texts),
      counterpart: true,
    });
    const expected = sa108(hmrcDisposals(events), '2024-04-06', '2025-04-05');
    const got = byItem(await csv(ukRun, `demo_${UK}_tax_summary.csv`));
    const box = (line: string, value: string | number) => ({ line, value: String(value), currency: 'GBP' });
    // Not box 51 (which takes the calculator's result, a difference of tax): its inputs.
    const input = (value: string) => box('', value);
    expect(got).toMatchObject({
      'Cryptoassets: number of disposals': box('SA108 box 13.1', expected['13.1']),
      'Cryptoassets: disposal proceeds': box('SA108 box 13.2', expected['13.2']),
      'Cryptoassets: allowable costs (including purchase price)': box('SA108 box 13.3', expected['13.3']),
      'Cryptoassets: gains in the year, before losses': box('SA108 box 13.4', expected['13.4']),
      'Cryptoassets: losses in the year': box('SA108 box 13.5', expected['13.5']),
      'Net gain or loss': box('', expected.net),
      'HMRC adjustment calculator input: gains before 30 October 2024': input(expected.gainsBefore),
      'HMRC adjustment calculator input: losses before 30 October 2024': input(expected.lossesBefore),
      'HMRC adjustment calculator input: gains from 30 October 2024': input(expected.gainsFrom),
      'HMRC adjustment calculator input: losses from 30 October 2024': input(expected.lossesFrom),
    });
    // Not a vacuous comparison: the demo year has disposals on both sides of 30 October.
    expect([
      expected['13.1'] > 100,
      Number(expected.gainsBefore) > 0,
      Number(expected.lossesFrom) > 0,
    ]).toEqual([true, true, true]);
  });
});

describe('Anlage SO 2024 (de, ECB daily rates) against an independent FIFO per wallet', () => {
  it('gives Zeilen 44, 45, 47, the held-longer sales and § 22 Nr. 3 income to the cent', async () => {
    const events = toTaxEvents(readSnapshot(join(deRun, 'demo_2024_snapshot.ndjson.gz')), {
      zone: 'Europe/Berlin',
      convert: ecbConverter(await readFile(ecbFile, 'utf8')),
      counterpart: false,
    });
    const so = anlageSo(events, 2024);
    const got = byItem(await csv(deRun, 'demo_2024_tax_summary.csv'));
    const line = (form: string, value: string | number) => ({
      line: form,
      value: String(value),
      currency: 'EUR',
    });
    expect(got).toMatchObject({
      '§ 23 EStG: sales held one year or less (lines)': line('', so.taxableLines),
      '§ 23 EStG: Veräußerungspreis': line('Anlage SO Zeile 44', so.zeile44),
      '§ 23 EStG: Anschaffungskosten': line('Anlage SO Zeile 45', so.zeile45),
      '§ 23 EStG: Werbungskosten': line('Anlage SO Zeile 46', ''),
      '§ 23 EStG: Gewinn/Verlust': line('Anlage SO Zeile 47', so.zeile47),
      '§ 23 EStG: Gewinn/Verlust carried from Zeile 47 (Feld 114; a spouse: Feld 115)': line(
        'Anlage SO Zeile 54',
        so.zeile47,
      ),
      '§ 23 Abs. 3 Satz 5 EStG: Freigrenze': line('', so.freigrenze),
      '§ 23 EStG: steuerpflichtig': line('', so.steuerpflichtig23),
      '§ 23 EStG: sales held more than one year (lines)': line('', so.longLines),
      '§ 23 EStG: Gewinn/Verlust held more than one year': line('', so.longGain),
      '§ 22 Nr. 3 EStG: Werbungskosten': line('', so.werbungskosten),
      '§ 22 Nr. 3 EStG: Einkünfte': line('', so.einkuenfte),
      '§ 22 Nr. 3 EStG: steuerpflichtig': line('', so.steuerpflichtig22),
    });
    const zeile11 = (await csv(deRun, 'demo_2024_tax_summary.csv')).find(
      (r) => r.form_line === 'Anlage SO Zeile 11',
    );
    expect({ number: zeile11?.number, amount: zeile11?.amount }).toEqual({
      number: String(so.receipts),
      amount: so.zeile11,
    });
    expect([so.taxableLines > 100, so.longLines > 0, Number(so.werbungskosten) > 0]).toEqual([
      true,
      true,
      true,
    ]);
  });
});

describe('Form 8949, Schedule D and Schedule 1 2025 (us) against their rows and the snapshot', () => {
  it('ties each box TOTAL and Schedule D line to the sum of its rows, and the rows to the disposals', async () => {
    const form = await csv(usRun, 'demo_2025_form-8949.csv');
    const totals = form8949Totals(form);
    const totalRows = form
      .filter((r) => (r.description ?? '').startsWith('TOTAL'))
      .map((r) => ({
        box: r.box,
        proceeds: r.proceeds,
        cost: r.cost,
        adjustment: r.adjustment,
        gain: r.gain,
      }));
    const scheduleDLines = await csv(usRun, 'demo_2025_schedule-d.csv');
    const scheduleD = scheduleDLines
      .filter((r) => r.box !== '')
      .map((r) => ({
        box: r.box,
        line: r.line,
        rows: Number(r.rows),
        proceeds: r.proceeds,
        cost: r.cost,
        adjustment: r.adjustment,
        gain: r.gain,
      }));
    expect(totalRows).toEqual(
      totals.map(({ box, proceeds, cost, adjustment, gain }) => ({ box, proceeds, cost, adjustment, gain })),
    );
    expect(scheduleD).toEqual(totals);
    // Lines 7, 15 and 16: column (h) of the short boxes, of the long ones, and both.
    const net = (boxes: string[]) =>
      totals
        .filter((t) => boxes.includes(t.box))
        .reduce((a, t) => a.plus(t.gain), new Big(0))
        .toFixed(2);
    expect(scheduleDLines.filter((r) => r.box === '').map((r) => [r.line, r.gain])).toEqual([
      ['7', net(['G', 'H', 'I'])],
      ['15', net(['J', 'K', 'L'])],
      ['16', net(['G', 'H', 'I', 'J', 'K', 'L'])],
    ]);
    // The rows gather the disposals report's lines (short: I, long: L with no broker reporting).
    const lines = await csv(usRun, 'demo_2025_disposals.csv');
    const sum = (term: string, key: string) =>
      lines
        .filter((l) => l.term === term && l.tax_year === '2025')
        .reduce((a, l) => a.plus(l[key] as string), new Big(0))
        .toFixed(2);
    expect(totals.map(({ box, proceeds, cost }) => ({ box, proceeds, cost }))).toEqual([
      { box: 'I', proceeds: sum('short', 'proceeds'), cost: sum('short', 'cost_basis') },
      { box: 'L', proceeds: sum('long', 'proceeds'), cost: sum('long', 'cost_basis') },
    ]);
  });

  it("has exactly the year's disposal values less their fees as exact proceeds, whatever lots they matched", async () => {
    const events = toTaxEvents(readSnapshot(join(usRun, 'demo_2025_snapshot.ndjson.gz')), {
      zone: 'UTC',
      convert: usdConverter,
      counterpart: false,
    });
    const exact = (await csv(usRun, 'demo_2025_disposals_exact.csv')).filter((l) => l.tax_year === '2025');
    const total = exact.reduce((a, l) => a.plus(l.proceeds as string), new Big(0));
    const expected = netProceeds(events, 2025);
    expect(total.toFixed()).toBe(expected.total.toFixed());
    expect(expected.disposals).toBeGreaterThan(100);
  });

  it('gives Schedule 1 line 8v as the income receipts of 2025 at their value, by token and in total', async () => {
    const events = toTaxEvents(readSnapshot(join(usRun, 'demo_2025_snapshot.ndjson.gz')), {
      zone: 'UTC',
      convert: usdConverter,
      counterpart: false,
    });
    const expected = scheduleOne(events, 2025);
    const rows = await csv(usRun, 'demo_2025_schedule-1.csv');
    expect(
      rows.map((r) => ({
        line: r.line,
        item: r.item,
        receipts: r.receipts,
        amount: r.amount,
        currency: r.currency,
      })),
    ).toEqual([
      ...expected.tokens.map((t) => ({
        line: '8v',
        item: `income: ${t.token}`,
        receipts: String(t.receipts),
        amount: t.amount,
        currency: 'USD',
      })),
      {
        line: '8v',
        item: 'TOTAL: Digital assets received as ordinary income not reported elsewhere',
        receipts: String(expected.receipts),
        amount: expected.total,
        currency: 'USD',
      },
    ]);
  });
});
