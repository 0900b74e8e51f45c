import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport, transactionColumns } from '../../lib/export/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';

const run = promisify(execFile);
/**
 * Raw values (not as shown), comma, double quote, UTF-8; the 12th token picks the sheet LibreOffice
 * converts: the 2nd, Transactions (the 1st is the Read me).
 */
const CSV_EXPORT = 'csv:Text - txt - csv (StarCalc):44,34,76,1,,0,false,true,false,false,false,2';

describe('an exported workbook opened by LibreOffice', () => {
  let harness: ExportHarness;
  let fromCsv: Record<string, string>[] = [];
  let fromXlsx: Record<string, string>[] = [];

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({ profile: 'demo', period: '2025-03' }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    fromCsv = await readCsv(join(folder, 'demo_2025-03_transactions.csv'));
    const converted = join(harness.outDir, 'converted');
    await mkdir(converted);
    await run('soffice', [
      `-env:UserInstallation=${pathToFileURL(join(harness.outDir, 'lo-profile')).href}`,
      '--headless',
      '--convert-to',
      CSV_EXPORT,
      '--outdir',
      converted,
      join(folder, 'demo_2025-03.xlsx'),
    ]);
    fromXlsx = await readCsv(join(converted, 'demo_2025-03-Transactions.csv'));
  }, 180_000);

  afterAll(async () => {
    await harness?.close();
  });

  /** The sheet's header of a report column: its title, or the key itself for extra columns. */
  const usd = new Set(['USD']);
  const headerOf = (key: string) =>
    transactionColumns('UTC', { value: usd, fee: usd }).find((c) => c.key === key)?.header ?? key;
  const cells = (rows: Record<string, string>[], column: string) => rows.map((row) => row[column] ?? '');

  it('returns the same transactions, in the same order, as the CSV report', () => {
    expect(cells(fromXlsx, headerOf('id'))).toEqual(cells(fromCsv, 'id'));
  });

  it('returns every text cell verbatim, formula-like text included', () => {
    // The CSV guards formula-like text with a leading quote; the sheet keeps it as plain text.
    const unguarded = (value: string) => value.replace(/^'(?=[=+\-@\t\r])/, '').replace(/\r\n?/g, '\n');
    for (const key of ['hash', 'category', 'sub_type', 'in', 'out', 'memo']) {
      expect(cells(fromXlsx, headerOf(key))).toEqual(cells(fromCsv, key).map(unguarded));
    }
  });

  it('returns value amounts equal to the CSV report to 15 significant digits', () => {
    const fifteen = (text: string) => (text === '' ? '' : new Big(text).prec(15).toFixed());
    expect(cells(fromXlsx, headerOf('value_amount')).map(fifteen)).toEqual(
      cells(fromCsv, 'value_amount').map(fifteen),
    );
  });
});
