/**
 * Tokens spent on goods or services in the demo year (transactions of category `expense`), as
 * hledger reads the journal back: the spent account holds their value, summed here from the
 * transactions CSV of the same run (not from the journal), and cash clearing does not carry them
 * (no money came in). Both tools accept the journals.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../lib/domain/index.ts';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { tool } from './support/tool.ts';

/** hledger's balance (at cost, USD) of the postings matching `query`, summed: debit positive. */
async function balanceOf(file: string, query: string[]): Promise<string> {
  const result = await tool('hledger', ['-f', file, 'bal', ...query, '--cost', '--flat', '-N', '-O', 'csv']);
  expect(result.code, result.output).toBe(0);
  return result.output
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/"/g, '').split(',')[1]?.replace(/^USD /, '') ?? '0')
    .reduce((sum, amount) => sum.plus(amount === '' ? '0' : amount), new Big(0))
    .toFixed(2);
}

describe('tokens spent on goods or services in the demo year (us rules, USD), read back by hledger', () => {
  let harness: ExportHarness;
  let folder: string;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['transactions', 'journal'],
        formats: ['csv'],
        gains: { taxRules: 'us', currency: 'USD' },
      }),
      harness.deps(),
    );
    folder = join(harness.outDir, result.prefix);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('posts their value to the spent account, not to cash clearing', async () => {
    const hledgerFile = join(folder, 'demo_2025_journal.hledger');
    expect(await tool('hledger', ['-f', hledgerFile, 'check', '--strict'])).toEqual({ code: 0, output: '' });
    expect(await tool('bean-check', [join(folder, 'demo_2025_journal.beancount')])).toEqual({
      code: 0,
      output: '',
    });
    // The expense transactions and their value, from the transactions CSV.
    const rows: Record<string, string>[] = parse(await readFile(join(folder, 'demo_2025_transactions.csv')), {
      bom: true,
      columns: true,
    });
    const spent = rows.filter((row) => row.category === 'expense');
    expect(spent.length).toBeGreaterThan(0);
    expect(new Set(spent.map((row) => row.value_currency))).toEqual(new Set(['USD']));
    const value = spent.reduce((sum, row) => sum.plus(row.value_amount as string), new Big(0)).toFixed(2);
    expect(await balanceOf(hledgerFile, ['Expenses:Crypto:Spent'])).toBe(value);
    // Their entries (tagged with their ids) move cash clearing by nothing: a fiat fee paid in gas
    // (ETH) is credited to it and the gas's value debited back. The assets do move: the query works.
    const ids = `tag:txids=^(${spent.map((row) => row.id).join('|')})$`;
    expect(await balanceOf(hledgerFile, ['Assets:Cash-Clearing', ids])).toBe('0.00');
    expect(await balanceOf(hledgerFile, ['Expenses:Crypto:Spent', ids])).toBe(value);
    expect(await balanceOf(hledgerFile, ['Assets:Crypto', ids])).not.toBe('0.00');
  });
});
