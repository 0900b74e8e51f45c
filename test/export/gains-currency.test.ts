/**
 * Every money header of the gains reports names its currency (issue 24, item 10), in CSV (a
 * `currency` column) and XLSX (`Proceeds (USD)`), for every rule set; and the German limits (in
 * euros) are not put beside dollar figures. End to end: the simulator over HTTP, a local folder.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';

/** Headers of money columns as the sheets word them (token quantities and counts are not money). */
const MONEY = /proceeds|cost|gain|loss|net|value|amount|adjustment/i;
const NOT_MONEY = /quantity|check: .*\(quantity\)|lots matched|receipts|number|rule|transaction|term/i;

describe('gains reports: every money header names its currency (issue 24, item 10)', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  async function exportWith(gains: Record<string, unknown>) {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({
        profile: 'acme',
        period: '2024',
        timeZone: 'Europe/Berlin',
        reports: ['gains'],
        formats: ['csv', 'xlsx'],
        gains,
      }),
      harness.deps(),
    );
    return join(harness.outDir, result.prefix);
  }

  it('returns a USD currency column in every gains CSV with money, and (USD) in every money header of the workbook', async () => {
    for (const gains of [
      { taxRules: 'de', currency: 'USD' },
      { taxRules: 'us', brokerReporting: 'basis-not-reported' },
    ]) {
      const folder = await exportWith(gains);
      const files = (await readdir(folder)).filter((name) => name.endsWith('.csv'));
      const withMoney = [
        'disposals',
        'gains_summary',
        'income',
        'holdings',
        'tax_summary',
        'form-8949',
        'schedule-d',
      ];
      const checked = files.filter((file) => withMoney.some((table) => file.includes(`_${table}`)));
      // The five money reports and their exact companions, and the rule set's own.
      expect(checked.length, checked.join()).toBeGreaterThanOrEqual(gains.taxRules === 'us' ? 9 : 8);
      for (const name of checked) {
        const rows = await readCsv(join(folder, name));
        expect(rows.length, name).toBeGreaterThan(0);
        expect(new Set(rows.map((row) => row.currency)), name).toEqual(new Set(['USD']));
      }
      const workbook = new ExcelJS.Workbook();
      const xlsx = (await readdir(folder)).find((name) => name.endsWith('.xlsx')) as string;
      await workbook.xlsx.readFile(join(folder, xlsx));
      const unnamed: string[] = [];
      for (const sheet of workbook.worksheets) {
        if (['Read me', 'About', 'Warnings'].includes(sheet.name)) continue;
        const headers = (sheet.getRow(1).values as unknown[]).filter(
          (v): v is string => typeof v === 'string',
        );
        for (const header of headers) {
          if (MONEY.test(header) && !NOT_MONEY.test(header) && !header.includes('(USD)'))
            unnamed.push(`${sheet.name}: ${header}`);
        }
      }
      expect(unnamed).toEqual([]);
    }
  });

  it('returns the Anlage SO limits in euros in the note, not beside dollar figures, and not applied', async () => {
    const folder = await exportWith({ taxRules: 'de', currency: 'USD' });
    const name = (await readdir(folder)).find((file) => file.endsWith('_tax_summary.csv')) as string;
    const rows = await readCsv(join(folder, name));
    const limit = rows.find((row) => row.item === '§ 23 Abs. 3 Satz 5 EStG: Freigrenze');
    expect(limit?.amount).toBe('');
    expect(limit?.note).toMatch(/1000 € .*Not applied: the figures here are USD, the limit is in EUR/);
    expect(rows.find((row) => row.item === '§ 23 EStG: steuerpflichtig')?.amount).toBe('');
    expect(rows.find((row) => row.item === '§ 22 Nr. 3 EStG: Freigrenze')?.amount).toBe('');
  });
});
