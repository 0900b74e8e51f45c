/**
 * The us package of an export, from outside (simulator over HTTP, local folder): Form 8949 boxes
 * chosen account by account in one run, the allocation statement of 1 January 2025 and the
 * Schedule 1 line 8v file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Big from 'big.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';

const sum = (values: readonly (string | undefined)[]) =>
  values.reduce((total, value) => total.plus(value || '0'), new Big(0)).toFixed(2);

describe('runExport with us rules', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('writes one Form 8949 box per account reporting in one run, each TOTAL on its Schedule D line, plus the allocation statement and Schedule 1', async () => {
    harness = await startExportHarness('demo');
    const request = (brokerReporting: unknown) =>
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['gains'],
        formats: ['csv'],
        gains: { taxRules: 'us', brokerReporting },
      });
    const plain = await runExport(request('none'), harness.deps());
    const plainForm = await readCsv(join(harness.outDir, plain.prefix, 'demo_2025_form-8949.csv'));
    const accounts = [
      ...new Set(plainForm.map((row) => row.account).filter((a) => a !== '' && a !== undefined)),
    ];
    expect(accounts.length).toBeGreaterThan(1);
    const exchange = accounts[0] as string;

    const result = await runExport(
      request({ default: 'none', accounts: { [exchange]: 'basis-not-reported' } }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const form = await readCsv(join(folder, 'demo_2025_form-8949.csv'));
    // The box lines; lines 7, 15 and 16 (no box) add them up.
    const scheduleD = (await readCsv(join(folder, 'demo_2025_schedule-d.csv'))).filter(
      (line) => line.box !== '',
    );
    const rows = form.filter((row) => !row.description?.startsWith('TOTAL'));
    // The exchange's sales under H/K (proceeds reported without basis), every other account's under I/L.
    for (const row of rows) expect(['H', 'K'].includes(row.box as string)).toBe(row.account === exchange);
    const boxes = scheduleD.map((line) => line.box);
    expect(boxes.some((box) => box === 'H' || box === 'K')).toBe(true);
    expect(boxes.some((box) => box === 'I' || box === 'L')).toBe(true);
    const lineOf: Record<string, string> = { H: '2', K: '9', I: '3', L: '10' };
    for (const line of scheduleD) {
      const inBox = rows.filter((row) => row.box === line.box);
      const total = form.find((row) => row.box === line.box && row.description?.startsWith('TOTAL'));
      expect(line.line).toBe(lineOf[line.box as string]);
      for (const column of ['proceeds', 'cost', 'gain']) {
        const added = sum(inBox.map((row) => row[column]));
        expect([total?.[column], line[column]]).toEqual([added, added]);
      }
    }
    // One run, both boxes: the plain run's rows are the same rows, only boxed (and so ordered) differently.
    const descriptions = (list: typeof form) =>
      list
        .filter((row) => !row.description?.startsWith('TOTAL'))
        .map((row) => row.description)
        .sort();
    expect(descriptions(form)).toEqual(descriptions(plainForm));

    // The allocation statement: the history crosses 1 January 2025; per wallet and token a TOTAL
    // that adds its rows.
    const statement = await readCsv(join(folder, 'demo_2025_basis-allocation-2025.csv'));
    expect(statement.length).toBeGreaterThan(0);
    for (const total of statement.filter((row) => row.how === 'TOTAL')) {
      const parts = statement.filter(
        (row) => row.how !== 'TOTAL' && row.account === total.account && row.token === total.token,
      );
      expect(total.basis).toBe(sum(parts.map((row) => row.basis)));
    }

    // Schedule 1 line 8v: the year's TOTAL is the Income report's TOTAL for 2025.
    const schedule1 = await readCsv(join(folder, 'demo_2025_schedule-1.csv'));
    const income = await readCsv(join(folder, 'demo_2025_income.csv'));
    const line8v = schedule1.find((row) => row.tax_year === '2025' && row.item?.startsWith('TOTAL'));
    const incomeTotal = income.find((row) => row.tax_year === '2025' && row.token === 'TOTAL');
    expect([line8v?.line, line8v?.amount]).toEqual(['8v', incomeTotal?.value]);
    const readme = await readFile(join(folder, 'README.txt'), 'utf8');
    expect(readme).toContain(`Form 8949 box, account ${exchange}`);
  });
});
