import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import type { Row, TableSource } from '../domain/index.ts';
import { gainsReports, runGains } from './index.ts';

// A small portfolio in Europe/Berlin, worked by hand:
// t1 2024-01-15, A: buy 2 ETH for 4000 USD, fee 10 USD → lot L1: 2 ETH, basis 4010.
// t2/t3 2024-06-01, hash 0xh: A sends 1 ETH to B (a move), A pays 0.001 ETH gas worth 3 USD.
// t4 2024-07-01, B: staking reward 0.05 ETH worth 150 → income, lot R (basis 150).
// t5 2025-02-01, B: sell 1.05 ETH for 3150 USD, fee 5 USD → net proceeds 3145.
const PORTFOLIO = [
  tx({
    id: 't1',
    date: '2024-01-15T10:00:00.000Z',
    accountId: 'A',
    movements: [leg('USD', '-4000', '-4000'), leg('ETH', '2', '4000')],
    feeAmount: '10',
  }),
  tx({
    id: 't2',
    date: '2024-06-01T10:00:00.000Z',
    category: 'transfer',
    hash: '0xh',
    accountId: 'A',
    movements: [leg('ETH', '-1', '-3000')],
    feeAmount: '3',
    feeSymbol: 'ETH',
    feeQuantity: '0.001',
  }),
  tx({
    id: 't3',
    date: '2024-06-01T10:00:00.000Z',
    category: 'transfer',
    hash: '0xh',
    accountId: 'B',
    movements: [leg('ETH', '1', '3000')],
  }),
  tx({
    id: 't4',
    date: '2024-07-01T10:00:00.000Z',
    category: 'staking',
    accountId: 'B',
    movements: [leg('ETH', '0.05', '150')],
  }),
  tx({
    id: 't5',
    date: '2025-02-01T10:00:00.000Z',
    accountId: 'B',
    movements: [leg('ETH', '-1.05', '-3150'), leg('USD', '3150', '3150')],
    feeAmount: '5',
  }),
];

const brief = (d: {
  acquiredTxId: string | null;
  quantity: string;
  proceeds: string;
  cost: string;
  gain: string;
  term: string;
  taxYear: string;
}) => [d.acquiredTxId, d.quantity, d.proceeds, d.cost, d.gain, d.term, d.taxYear];

async function rowsOf(table: TableSource | undefined): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of table?.rows() ?? []) out.push(row);
  return out;
}

describe('runGains (pooled by account)', () => {
  const run = runGains(PORTFOLIO, { pooling: 'account', timeZone: 'Europe/Berlin' });

  it('returns the gas disposal and the sale matched lot by lot', () => {
    // Move: A's L1 gives 1 ETH with basis 4010 × 1/2 = 2005 to B; A keeps 1 (2005).
    // Gas: 0.001 ETH from A, proceeds 3, basis 2005 × 0.001 = 2.005, gain 0.995, short.
    // Sale from B (FIFO): the moved part of L1 (1, basis 2005, acquired 2024-01-15) then R (0.05, 150).
    // Proceeds by quantity: 3145 × 1/1.05 = 2995.238095238095238095(238…) → 18 places;
    // R takes the rest 149.761904761904761905. L1: held > 1 year → long; R: short.
    expect(run.result.disposals.map(brief)).toEqual([
      ['t1', '0.001', '3', '2.005', '0.995', 'short', '2024'],
      ['t1', '1', '2995.238095238095238095', '2005', '990.238095238095238095', 'long', '2025'],
      ['t4', '0.05', '149.761904761904761905', '150', '-0.238095238095238095', 'short', '2025'],
    ]);
  });

  it('returns the staking reward as income', () => {
    expect(run.result.income.map((i) => [i.txId, i.category, i.quantity, i.value])).toEqual([
      ['t4', 'staking', '0.05', '150'],
    ]);
  });

  it('returns the closing holdings per account', () => {
    // A: 2 − 1 − 0.001 = 0.999 ETH, basis 4010 − 2005 − 2.005 = 2002.995. B: all sold.
    expect(
      run.result.rollForward.map((l) => [l.token, l.account, l.closing.quantity, l.closing.cost]),
    ).toEqual([
      ['ETH', 'A', '0.999', '2002.995'],
      ['ETH', 'B', '0', '0'],
    ]);
  });

  it('returns the counts of the run', () => {
    // Events: buy, move, gas, reward, sale = 5; lots opened: L1, R; lines matched: 3.
    expect(run.counts).toEqual({
      transactions: 5,
      events: 5,
      ignored: 0,
      lotsOpened: 2,
      lotsMatched: 3,
      disposals: 2,
    });
  });

  it('returns the gains summary per tax year, token and term with totals', async () => {
    const [, summary] = gainsReports(run.result);
    const rows = await rowsOf(summary);
    expect(rows.map((r) => [r[0], r[4], r[5], r[8], r[9], r[10], r[11], r[12]])).toEqual([
      ['2024', 'ETH', 'short', '3', '2.005', '0.995', '0', '0.995'],
      ['2024', 'TOTAL', 'short', '3', '2.005', '0.995', '0', '0.995'],
      [
        '2025',
        'ETH',
        'short',
        '149.761904761904761905',
        '150',
        '0',
        '-0.238095238095238095',
        '-0.238095238095238095',
      ],
      [
        '2025',
        'ETH',
        'long',
        '2995.238095238095238095',
        '2005',
        '990.238095238095238095',
        '0',
        '990.238095238095238095',
      ],
      [
        '2025',
        'TOTAL',
        'short',
        '149.761904761904761905',
        '150',
        '0',
        '-0.238095238095238095',
        '-0.238095238095238095',
      ],
      [
        '2025',
        'TOTAL',
        'long',
        '2995.238095238095238095',
        '2005',
        '990.238095238095238095',
        '0',
        '990.238095238095238095',
      ],
    ]);
  });
});

describe('runGains (universal pool)', () => {
  it('returns the sale matched against the one pool', () => {
    // Gas: 0.001 of L1, basis 4010 × 0.001/2 = 2.005, leaving 1.999 for 4007.995.
    // Sale 1.05 (FIFO, all from L1): basis 4007.995 × 1.05/1.999 = 2105.25; gain 3145 − 2105.25 = 1039.75.
    const run = runGains(PORTFOLIO, { pooling: 'universal', timeZone: 'Europe/Berlin' });
    expect(run.result.disposals.map(brief)).toEqual([
      ['t1', '0.001', '3', '2.005', '0.995', 'short', '2024'],
      ['t1', '1.05', '3145', '2105.25', '1039.75', 'long', '2025'],
    ]);
  });
});

describe('runGains (carried state)', () => {
  it('returns the same disposals when the second year resumes from the first', () => {
    const split = Date.parse('2025-01-01T00:00:00Z');
    const first = runGains(
      PORTFOLIO.filter((t) => Date.parse(t.date) < split),
      { pooling: 'account' },
    );
    const second = runGains(
      PORTFOLIO.filter((t) => Date.parse(t.date) >= split),
      { pooling: 'account', state: first.state },
    );
    const whole = runGains(PORTFOLIO, { pooling: 'account' });
    expect([...first.result.disposals, ...second.result.disposals]).toEqual(whole.result.disposals);
  });
});
