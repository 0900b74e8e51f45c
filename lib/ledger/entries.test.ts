import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { OUTSIDE_HISTORY, runJournal, WALLETS_HISTORY } from '../../test/support/journal.ts';
import type { Row } from '../domain/table.ts';
import { beancountText } from './formats/beancount.ts';

/** The postings of one entry, as `account debit credit quantity token`, sorted (order inside an entry is free). */
function entries(rows: Row[]): Map<string, { date: string; postings: string[] }> {
  const out = new Map<string, { date: string; postings: string[] }>();
  for (const row of rows) {
    const [id, date, account, , debit, credit, , quantity, token] = row as string[];
    const found = out.get(id as string) ?? { date: date as string, postings: [] };
    found.postings.push([account, debit, credit, quantity ?? '', token ?? ''].join(' ').trim());
    out.set(id as string, found);
  }
  for (const entry of out.values()) entry.postings.sort();
  return out;
}

const PER_WALLET = { gains: { pooling: 'account' }, journal: { chart: { asset: { perWallet: true } } } };

describe('journal entries of crafted histories (worked by hand)', () => {
  it('posts a buy with a fiat fee, a move between own wallets, a partial sale, income and a swap paying gas in a token', async () => {
    const { rows } = await runJournal(WALLETS_HISTORY, PER_WALLET);
    // buy: 2 ETH for 200 + fee 2 → a lot of 202 (101 a unit).
    // send/receive: 1 ETH A → B at its carrying value 101.
    // sell: 0.5 ETH from B for 300 less fee 1: cost 50.50, gain 299 − 50.50 = 248.50.
    // stake: 0.1 ETH worth 30 into A.
    // swap: 0.2 ETH (value 60, fee 3) → 50 USDC (value 59), gas 0.001 ETH worth 3:
    //   cost 0.2 × 101 = 20.20, gain 57 − 20.20 = 36.80; gas cost 0.101 → 0.10, gain 3.00 − 0.10 = 2.90;
    //   A's ETH goes from 131 to 110.699, posted 131.00 → 110.70 (−20.30).
    expect([...entries(rows).values()]).toEqual([
      {
        date: '2025-01-10',
        postings: [
          'Assets:Cash-Clearing 0 2.00',
          'Assets:Cash-Clearing 0 200.00',
          'Assets:Crypto:A:ETH 202.00 0 2 ETH',
        ],
      },
      {
        date: '2025-03-05',
        postings: ['Assets:Crypto:A:ETH 0 101.00 -1 ETH', 'Assets:Crypto:B:ETH 101.00 0 1 ETH'],
      },
      {
        date: '2025-03-20',
        postings: [
          'Assets:Cash-Clearing 0 1.00',
          'Assets:Cash-Clearing 300.00 0',
          'Assets:Crypto:B:ETH 0 50.50 -0.5 ETH',
          'Income:Crypto:Realised-Gains 0 248.50',
        ],
      },
      {
        date: '2025-04-02',
        postings: ['Assets:Crypto:A:ETH 30.00 0 0.1 ETH', 'Income:Crypto:Staking 0 30.00'],
      },
      {
        date: '2025-04-15',
        postings: [
          'Assets:Cash-Clearing 0 3.00',
          'Assets:Cash-Clearing 0 59.00',
          'Assets:Cash-Clearing 3.00 0',
          'Assets:Cash-Clearing 60.00 0',
          'Assets:Crypto:A:ETH 0 20.30 -0.201 ETH',
          'Assets:Crypto:A:USDC 59.00 0 50 USDC',
          'Income:Crypto:Realised-Gains 0 2.90',
          'Income:Crypto:Realised-Gains 0 36.80',
        ],
      },
    ]);
  });

  it('asserts every account and token at each month end, a month without activity included', async () => {
    const { files } = await runJournal(WALLETS_HISTORY, PER_WALLET);
    const beancount = files.find((file) => file.name === 'journal.beancount')?.body as string;
    const balances = beancount.split('\n').filter((line) => / balance /.test(line));
    expect(balances.slice(0, 6)).toEqual([
      '2025-02-01 balance Assets:Crypto:A:ETH  2 ETH',
      '2025-03-01 balance Assets:Crypto:A:ETH  2 ETH',
      '2025-04-01 balance Assets:Crypto:A:ETH  1 ETH',
      '2025-04-01 balance Assets:Crypto:B:ETH  0.5 ETH',
      '2025-05-01 balance Assets:Crypto:A:ETH  0.899 ETH',
      '2025-05-01 balance Assets:Crypto:B:ETH  0.5 ETH',
    ]);
    // Twelve month ends; from April on three holdings.
    expect(balances).toHaveLength(1 + 1 + 2 + 3 * 9);
  });

  it('posts a withdrawal to outside at carrying value and gas for it paid in a token as a fee expense', async () => {
    const { rows, manifest } = await runJournal(OUTSIDE_HISTORY);
    // out: 0.4 BTC of a 100 lot → 40.00 to Transfers-Out; gas 0.01 ETH of a 10 lot → cost 0.10,
    // worth 0.50: an expense of 0.50 and a gain of 0.40.
    expect(entries(rows).get('J000003')?.postings).toEqual([
      'Assets:Crypto:BTC 0 40.00 -0.4 BTC',
      'Assets:Crypto:ETH 0 0.10 -0.01 ETH',
      'Equity:Transfers-Out 40.00 0',
      'Expenses:Crypto:Fees 0.50 0',
      'Income:Crypto:Realised-Gains 0 0.40',
    ]);
    expect(manifest.totals.realisedGain).toBe('0.40');
    expect(manifest.checks.every((check) => check.ok)).toBe(true);
  });

  it("dates entries and month ends in the rule set's zone, the run's under de rules (Berlin days)", async () => {
    // de counts Berlin days, and so does the run: 22:30 UTC on 31 December is 23:30 in Berlin,
    // still 2025; 23:30 UTC is 00:30 on 1 January 2026 in Berlin, outside the year.
    const late = tx({ id: 'late', date: '2025-12-31T22:30:00.000Z', movements: [leg('BTC', '0.1', '12')] });
    const next = tx({ id: 'next', date: '2025-12-31T23:30:00.000Z', movements: [leg('BTC', '0.1', '12')] });
    const { rows, manifest } = await runJournal([...OUTSIDE_HISTORY, late, next], {
      gains: { taxRules: 'de', currency: 'USD' },
    });
    expect(rows.filter((row) => row[9] === 'late').map((row) => row[1])).toEqual([
      '2025-12-31',
      '2025-12-31',
    ]);
    expect(rows.filter((row) => row[9] === 'next')).toEqual([]);
    expect(manifest.checks.at(-1)?.check).toMatch(/each of 12 month ends/);
  });

  it('rolls up a month per account and side when asked', async () => {
    const { rows } = await runJournal(WALLETS_HISTORY, {
      ...PER_WALLET,
      journal: { ...PER_WALLET.journal, rollup: true },
    });
    const april = [...entries(rows).values()].filter((entry) => entry.date === '2025-04-30');
    expect(april).toHaveLength(1);
    expect(april[0]?.postings).toEqual([
      'Assets:Cash-Clearing 0 62.00',
      'Assets:Cash-Clearing 63.00 0',
      'Assets:Crypto:A:ETH 0 20.30 -0.201 ETH',
      'Assets:Crypto:A:ETH 30.00 0 0.1 ETH',
      'Assets:Crypto:A:USDC 59.00 0 50 USDC',
      'Income:Crypto:Realised-Gains 0 39.70',
      'Income:Crypto:Staking 0 30.00',
    ]);
  });

  it("posts income of a category a numbered chart's categories do not name to its income account", async () => {
    const numbered = {
      defaults: 'none',
      asset: { code: '1510', perToken: false },
      cash: { code: '1360' },
      fee: { code: '4970' },
      gain: { code: '4900' },
      loss: { code: '6900' },
      income: { code: '4800', categories: { staking: { code: '4810' } } },
      opening: { code: '9000' },
      rounding: { code: '6990' },
      unclassified: { code: '1590' },
      'transfer-out': { code: '1890' },
    };
    const { rows, manifest } = await runJournal(OUTSIDE_HISTORY, {
      journal: { formats: ['csv'], chart: numbered },
    });
    // The airdrop's category `income` is not among `categories`: the chart's income account has it.
    expect(entries(rows).get('J000004')?.postings).toEqual(['1510 7.50 0 5 XYZ', '4800 0 7.50']);
    expect(manifest.unclassified).toBe(0);
    expect(manifest.totals.accounts['1590']).toBeUndefined();
  });
});

describe('journal formats', () => {
  it('streams the same Beancount and hledger text from the spool as from an array', async () => {
    const { files, streamed } = await runJournal(WALLETS_HISTORY, PER_WALLET);
    expect(Object.keys(streamed).sort()).toEqual(['journal.beancount', 'journal.hledger']);
    for (const file of files) expect(streamed[file.name]).toBe(file.body);
  });

  it('refuses an account Beancount cannot name, naming it', () => {
    const account = { code: '1510', name: 'Crypto', kind: 'asset' as const };
    const entry = {
      id: 'J1',
      date: '2025-01-01',
      txIds: [],
      description: 'x',
      postings: [{ account, debit: '1.00', credit: '0', currency: 'USD' }],
    };
    expect(() =>
      beancountText([entry], {
        currency: 'USD',
        period: { start: '2025-01-01', end: '2025-12-31' },
        settings: {},
      }),
    ).toThrow(/account "1510" \(asset\) is not a Beancount account name/);
  });
});
