/**
 * An export's period against the tax years of its rule set, as an accountant reads the files: every
 * tax-year summary row, the Read me and the About sheet say when the period covers only part of a
 * tax year. Expectations are worked out by hand from the calendar (the UK tax year starts at London
 * midnight of 6 April: 2025-04-05T23:00Z in BST), not from the code under test.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';

/** A sheet's rows as objects keyed by its header row. */
async function sheetRows(file: string, name: string): Promise<Record<string, string>[]> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(file);
  const sheet = workbook.getWorksheet(name);
  const rows: string[][] = [];
  sheet?.eachRow((row) => {
    rows.push((row.values as unknown[]).slice(1).map((value) => (value == null ? '' : String(value))));
  });
  const [header = [], ...body] = rows;
  return body.map((row) => Object.fromEntries(header.map((key, i) => [key, row[i] ?? ''])));
}

describe('tax years the period covers only in part', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('marks the calendar year 2025 under uk rules as parts of 2024/25 and 2025/26 in every summary, the Read me and the About sheet', async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['gains'],
        formats: ['csv', 'xlsx'],
        gains: { taxRules: 'uk', currency: 'USD' },
      }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const expected: Record<string, string> = {
      '2024/25': '2025-01-01 to 2025-04-05: only part of the tax year 2024/25',
      '2025/26': '2025-04-06 to 2025-12-31: only part of the tax year 2025/26',
    };
    const tax = await readCsv(join(folder, 'demo_2025_tax_summary.csv'));
    const summary = await readCsv(join(folder, 'demo_2025_gains_summary.csv'));
    const income = await readCsv(join(folder, 'demo_2025_income.csv'));
    const exact = await readCsv(join(folder, 'demo_2025_gains_summary_exact.csv'));
    const sheet = await sheetRows(join(folder, 'demo_2025.xlsx'), 'Capital Gains summary');
    const wrong = [
      ...tax,
      ...summary,
      ...income,
      ...exact,
      ...sheet.map((row) => ({ tax_year: row['Tax year'], covers: row.Covers })),
    ].filter((row) => row.covers !== expected[row.tax_year as string]);
    expect([[...new Set(tax.map((row) => row.tax_year))], wrong]).toEqual([['2024/25', '2025/26'], []]);

    const readme = await readFile(join(folder, 'README.txt'), 'utf8');
    expect(readme).toMatch(
      /\r\nTax years: the period covers ONLY PART of some tax years \(tax years start on 04-06, month-day, in Europe\/London\)/,
    );
    expect(readme).toContain(
      '    2024/25 (2024-04-06 to 2025-04-05): only 2025-01-01 to 2025-04-05, part of the tax year\r\n    2025/26 (2025-04-06 to 2026-04-05): only 2025-04-06 to 2025-12-31, part of the tax year\r\n',
    );

    const about = new Map(
      (await sheetRows(join(folder, 'demo_2025.xlsx'), 'About')).map((row) => [row.Item, row.Value]),
    );
    expect([
      about.get('Gains: tax rules'),
      about.get('Gains: tax year starts'),
      about.get('Gains: pools'),
      about.get('Gains: figures in'),
    ]).toEqual([
      expect.stringMatching(/^United Kingdom/),
      // The request's zone is UTC; uk tax years are London's.
      '04-06 (MM-DD, in Europe/London)',
      'one for the whole portfolio (universal)',
      expect.stringMatching(/^USD, the data's currency, by explicit choice/),
    ]);
  });

  it('reads 6 April to 5 April under uk rules in London days: the whole 2024/25 and nothing of 2025/26; UTC days refused', async () => {
    const request = (zone?: string) =>
      parseExportRequest({
        profile: 'acme',
        period: { from: '2024-04-06', to: '2025-04-05' },
        ...(zone === undefined ? {} : { timeZone: zone }),
        reports: ['gains'],
        formats: ['csv'],
        gains: { taxRules: 'uk', currency: 'USD' },
      });
    // In UTC days the period would end at 01:00 on London's 6 April, inside the next tax year.
    expect(() => request('UTC')).toThrow(
      /timeZone: uk rules count the period and tax year in Europe\/London days/,
    );
    expect(request().timeZone).toBe('Europe/London');
    harness = await startExportHarness('acme');
    const result = await runExport(request(), harness.deps());
    const folder = join(harness.outDir, result.prefix);
    const readme = await readFile(join(folder, 'README.txt'), 'utf8');
    expect(readme).toContain('    2024/25 (2024-04-06 to 2025-04-05): the whole tax year\r\n');
    expect(readme).not.toContain('2025/26');
    const tax = await readCsv(join(folder, 'acme_2024-04-06_2025-04-05_tax_summary.csv'));
    expect(tax.length).toBeGreaterThan(0);
    expect(tax.map((row) => row.tax_year)).not.toContain('2025/26');
    const disposals = await readCsv(join(folder, 'acme_2024-04-06_2025-04-05_disposals.csv'));
    // Every disposal's London day is inside 6 April 2024 – 5 April 2025 (dates shown in London).
    const outside = disposals.filter(
      (row) =>
        (row.date_disposed ?? '') < '2024-04-06' || (row.date_disposed ?? '').slice(0, 10) > '2025-04-05',
    );
    expect(outside).toEqual([]);
  });

  it('marks a us month as part of its calendar tax year on Form 8949 TOTALs and Schedule D, and shows the broker option on the About sheet', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024-03',
        timeZone: 'America/New_York',
        reports: ['gains'],
        formats: ['csv', 'xlsx'],
        gains: { taxRules: 'us', brokerReporting: 'basis-reported' },
      }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const part = '2024-03-01 to 2024-03-31: only part of the tax year 2024';
    const form = await readCsv(join(folder, 'acme_2024-03_form-8949.csv'));
    const scheduleD = await readCsv(join(folder, 'acme_2024-03_schedule-d.csv'));
    const totals = form.filter((row) => row.description?.startsWith('TOTAL'));
    expect([
      totals.length > 0,
      totals.every((row) => row.covers === part),
      form.filter((row) => !row.description?.startsWith('TOTAL')).every((row) => row.covers === ''),
      scheduleD.map((row) => row.covers),
    ]).toEqual([true, true, true, scheduleD.map(() => part)]);
    const about = new Map(
      (await sheetRows(join(folder, 'acme_2024-03.xlsx'), 'About')).map((row) => [row.Item, row.Value]),
    );
    expect([about.get('Gains: Form 8949 box'), about.get('Gains: pools')]).toEqual([
      expect.stringContaining('box G and J from 2025, A and D before'),
      'one for the whole portfolio before 1 January 2025, one per account (wallet by wallet) from then on',
    ]);
  });
});
