import { describe, expect, it } from 'vitest';
import type { Manifest } from '../export/publish/index.ts';
import { printSummary } from './summary.ts';

describe('printSummary', () => {
  it('returns the totals as turnover and fees, and counts saying what they count, zero counters left out', () => {
    let text = '';
    const manifest = {
      runId: 'r1',
      period: { label: '2025', timeZone: 'UTC' },
      counts: { transactions: 974, duplicatesDropped: 0, changes: 0, gainsDisposals: 4022 },
      totals: { 'value (USD)': '136260253.29', 'fees (USD)': '20320.06' },
      files: [],
    } as unknown as Manifest;
    printSummary({ write: (chunk: string) => (text += chunk) }, manifest, '/out');
    expect(text.split('\n').filter((line) => line.startsWith('  '))).toEqual([
      '  Transactions in the period (rows of the transactions report): 974',
      '  Gains: disposals over the whole history (all years; the Disposals sheet and file list those of the period): 4022',
      '  Turnover: value of all transactions in the period (USD), not holdings: 136260253.29',
      '  Fees paid in the period (USD): 20320.06',
    ]);
  });

  it("returns the journal's totals and tie-out when the run wrote a journal", () => {
    let text = '';
    const manifest = {
      runId: 'r1',
      period: { label: '2025', timeZone: 'UTC' },
      counts: {},
      files: [],
      journal: {
        formats: ['csv', 'hledger'],
        rollup: false,
        currency: 'USD',
        entries: 706,
        postings: 3302,
        unclassified: 2,
        totals: { realisedGain: '308349.86', income: { income: '12536.55' }, accounts: {} },
        checks: [
          { check: 'asset balances at each of 12 month ends equal the holdings', compared: 96, ok: true },
        ],
      },
    } as unknown as Manifest;
    printSummary({ write: (chunk: string) => (text += chunk) }, manifest, '/out');
    expect(text.split('\n').filter((line) => line.startsWith('  Journal'))).toEqual([
      '  Journal: 706 entries, 3302 postings in USD (csv, hledger); 2 to review on the unclassified account',
      '  Journal ties out: realised gain 308349.86 = gains summary; income by category: income 12536.55 = income report; asset balances at each of 12 month ends equal the holdings',
    ]);
  });

  it('names each income category after the words "income by category", and none when there is no income', () => {
    const lineFor = (income: Record<string, string>) => {
      let text = '';
      const manifest = {
        runId: 'r1',
        period: { label: '2025', timeZone: 'UTC' },
        counts: {},
        files: [],
        journal: {
          formats: ['csv'],
          rollup: false,
          currency: 'USD',
          entries: 2,
          postings: 4,
          unclassified: 0,
          totals: { realisedGain: '0.00', income, accounts: {} },
          checks: [],
        },
      } as unknown as Manifest;
      printSummary({ write: (chunk: string) => (text += chunk) }, manifest, '/out');
      return text.split('\n').find((line) => line.startsWith('  Journal ties out')) ?? '';
    };
    expect([lineFor({ staking: '12.50', airdrop: '3.00' }), lineFor({})]).toEqual([
      '  Journal ties out: realised gain 0.00 = gains summary; income by category: staking 12.50, airdrop 3.00 = income report; ',
      '  Journal ties out: realised gain 0.00 = gains summary; income by category: none = income report; ',
    ]);
  });

  const file = (name: string) => ({
    name,
    location: `/out/reports/demo/2025/r1/${name}`,
    key: `reports/demo/2025/r1/${name}`,
    bytes: 10,
    sha256: '0'.repeat(64),
    contentType: 'text/plain',
  });

  it("names each tax year's net gain or loss and income, the warnings open, and the file to open first", () => {
    let text = '';
    const manifest = {
      runId: 'r1',
      period: { label: '2024-04-06..2025-04-05', timeZone: 'Europe/London' },
      demo: true,
      counts: { transactions: 3, gainsWarnings: 4 },
      headline: {
        taxYears: [
          { taxYear: '2023/24', netGain: '-12.50', income: '0', currency: 'GBP' },
          { taxYear: '2024/25', netGain: '154806.30', income: '981.20', currency: 'GBP' },
        ],
        warningsOpen: 4,
      },
      files: [file('demo_x_snapshot.ndjson.gz'), file('README.txt'), file('demo_x.xlsx')],
    } as unknown as Manifest;
    printSummary({ write: (chunk: string) => (text += chunk) }, manifest, '/out');
    const lines = text.split('\n');
    expect(lines.filter((line) => /^ {2}(Tax year|Warnings open)|^Open first/.test(line))).toEqual([
      '  Tax year 2023/24: net loss 12.50 GBP, income 0 GBP',
      '  Tax year 2024/25: net gain 154806.30 GBP, income 981.20 GBP',
      '  Warnings open: 4 (the Warnings sheet lists each, with what to do)',
      'Open first: /out/reports/demo/2025/r1/demo_x.xlsx (its Read me sheet comes first: what to check, then every sheet)',
    ]);
    expect(lines.filter((line) => line.startsWith('  Gains: warnings'))).toEqual([]);
    expect(lines[1]).toBe('Export r1 finished: 2024-04-06..2025-04-05 in Europe/London (DEMO DATA)');
    expect(lines).toContain('Files (in /out/reports/demo/2025/r1):');
    expect(lines).toContain('  README.txt  10 bytes');
  });

  it('says "none" when no warning is open, and opens the Read me text of a CSV-only run', () => {
    let text = '';
    const manifest = {
      runId: 'r1',
      period: { label: '2025', timeZone: 'UTC' },
      counts: {},
      headline: { taxYears: [], warningsOpen: 0 },
      files: [file('demo_2025_snapshot.ndjson.gz'), file('README.txt')],
    } as unknown as Manifest;
    printSummary({ write: (chunk: string) => (text += chunk) }, manifest, '/out');
    expect(text).toContain('  Warnings open: none\n');
    expect(text).toContain('Open first: /out/reports/demo/2025/r1/README.txt (');
  });

  it("says the reconciliation's result and the opening-balance check under the headline, and nothing for a run without them", () => {
    const summaryOf = (extra: object) => {
      let text = '';
      const manifest = {
        runId: 'r1',
        period: { label: '2025-02', timeZone: 'UTC' },
        counts: {},
        headline: { taxYears: [], warningsOpen: 1 },
        files: [],
        ...extra,
      } as unknown as Manifest;
      printSummary({ write: (chunk: string) => (text += chunk) }, manifest, '/out');
      return text.split('\n').filter((line) => /^ {2}(Balances:|Opening balances)/.test(line));
    };
    const reconciliation = {
      status: 'differences',
      note: 'differences: 1 of 78 ledger balances differ from what the service reports',
      opening: {
        status: 'continues',
        note: 'opening balances continue 2025-01 (run r0)',
      },
    };

    expect({ with: summaryOf({ reconciliation }), without: summaryOf({}) }).toEqual({
      with: [
        '  Balances: differences: 1 of 78 ledger balances differ from what the service reports',
        '  Opening balances continue 2025-01 (run r0)',
      ],
      without: [],
    });
  });

  it('says how many earlier runs of the period sit beside the run, and which one is the latest', () => {
    const summaryWith = (earlierRuns: number) => {
      let text = '';
      const manifest = { runId: 'r1', period: { label: '2025', timeZone: 'UTC' }, counts: {}, files: [] };
      printSummary({ write: (chunk: string) => (text += chunk) }, manifest as unknown as Manifest, '/out', {
        earlierRuns,
      });
      return text;
    };
    expect(summaryWith(0)).not.toContain('earlier');
    expect(summaryWith(8)).toContain(
      '8 earlier runs of this period beside it: run folders are named by their start (UTC), so the last one listed is the latest',
    );
  });
});
