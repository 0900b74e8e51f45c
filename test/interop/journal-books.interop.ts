/**
 * The journal as the accountant's ledger tool reads it back (Debian's hledger, and bean-check):
 * a sale with a fiat fee under each rule set (the realised gain equals the disposals report's, the
 * fee is not an expense as well), and HMRC's bed and breakfast across a month end, month by month
 * (January's journal made before its 30 days are over, February's after), whose ledger ends at the
 * final figures.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../lib/domain/index.ts';
import { leg, tx } from '../support/gains.ts';
import { type JournalRun, runJournal, runJournalAt } from '../support/journal.ts';
import { tool } from './support/tool.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-books-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a run's hledger and Beancount files; both tools must accept them. */
async function checked(name: string, journal: JournalRun): Promise<{ hledger: string; text: string }> {
  const text = journal.files.find((f) => f.name === 'journal.hledger')?.body as string;
  const hledger = join(dir, `${name}.hledger`);
  const beancount = join(dir, `${name}.beancount`);
  await writeFile(hledger, text);
  await writeFile(beancount, journal.files.find((f) => f.name === 'journal.beancount')?.body as string);
  expect(await tool('hledger', ['-f', hledger, 'check', '--strict'])).toEqual({ code: 0, output: '' });
  expect(await tool('bean-check', [beancount])).toEqual({ code: 0, output: '' });
  return { hledger, text };
}

/** hledger's balances (at cost) of the accounts matching `query`, summed: debit positive. */
async function balanceOf(file: string, query: string[]): Promise<string> {
  const result = await tool('hledger', ['-f', file, 'bal', ...query, '--cost', '--flat', '-N', '-O', 'csv']);
  expect(result.code).toBe(0);
  return result.output
    .trim()
    .split('\n')
    .slice(1)
    .map((line) => line.replace(/"/g, '').split(',')[1]?.replace(/^USD /, '') ?? '0')
    .reduce((sum, amount) => sum.plus(amount), new Big(0))
    .toFixed(2);
}

const FEE_SALE = [
  tx({ id: 'b1', date: '2025-01-05T10:00:00.000Z', movements: [leg('BTC', '1', '100')] }),
  tx({ id: 'b2', date: '2025-01-06T10:00:00.000Z', movements: [leg('BTC', '1', '300')] }),
  tx({
    id: 's1',
    date: '2025-02-10T10:00:00.000Z',
    movements: [leg('BTC', '-1.5', '-300.005')],
    feeAmount: '7.333',
  }),
];

describe('a sale with a fiat fee, read back by hledger', () => {
  it.each(['us', 'uk', 'de'])(
    '%s: the realised gains and losses net to the disposals report, and the fee account is not posted',
    async (rules) => {
      const journal = await runJournal(FEE_SALE, { gains: { taxRules: rules, currency: 'USD' } });
      const { hledger } = await checked(`fee-${rules}`, journal);
      const reported = (journal.tables.disposals ?? [])
        .reduce((sum, row) => sum.plus(row[6] as string), new Big(0))
        .toFixed(2);
      // Credit positive in the report, so the accounts' debit − credit is its negative.
      expect(await balanceOf(hledger, ['Realised'])).toBe(new Big(reported).neg().toFixed(2));
      expect(await balanceOf(hledger, ['Fees'])).toBe('0.00');
      // The cash received is the proceeds less the fee, and the asset keeps the lots left.
      expect(await balanceOf(hledger, ['Cash-Clearing'])).toBe(new Big('-400').plus('292.67').toFixed(2));
      const closing = journal.tables.holdings?.find((row) => row[0] === 'BTC')?.[14];
      expect(await balanceOf(hledger, ['Assets:Crypto:BTC'])).toBe(closing);
    },
  );
});

const UK = { gains: { taxRules: 'uk', currency: 'USD' } };
const trade = (id: string, date: string, amount: string, value: string) =>
  tx({ id, date, movements: [leg('BTC', amount, value)] });
/** Sold on 31 January, bought back on 5 February (30 days: loss 400), 1 sold on 20 February (gain 600). */
const BED_AND_BREAKFAST = [
  trade('b1', '2025-01-05T10:00:00.000Z', '10', '1000'),
  trade('s1', '2025-01-31T10:00:00.000Z', '-4', '-2000'),
  trade('b2', '2025-02-05T10:00:00.000Z', '4', '2400'),
  trade('s2', '2025-02-20T10:00:00.000Z', '-1', '-700'),
];

describe('bed and breakfast across a month end, month by month, read back by hledger', () => {
  it("keeps the asset at the pool's average cost at January's end and ends February's ledger at the final figures", async () => {
    const january = await checked(
      'january-early',
      await runJournalAt(BED_AND_BREAKFAST, '2025-01', '2025-02-03T00:00:00.000Z', UK),
    );
    const januaryLate = await checked(
      'january-late',
      await runJournalAt(BED_AND_BREAKFAST, '2025-01', '2025-04-01T00:00:00.000Z', UK),
    );
    const february = await checked(
      'february',
      await runJournalAt(BED_AND_BREAKFAST, '2025-02', '2025-04-01T00:00:00.000Z', UK),
    );
    // 6 BTC held at 6 × 1000 / 10 = 600, whenever January's journal was made.
    expect(await balanceOf(january.hledger, ['Assets:Crypto:BTC'])).toBe('600.00');
    expect(await balanceOf(januaryLate.hledger, ['Assets:Crypto:BTC'])).toBe('600.00');
    // The ledger: January's journal, then February's without its opening balances (January's closing).
    const withoutOpening = february.text.replace(
      /^\d{4}-\d{2}-\d{2} \* Opening balances[^\n]*\n(?: {4}[^\n]*\n)*\n/m,
      '',
    );
    expect(withoutOpening).not.toBe(february.text);
    const ledger = join(dir, 'ledger.hledger');
    await writeFile(ledger, `${january.text}\n${withoutOpening}`);
    expect(await tool('hledger', ['-f', ledger, 'check', '--strict'])).toEqual({ code: 0, output: '' });
    // The pool after February: 9 BTC at 900; profit: s1's loss 400 and s2's gain 600 (credit 200).
    expect(await balanceOf(ledger, ['Assets:Crypto:BTC'])).toBe('900.00');
    expect(await balanceOf(ledger, ['Income', 'Expenses'])).toBe('-200.00');
  });
});
