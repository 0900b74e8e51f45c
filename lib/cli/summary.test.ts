import { describe, expect, it } from 'vitest';
import type { Manifest } from '../export/publish/index.ts';
import { printSummary } from './summary.ts';

describe('printSummary', () => {
  it('returns the totals as turnover and fees, and counts saying what they count', () => {
    let text = '';
    const manifest = {
      runId: 'r1',
      period: { label: '2025', timeZone: 'UTC' },
      counts: { transactions: 974, gainsDisposals: 4022 },
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
});
