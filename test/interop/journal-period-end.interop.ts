/**
 * The demo's UK tax year 2024/25 (6 April to 5 April) with the journal in every format: it ties
 * out (the last balance check on 5 April, before the 30 days HMRC identification reads after it),
 * hledger and bean-check accept the journals, the wallets' BTC on 5 April is the 0.92461622,
 * and the accounting products' files read back by the readers written from their documentation,
 * the DATEV file named as DATEV's import requires.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { checkDatevFileName, readDatevBuchungsstapel } from '../support/ledger-parsers/datev.ts';
import { readQuickbooksAccounts, readQuickbooksJournals } from '../support/ledger-parsers/quickbooks.ts';
import { readXeroChartOfAccounts, readXeroManualJournals } from '../support/ledger-parsers/xero.ts';
import { tool } from './support/tool.ts';

/** Made-up Kurse (USD per EUR) for the tax year's months: DATEV's fields 4–6 of the USD batch. */
const RATES = Object.fromEntries(
  ['2024-04', '2024-05', '2024-06', '2024-07', '2024-08', '2024-09', '2024-10', '2024-11', '2024-12']
    .concat(['2025-01', '2025-02', '2025-03', '2025-04'])
    .map((month) => [month, '1.0825']),
);

describe('the UK tax year 2024/25 of the demo, journal in every format', () => {
  let harness: ExportHarness;
  let folder: string;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: { from: '2024-04-06', to: '2025-04-05' },
        timeZone: 'Europe/London',
        reports: ['journal'],
        formats: ['csv'],
        gains: { taxRules: 'uk', currency: 'USD' },
        journal: {
          formats: ['csv', 'beancount', 'hledger', 'quickbooks', 'xero', 'datev'],
          settings: {
            datev: { consultantNumber: 1001, clientNumber: 1, chartOfAccounts: 'SKR04', eurRates: RATES },
          },
        },
      }),
      harness.deps(),
    );
    folder = join(harness.outDir, result.prefix);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('ties out, closes on 5 April with the BTC the wallets held, and hledger and bean-check accept it', async () => {
    const base = 'demo_2024-04-06_2025-04-05';
    const hledger = join(folder, `${base}_journal.hledger`);
    const h = await tool('hledger', ['-f', hledger, 'check', '--strict']);
    expect(h.output).toBe('');
    const b = await tool('bean-check', [join(folder, `${base}_journal.beancount`)]);
    expect(b.output).toBe('');
    const text = await readFile(hledger, 'utf8');
    const last = text.slice(text.lastIndexOf('* Balances at') - 11);
    expect(last.slice(0, 10)).toBe('2025-04-05');
    expect(last).toMatch(/^ {4}Assets:Crypto:BTC {2}0 BTC = 0\.92461622 BTC$/m);
  });

  it("writes the products' files as their documentation reads them", async () => {
    const files = await readdir(folder);
    // One Buchungsstapel per fiscal year (WJ-Beginn 1 January): 2024 and 2025.
    const datev = files.filter((name) => name.includes('Buchungsstapel')).sort();
    expect(datev).toEqual([
      'EXTF_demo_2024-04-06_2025-04-05_Buchungsstapel_20240406_20241231.csv',
      'EXTF_demo_2024-04-06_2025-04-05_Buchungsstapel_20250101_20250405.csv',
    ]);
    for (const name of datev) {
      checkDatevFileName(name);
      const read = readDatevBuchungsstapel(await readFile(join(folder, name)));
      expect(read.bookings.length).toBeGreaterThan(0);
      expect(read.bookings.every((booking) => booking.wkzBasisUmsatz === 'EUR')).toBe(true);
    }
    const codes = new Set(
      readXeroChartOfAccounts(
        await readFile(
          join(folder, files.find((n) => n.endsWith('journal-xero-accounts.csv')) as string),
          'utf8',
        ),
      ).map((a) => a.code),
    );
    for (const name of files.filter((n) => /journal-xero-\d+\.csv$/.test(n)))
      for (const journal of readXeroManualJournals(await readFile(join(folder, name), 'utf8')).journals)
        for (const line of journal.lines) expect(codes).toContain(line.accountCode);
    const names = new Set(
      readQuickbooksAccounts(
        await readFile(
          join(folder, files.find((n) => n.endsWith('journal-quickbooks-accounts.csv')) as string),
          'utf8',
        ),
      )
        .map((a) => a.name)
        .concat('Opening Balance Equity'),
    );
    const qbo = await readFile(
      join(folder, files.find((n) => n.endsWith('journal-quickbooks.csv')) as string),
      'utf8',
    );
    for (const journal of readQuickbooksJournals(qbo, 'MM/DD/YYYY'))
      for (const line of journal.lines) expect(names).toContain(line.account);
  });
});
