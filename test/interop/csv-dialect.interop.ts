/**
 * The CSV dialects as a spreadsheet of their locale imports them: the European dialect
 * (`csv.decimalSeparator: ','`, `;` between fields) in de-DE, the default dialect in en-US.
 * LibreOffice opens every CSV file of a run with its CSV filter (`--infilter`: separator, quote,
 * UTF-8, line 1, the language) and saves it as XLSX, and exceljs reads the cells' types back; once
 * with "detect special numbers" off (the import dialog's default) and once on. Every date must
 * arrive as a date, every number as a number, and in the European dialect no text may keep a
 * decimal point (`264.198939 USDC`). The instant stays recoverable: the local date read back,
 * less the offset column beside it, is the UTC date of the same row.
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

/** A decimal number with a point inside a text. */
const POINT_NUMBER = /(?<![\d.])\d+\.\d+(?![\d.])/;
/** A text that looks like a date and time, in either dialect. */
const DATE_TEXT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/;

interface Dialect {
  name: string;
  /** The request's CSV dialect. */
  csv: { decimalSeparator: '.' | ',' };
  /** LibreOffice's CSV import: separator, `"` (34), UTF-8 (76), from line 1, the language. */
  filter: (detectSpecialNumbers: boolean) => string;
  /** A text that a number of this dialect looks like. */
  numberText: RegExp;
  /** Whether a decimal point inside a text is wrong (the European dialect). */
  commaInTexts: boolean;
}

const EUROPEAN: Dialect = {
  name: 'European dialect in a de-DE LibreOffice',
  csv: { decimalSeparator: ',' },
  filter: (special) => `CSV:59,34,76,1,,1031,false,${special}`,
  numberText: /^-?\d+(,\d+)?$/,
  commaInTexts: true,
};
const DEFAULT: Dialect = {
  name: 'default dialect in an en-US LibreOffice',
  csv: { decimalSeparator: '.' },
  filter: (special) => `CSV:44,34,76,1,,1033,false,${special}`,
  numberText: /^-?\d+(\.\d+)?$/,
  commaInTexts: false,
};

/** One imported file: the cells by column header, as exceljs reads them back. */
interface Imported {
  file: string;
  columns: Map<string, ExcelJS.CellValue[]>;
}

/** The cells that arrived as text though they look like a date or a number (or keep a decimal point). */
function wrongCells(entry: Imported, dialect: Dialect): string[] {
  const wrong: string[] = [];
  for (const [header, cells] of entry.columns) {
    for (const value of cells) {
      if (typeof value !== 'string') continue;
      const looksLikeData = DATE_TEXT.test(value) || dialect.numberText.test(value);
      if (looksLikeData || (dialect.commaInTexts && POINT_NUMBER.test(value))) {
        wrong.push(`${entry.file} ${header}: ${value}`);
      }
    }
  }
  return wrong.slice(0, 5);
}

/** Columns holding a date in some row but something else in another (empty cells aside). */
function mixedDateColumns(entry: Imported): string[] {
  return [...entry.columns]
    .filter(([, cells]) => {
      const filled = cells.filter((value) => value !== null && value !== undefined && value !== '');
      const dates = filled.filter((value) => value instanceof Date).length;
      return dates > 0 && dates < filled.length;
    })
    .map(([header]) => `${entry.file} ${header}`);
}

/** Reads the first sheet of `file` into columns by header. */
async function readColumns(file: string): Promise<Map<string, ExcelJS.CellValue[]>> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const sheet = workbook.worksheets[0];
  const headers: string[] = [];
  sheet?.getRow(1).eachCell({ includeEmpty: true }, (cell, col) => {
    headers[col] = String(cell.value ?? '');
  });
  const columns = new Map<string, ExcelJS.CellValue[]>(headers.filter(Boolean).map((h) => [h, []]));
  sheet?.eachRow((row, index) => {
    if (index === 1) return;
    headers.forEach((header, col) => {
      if (header) columns.get(header)?.push(row.getCell(col).value);
    });
  });
  return columns;
}

/** Minutes of an offset column's text, `UTC+02:00` → 120. */
function offsetMinutes(text: string): number {
  const [, sign, hours, minutes] = /^UTC([+-])(\d\d):(\d\d)$/.exec(text) ?? [];
  if (sign === undefined) throw new Error(`not an offset: ${text}`);
  return (sign === '-' ? -1 : 1) * (Number(hours) * 60 + Number(minutes));
}

for (const dialect of [EUROPEAN, DEFAULT]) {
  describe(`CSV files of the ${dialect.name}`, () => {
    let harness: ExportHarness;
    const imported = new Map<boolean, Imported[]>();

    beforeAll(async () => {
      harness = await startExportHarness('demo');
      const result = await runExport(
        parseExportRequest({
          profile: 'demo',
          period: '2025-10',
          timeZone: 'Europe/Berlin',
          formats: ['csv'],
          reports: ['transactions', 'movements', 'summary', 'changes', 'gains'],
          changesSince: '2025-01-01T00:00:00Z',
          csv: dialect.csv,
        }),
        harness.deps(),
      );
      const folder = join(harness.outDir, result.prefix);
      const files = (await readdir(folder)).filter((file) => file.endsWith('.csv'));
      for (const special of [false, true]) {
        const out = join(harness.outDir, `imported-${special}`);
        await run('soffice', [
          `-env:UserInstallation=${pathToFileURL(join(harness.outDir, 'lo-profile')).href}`,
          '--headless',
          `--infilter=${dialect.filter(special)}`,
          ...['--convert-to', 'xlsx', '--outdir', out],
          ...files.map((file) => join(folder, file)),
        ]);
        const entries: Imported[] = [];
        for (const file of files) {
          entries.push({ file, columns: await readColumns(join(out, file.replace(/\.csv$/, '.xlsx'))) });
        }
        imported.set(special, entries);
      }
    }, 300_000);

    afterAll(async () => {
      await harness?.close();
    });

    for (const special of [false, true]) {
      const mode = `"detect special numbers" ${special ? 'on' : 'off'}`;

      it(`imports the transactions with dates as dates and amounts as numbers, ${mode}`, () => {
        const transactions = imported.get(special)?.find((entry) => entry.file.endsWith('_transactions.csv'));
        const count = (header: string, kind: 'date' | 'number') =>
          (transactions?.columns.get(header) ?? []).filter((value) =>
            kind === 'date' ? value instanceof Date : typeof value === 'number',
          ).length;
        const rows = transactions?.columns.get('id')?.length ?? 0;
        expect([
          rows > 10,
          count('date_utc', 'date'),
          count('date_local', 'date'),
          count('value_amount', 'number') > 10,
        ]).toEqual([true, rows, rows, true]);
      });

      it(`imports every file without a date or number left as text, nor a date column mixed, ${mode}`, () => {
        const entries = imported.get(special) ?? [];
        expect([
          entries.length >= 8,
          entries.flatMap((entry) => wrongCells(entry, dialect)),
          entries.flatMap(mixedDateColumns),
        ]).toEqual([true, [], []]);
      });

      it(`imports dates whose local time less the offset beside it is the UTC date of the row, ${mode}`, () => {
        const transactions = imported.get(special)?.find((entry) => entry.file.endsWith('_transactions.csv'));
        const utc = transactions?.columns.get('date_utc') ?? [];
        const local = transactions?.columns.get('date_local') ?? [];
        const offsets = transactions?.columns.get('date_local_utc_offset') ?? [];
        const off = utc.filter((value, i) => {
          const wall = local[i];
          if (!(value instanceof Date) || !(wall instanceof Date)) return true;
          const instant = wall.getTime() - offsetMinutes(String(offsets[i])) * 60_000;
          // A date read back from a spreadsheet serial may be a millisecond off.
          return Math.abs(instant - value.getTime()) > 1;
        });
        expect([utc.length > 10, off]).toEqual([true, []]);
      });
    }
  });
}
