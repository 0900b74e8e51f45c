/**
 * The demo year of each country as an accountant runs it from a fresh clone: the CLI binary on the
 * embedded simulator, `rates --demo` for the published-rates files, `--report gains,journal` and
 * every journal format. US 2025 in USD (DATEV's Kurs from the ECB file), DE 2024 in EUR at the
 * ECB's rates, UK 2024/25 in GBP at HMRC's (DATEV for a Mandant kept in GBP, baseCurrency "GBP":
 * no Kurs, since GBP per EUR is below the 1,00 DATEV's field 4 takes). Each run exits 0 and
 * writes each format's files.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatevFile, readDatevBuchungsstapel } from '../support/ledger-parsers/datev.ts';

const FORMATS = 'csv,beancount,hledger,quickbooks,xero,datev';

async function cli(args: readonly string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin', 'pbs-export.mjs'), ...args], {
    cwd,
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PBS_'))),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

/** The files of the latest run folder under `out`. */
async function runFiles(out: string, period: string): Promise<string[]> {
  const base = join(out, 'reports', 'demo', period);
  const runs = (await readdir(base)).sort();
  return readdir(join(base, runs[runs.length - 1] as string));
}

/** The run's DATEV batch read by the reader written from DATEV's description (throws on a rule broken). */
async function datevBatch(out: string, period: string, baseCurrency: string): Promise<DatevFile> {
  const base = join(out, 'reports', 'demo', period);
  const runs = (await readdir(base)).sort();
  const folder = join(base, runs[runs.length - 1] as string);
  const name = (await readdir(folder)).find((file) => file.startsWith('EXTF_')) as string;
  return readDatevBuchungsstapel(await readFile(join(folder, name)), { baseCurrency });
}

/** Each journal format's files for a run named `stem` (demo_2025, …). */
function expectedFormatFiles(stem: string, files: readonly string[]): Record<string, boolean> {
  return {
    csv: files.includes(`${stem}_journal.csv`),
    beancount: files.includes(`${stem}_journal.beancount`),
    hledger: files.includes(`${stem}_journal.hledger`),
    quickbooks:
      files.includes(`${stem}_journal-quickbooks.csv`) &&
      files.includes(`${stem}_journal-quickbooks-accounts.csv`),
    xero:
      files.includes(`${stem}_journal-xero-accounts.csv`) &&
      files.some((name) => new RegExp(`^${stem}_journal-xero(-\\d+)?\\.csv$`).test(name)),
    datev: files.some((name) => new RegExp(`^EXTF_${stem}_Buchungsstapel_\\d{8}_\\d{8}\\.csv$`).test(name)),
  };
}

const ALL = { csv: true, beancount: true, hledger: true, quickbooks: true, xero: true, datev: true };

describe('the demo year in US, DE and UK with --report gains,journal in every journal format', () => {
  let dir: string;
  let hmrc: string[];
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-demo-years-'));
    const rates = await cli(['rates', '--demo'], dir);
    expect(rates).toMatchObject({ code: 0 });
    hmrc = (await readdir(join(dir, 'rates')))
      .filter((name) => name.startsWith('DEMO-made-up_monthly_xml_'))
      .flatMap((name) => ['--rates', `hmrc:rates/${name}`]);
  }, 60_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const datev = (extra: Record<string, unknown> = {}) =>
    JSON.stringify({
      datev: { consultantNumber: 1001, clientNumber: 1, chartOfAccounts: 'SKR04', ...extra },
    });

  it('US 2025 in USD: DATEV takes its Kurs from --rates ecb:FILE', async () => {
    await writeFile(join(dir, 'us.json'), datev());
    const result = await cli(
      [
        ...['run', '--simulator', '--profile', 'demo', '--period', '2025', '--tax-rules', 'us'],
        ...['--report', 'gains,journal', '--journal-format', FORMATS, '--journal-settings', 'us.json'],
        ...['--rates', 'ecb:rates/DEMO-made-up_eurofxref-hist.csv', '--out', 'us'],
      ],
      dir,
    );
    expect(result).toMatchObject({ code: 0 });
    expect(expectedFormatFiles('demo_2025', await runFiles(join(dir, 'us'), '2025'))).toEqual(ALL);
    // Every booking in USD with its Kurs (USD per EUR) and Basis-Umsatz in EUR, as DATEV documents.
    const us = await datevBatch(join(dir, 'us'), '2025', 'EUR');
    expect(us.bookings.length).toBeGreaterThan(0);
    expect(new Set(us.bookings.map((b) => `${b.wkzUmsatz}/${b.wkzBasisUmsatz}`))).toEqual(
      new Set(['USD/EUR']),
    );
  }, 180_000);

  it('DE 2024 in EUR at the ECB file', async () => {
    await writeFile(join(dir, 'de.json'), datev());
    const result = await cli(
      [
        ...['run', '--simulator', '--profile', 'demo', '--period', '2024', '--tax-rules', 'de'],
        ...['--time-zone', 'Europe/Berlin', '--report', 'gains,journal', '--journal-format', FORMATS],
        ...[
          '--journal-settings',
          'de.json',
          '--rates',
          'ecb:rates/DEMO-made-up_eurofxref-hist.csv',
          '--out',
          'de',
        ],
      ],
      dir,
    );
    expect(result).toMatchObject({ code: 0 });
    expect(expectedFormatFiles('demo_2024', await runFiles(join(dir, 'de'), '2024'))).toEqual(ALL);
  }, 180_000);

  it("UK 2024/25 in GBP at HMRC's files, DATEV for a Mandant kept in GBP", async () => {
    await writeFile(join(dir, 'uk.json'), datev({ baseCurrency: 'GBP' }));
    const result = await cli(
      [
        ...['run', '--simulator', '--profile', 'demo', '--period', '2024-04-06..2025-04-05'],
        ...['--tax-rules', 'uk', '--report', 'gains,journal', '--journal-format', FORMATS],
        ...['--journal-settings', 'uk.json', ...hmrc, '--out', 'uk'],
      ],
      dir,
    );
    expect(result).toMatchObject({ code: 0 });
    const files = await runFiles(join(dir, 'uk'), '2024-04-06_2025-04-05');
    expect(expectedFormatFiles('demo_2024-04-06_2025-04-05', files)).toEqual(ALL);
    // A Mandant kept in GBP: the amounts in its Basiswährung, fields 4–6 empty.
    const uk = await datevBatch(join(dir, 'uk'), '2024-04-06_2025-04-05', 'GBP');
    expect(uk.header.wkz).toBe('GBP');
    expect(new Set(uk.bookings.map((b) => `${b.wkzUmsatz}/${b.kurs}`))).toEqual(new Set(['GBP/']));
  }, 180_000);
});
