/**
 * Money as an accountant reads it, checked by a reader this project did not write: LibreOffice
 * opens the workbooks of the demo and of a us, a uk and a de gains run and saves every sheet as
 * CSV with each cell as shown (its number format applied). Every cell of a money column (a header
 * naming its currency, `Proceeds (USD)`) must show two decimals, whatever sheet it is on.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const run = promisify(execFile);

const RUNS: Record<string, Record<string, unknown>> = {
  demo: {},
  us: { reports: ['gains'], gains: { taxRules: 'us' } },
  uk: { reports: ['gains'], gains: { taxRules: 'uk', currency: 'USD' } },
  de: { reports: ['gains'], gains: { taxRules: 'de', currency: 'USD' } },
};

/**
 * LibreOffice's CSV filter: comma, double quote, UTF-8, from line 1, quoted texts as text,
 * cells saved as shown, every sheet to a file of its own (`-1`).
 */
const CSV_FILTER = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,true,false,false,-1';
/** A money cell as an en-US sheet shows it: thousands separated, two decimals. */
const CENTS = /^-?\d{1,3}(,\d{3})*\.\d{2}$/;

describe('money cells of every sheet, read back through LibreOffice', () => {
  let harness: ExportHarness;
  /** Per run, per sheet: the money cells shown otherwise than with two decimals. */
  const offending: Record<string, Record<string, string[]>> = {};
  /** Per run: how many money cells were checked. */
  const checked: Record<string, number> = {};

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    for (const [name, options] of Object.entries(RUNS)) {
      const result = await runExport(
        parseExportRequest({ profile: 'demo', period: '2025', ...options }),
        harness.deps(),
      );
      const folder = join(harness.outDir, 'sheets', name);
      await mkdir(folder, { recursive: true });
      const book = join(folder, `${name}.xlsx`);
      await cp(join(harness.outDir, result.prefix, 'demo_2025.xlsx'), book);
      await run('soffice', [
        `-env:UserInstallation=${pathToFileURL(join(harness.outDir, 'lo-profile')).href}`,
        '--headless',
        '--convert-to',
        CSV_FILTER,
        '--outdir',
        folder,
        book,
      ]);
      offending[name] = {};
      checked[name] = 0;
      for (const file of (await readdir(folder)).filter((f) => f.endsWith('.csv'))) {
        const rows = parse(await readFile(join(folder, file), 'utf8'), {
          relax_column_count: true,
        }) as string[][];
        const header = rows[0] ?? [];
        const money = header.flatMap((title, i) => (/\((USD|GBP|EUR)\)/.test(title) ? [i] : []));
        const cells = rows
          .slice(1)
          .flatMap((row) => money.map((i) => row[i] ?? '').filter((cell) => cell !== ''));
        checked[name] = (checked[name] ?? 0) + cells.length;
        const bad = cells.filter((cell) => !CENTS.test(cell));
        if (bad.length > 0) (offending[name] as Record<string, string[]>)[file] = bad.slice(0, 5);
      }
    }
  }, 600_000);

  afterAll(async () => {
    await harness?.close();
  });

  it.each(Object.keys(RUNS))('shows every money cell of the %s workbook with two decimals', (name) => {
    expect([(checked[name] ?? 0) > 100, offending[name]]).toEqual([true, {}]);
  });
});
