/**
 * The European CSV dialect (`csv.decimalSeparator: ','`, `;` between fields) as a German-locale
 * spreadsheet imports it: LibreOffice opens every CSV file of a run with its CSV filter in de-DE
 * (`--infilter`, language 1031) and saves it as XLSX, and exceljs reads the cells' types back.
 * Every number written with a decimal comma must arrive as a number, every date as a date, and no
 * text may keep a decimal point (`264.198939 USDC`).
 */
import { execFile } from 'node:child_process';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const run = promisify(execFile);

/** LibreOffice's CSV import: `;` (59), `"` (34), UTF-8 (76), from line 1, de-DE (1031). */
const DE_FILTER = 'CSV:59,34,76,1,,1031';
/** A decimal number with a point inside a text. */
const POINT_NUMBER = /(?<![\d.])\d+\.\d+(?![\d.])/;

interface Imported {
  file: string;
  dates: number;
  numbers: number;
  /** Cells that arrived as text though they look like a date or a number, or texts with a decimal point. */
  wrong: string[];
}

describe('CSV files of the European dialect imported by a de-DE LibreOffice', () => {
  let harness: ExportHarness;
  const imported: Imported[] = [];

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025-10',
        timeZone: 'Europe/Berlin',
        formats: ['csv'],
        csv: { decimalSeparator: ',' },
      }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const files = (await readdir(folder)).filter((file) => file.endsWith('.csv'));
    const out = join(harness.outDir, 'imported');
    await run('soffice', [
      `-env:UserInstallation=${pathToFileURL(join(harness.outDir, 'lo-profile')).href}`,
      '--headless',
      `--infilter=${DE_FILTER}`,
      '--convert-to',
      'xlsx',
      '--outdir',
      out,
      ...files.map((file) => join(folder, file)),
    ]);
    for (const file of files) {
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(join(out, file.replace(/\.csv$/, '.xlsx')));
      const entry: Imported = { file, dates: 0, numbers: 0, wrong: [] };
      workbook.worksheets[0]?.eachRow((row, index) => {
        if (index === 1) return;
        row.eachCell((cell) => {
          const value = cell.value;
          if (value instanceof Date) entry.dates += 1;
          else if (typeof value === 'number') entry.numbers += 1;
          else if (typeof value === 'string') {
            const looksLikeData =
              /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}/.test(value) || /^-?\d+(,\d+)?$/.test(value);
            if (looksLikeData || POINT_NUMBER.test(value)) entry.wrong.push(value);
          }
        });
      });
      entry.wrong = entry.wrong.slice(0, 5);
      imported.push(entry);
    }
  }, 300_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('imports the transactions with dates as dates, amounts as numbers, In and Out with decimal commas', () => {
    const transactions = imported.find((entry) => entry.file.endsWith('_transactions.csv'));
    expect([transactions?.dates ?? 0, transactions?.numbers ?? 0, transactions?.wrong]).toEqual([
      expect.any(Number),
      expect.any(Number),
      [],
    ]);
    expect([(transactions?.dates ?? 0) > 10, (transactions?.numbers ?? 0) > 10]).toEqual([true, true]);
  });

  it('imports every other file without a date or number left as text, nor a text with a decimal point', () => {
    expect([imported.length >= 4, imported.filter((entry) => entry.wrong.length > 0)]).toEqual([true, []]);
  });
});
