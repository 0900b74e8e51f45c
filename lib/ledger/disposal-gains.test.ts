/**
 * A disposal's gain or loss as the journal posts it, against the gains reports, on a sale with a
 * fiat fee matched with two lots (one at a gain, one at a loss), under each rule set. Figures
 * computed by hand in the comments.
 *
 * What the books get: the fee is deducted from the proceeds (us: Form 8949 takes the net proceeds;
 * de: Veräußerungskosten; uk: an allowable cost), so the gain posted for a disposal is the gains
 * reports' gain of that disposal, fee included, and the fee is not on the fee account as well. The
 * entry shows it as its own line all the same: the cash clearing is debited with the proceeds
 * and credited with the fee. One net figure per disposal, as Form 8949 has one row per sale.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { runJournal } from '../../test/support/journal.ts';
import { Big } from '../domain/index.ts';
import type { Row } from '../domain/table.ts';

const BTC = 'Assets:Crypto:BTC';
const ETH = 'Assets:Crypto:ETH';
const CASH = 'Assets:Cash-Clearing';
const GAINS = 'Income:Crypto:Realised-Gains';
const LOSSES = 'Expenses:Crypto:Realised-Losses';
const FEES = 'Expenses:Crypto:Fees';

/** 1 BTC at 100, 1 BTC at `second`, then 1.5 BTC sold for 300.005 less a fee of 7.333. */
const history = (second: string) => [
  tx({ id: 'b1', date: '2025-01-05T10:00:00.000Z', movements: [leg('BTC', '1', '100')] }),
  tx({ id: 'b2', date: '2025-01-06T10:00:00.000Z', movements: [leg('BTC', '1', second)] }),
  tx({
    id: 's1',
    date: '2025-02-10T10:00:00.000Z',
    movements: [leg('BTC', '-1.5', '-300.005')],
    feeAmount: '7.333',
  }),
];

/** The journal lines of transaction `id`: [account, debit, credit]. */
const linesOf = (rows: readonly Row[], id: string) =>
  rows.filter((row) => row[9] === id).map((row) => [row[2], row[4], row[5]]);

/** The disposals report's gain of the disposal `id` (its lines summed). */
const reportedGain = (tables: Record<string, Row[]>, id: string) =>
  (tables.disposals ?? [])
    .filter((row) => row[11] === id)
    .reduce((sum, row) => sum.plus(row[6] as string), new Big(0))
    .toFixed(2);

describe('a disposal with a fiat fee, matched with a lot at a gain and one at a loss', () => {
  it.each([
    // us, FIFO: net proceeds 300.005 − 7.333 = 292.672; lot 1: 195.11 − 100 = 95.11, lot 2
    // (0.5 at 150): 97.56 − 150 = −52.44; net 42.67. Carrying value 250.
    ['us', '250.00', [GAINS, '0', '42.67']],
    // de, FIFO: the fee is a Veräußerungskosten, deducted from the proceeds: the same figures.
    ['de', '250.00', [GAINS, '0', '42.67']],
    // uk, section 104 pool 2 BTC / 400: cost 1.5 × 200 = 300 plus the fee 7.333 as an allowable
    // cost, gross proceeds 300.005: loss 7.33.
    ['uk', '300.00', [LOSSES, '7.33', '0']],
  ])(
    '%s: posts the gains report’s gain of the disposal, the fee deducted once',
    async (rules, carrying, gain) => {
      const run = await runJournal(history('300'), { gains: { taxRules: rules, currency: 'USD' } });
      expect(linesOf(run.rows, 's1')).toEqual([
        [BTC, '0', carrying],
        gain,
        // The proceeds, and the fee as a line of its own (the cash received is 292.67).
        [CASH, '300.00', '0'],
        [CASH, '0', '7.33'],
      ]);
      const posted = new Big(gain[2] as string).minus(gain[1] as string).toFixed(2);
      expect(posted).toBe(reportedGain(run.tables, 's1'));
      expect(run.rows.some((row) => row[2] === FEES)).toBe(false);
      expect(run.manifest.totals.realisedGain).toBe(posted);
    },
  );

  it('ties each month out with its own gains report and holdings when exported month by month', async () => {
    for (const rules of ['us', 'uk', 'de']) {
      const run = await runJournal(history('300'), {
        period: '2025-02',
        gains: { taxRules: rules, currency: 'USD' },
      });
      const total = run.tables.gains_summary?.find((row) => row[4] === 'TOTAL');
      expect([rules, run.manifest.totals.realisedGain]).toEqual([rules, total?.[12]]);
      // The asset account closes at the holdings report's closing cost (the remaining lots).
      const closing = run.tables.holdings?.find((row) => row[0] === 'BTC');
      const asset = run.rows
        .filter((row) => row[2] === BTC)
        .reduce((sum, row) => sum.plus(row[4] as string).minus(row[5] as string), new Big(0));
      expect([rules, asset.toFixed(2)]).toEqual([rules, closing?.[14]]);
    }
  });

  it('posts one net gain per disposal, as Form 8949 has one row per sale; the summary splits it', async () => {
    const run = await runJournal(history('300'), { gains: { taxRules: 'us', currency: 'USD' } });
    const total = run.tables.gains_summary?.find((row) => row[4] === 'TOTAL');
    // gains 95.11, losses −52.44, net 42.67
    expect([total?.[10], total?.[11], total?.[12]]).toEqual(['95.11', '-52.44', '42.67']);
    expect(run.rows.filter((row) => row[2] === GAINS).map((row) => row[5])).toEqual(['42.67']);
    expect(run.rows.some((row) => row[2] === LOSSES)).toBe(false);
    const form = (run.tables['form-8949'] ?? []).filter((row) => row[12] === 's1');
    expect(form.map((row) => row[10])).toEqual(['42.67']);
  });

  it('posts a net loss to the loss account only: lot 2 at 500 gives 97.56 − 250 = −152.44', async () => {
    const run = await runJournal(history('500'), { gains: { taxRules: 'us', currency: 'USD' } });
    // 95.11 − 152.44 = −57.33
    expect(linesOf(run.rows, 's1').filter((line) => line[0] === GAINS || line[0] === LOSSES)).toEqual([
      [LOSSES, '57.33', '0'],
    ]);
    expect(reportedGain(run.tables, 's1')).toBe('-57.33');
  });
});

describe('a fee paid in a token without a fee field', () => {
  it.each([
    [
      // gas paid on its own: a `fee` transaction whose out movement is the fee (the demo has 144)
      'a fee transaction',
      tx({
        id: 'gas',
        date: '2025-02-10T10:00:00.000Z',
        category: 'fee',
        movements: [leg('ETH', '-0.01', '-3')],
      }),
      null,
    ],
    [
      // sent 1 ETH between own wallets, 0.99 arrived: 0.01 is spent at its share of the value, 3
      'what a transfer between own wallets lost on the way',
      tx({
        id: 'gas',
        date: '2025-02-10T10:00:00.000Z',
        category: 'transfer',
        hash: '0xabc',
        accountId: 'A',
        movements: [leg('ETH', '-1', '-300')],
      }),
      tx({
        id: 'receive',
        date: '2025-02-10T10:01:00.000Z',
        category: 'transfer',
        hash: '0xabc',
        accountId: 'B',
        movements: [leg('ETH', '0.99', '297')],
      }),
    ],
  ])(
    '%s: its value is a fee expense, not cash received; the gain on the tokens spent stays',
    async (_name, spent, more) => {
      const history = [
        tx({ id: 'b1', date: '2025-01-05T10:00:00.000Z', movements: [leg('ETH', '2', '200')] }),
        spent,
        ...(more === null ? [] : [more]),
      ];
      const run = await runJournal(history, { gains: { taxRules: 'us', currency: 'USD' } });
      // 0.01 ETH at 100 a unit: carrying value 1.00, worth 3.00, gain 2.00.
      expect(linesOf(run.rows, 'gas').filter((line) => line[0] !== ETH)).toEqual([
        [GAINS, '0', '2.00'],
        [FEES, '3.00', '0'],
      ]);
      expect(reportedGain(run.tables, 'gas')).toBe('2.00');
      expect(run.rows.filter((row) => row[9] === 'gas' && row[2] === CASH)).toEqual([]);
    },
  );
});
