import { describe, expect, it } from 'vitest';
import { buy, lines, move, run, sell, withdraw } from '../../test/support/gains.ts';
import { ValidationError } from '../errors.ts';
import { createGainsEngine } from './engine.ts';

// Three buys used by the method cases: 1 @ 100 (Jan), 1 @ 300 (Feb), 1 @ 200 (Mar).
const THREE_BUYS = [
  buy('b1', '2025-01-10', 'ETH', '1', '100'),
  buy('b2', '2025-02-10', 'ETH', '1', '300'),
  buy('b3', '2025-03-10', 'ETH', '1', '200'),
];
// Sell 2 for 1000: proceeds 500 per unit.
const SELL_TWO = sell('s1', '2025-04-10', 'ETH', '2', '1000');

describe('createGainsEngine (FIFO)', () => {
  it('returns the earliest lots first', () => {
    // b1: 1 × 500 − 100 = 400; b2: 1 × 500 − 300 = 200.
    expect(lines(run([...THREE_BUYS, SELL_TWO], { method: 'fifo' }))).toEqual([
      { from: 'b1', quantity: '1', proceeds: '500', cost: '100', gain: '400' },
      { from: 'b2', quantity: '1', proceeds: '500', cost: '300', gain: '200' },
    ]);
  });

  it('returns a partly consumed lot with its pro-rata basis', () => {
    // Sell 1.5 for 600: b1 whole (1 unit, cost 100, proceeds 600 × 1/1.5 = 400, gain 300),
    // then half of b2 (cost 300 × 0.5 = 150, proceeds 600 − 400 = 200, gain 50).
    const result = run([...THREE_BUYS, sell('s1', '2025-04-10', 'ETH', '1.5', '600')]);
    expect(lines(result)).toEqual([
      { from: 'b1', quantity: '1', proceeds: '400', cost: '100', gain: '300' },
      { from: 'b2', quantity: '0.5', proceeds: '200', cost: '150', gain: '50' },
    ]);
  });
});

describe('createGainsEngine (LIFO)', () => {
  it('returns the latest lots first', () => {
    // b3: 500 − 200 = 300; b2: 500 − 300 = 200.
    expect(lines(run([...THREE_BUYS, SELL_TWO], { method: 'lifo' }))).toEqual([
      { from: 'b3', quantity: '1', proceeds: '500', cost: '200', gain: '300' },
      { from: 'b2', quantity: '1', proceeds: '500', cost: '300', gain: '200' },
    ]);
  });
});

describe('createGainsEngine (HIFO)', () => {
  it('returns the highest cost per unit first', () => {
    // Unit costs 100, 300, 200: b2 (500 − 300 = 200) then b3 (500 − 200 = 300).
    expect(lines(run([...THREE_BUYS, SELL_TWO], { method: 'hifo' }))).toEqual([
      { from: 'b2', quantity: '1', proceeds: '500', cost: '300', gain: '200' },
      { from: 'b3', quantity: '1', proceeds: '500', cost: '200', gain: '300' },
    ]);
  });

  it('returns the earliest lot first among equal unit costs', () => {
    // t1: 2 for 400 and t2: 1 for 200 both cost 200 per unit; t1 is earlier.
    // Sell 1 for 250: from t1, cost 400 × 1/2 = 200, gain 50.
    const result = run(
      [
        buy('t1', '2025-01-10', 'BTC', '2', '400'),
        buy('t2', '2025-01-11', 'BTC', '1', '200'),
        sell('s', '2025-02-01', 'BTC', '1', '250'),
      ],
      { method: 'hifo' },
    );
    expect(lines(result)).toEqual([{ from: 't1', quantity: '1', proceeds: '250', cost: '200', gain: '50' }]);
  });

  it('returns lots by their unit cost at opening after a partial consumption', () => {
    // h1: 3 for 1000 (333.33…/unit), h2: 1 for 333.33 (less per unit). Sell 1 from h1, whose
    // rest (2 for 666.666666666666666667) is rounded up; the next sale still takes h1 first.
    const result = run(
      [
        buy('h1', '2025-01-10', 'SOL', '3', '1000'),
        buy('h2', '2025-01-11', 'SOL', '1', '333.33'),
        sell('s1', '2025-02-01', 'SOL', '1', '400'),
        sell('s2', '2025-02-02', 'SOL', '1', '400'),
      ],
      { method: 'hifo' },
    );
    expect(result.disposals.map((d) => d.acquiredTxId)).toEqual(['h1', 'h1']);
  });
});

describe('createGainsEngine (average cost)', () => {
  it('returns the pooled cost per unit, the last sale taking the exact rest', () => {
    // Pool: 1 @ 100 + 2 @ 400 = 3 units for 500. Sell 1 for 300: basis 500 / 3 =
    // 166.666666666666666667 (18 places, half even), gain 133.333333333333333333.
    // Sell 2 for 400: basis = the rest, 500 − 166.666666666666666667 = 333.333333333333333333.
    const result = run(
      [
        buy('a1', '2025-01-10', 'ETH', '1', '100'),
        buy('a2', '2025-02-10', 'ETH', '2', '400'),
        sell('s1', '2025-03-10', 'ETH', '1', '300'),
        sell('s2', '2025-04-10', 'ETH', '2', '400'),
      ],
      { method: 'average' },
    );
    expect(lines(result)).toEqual([
      {
        from: 'a1',
        quantity: '1',
        proceeds: '300',
        cost: '166.666666666666666667',
        gain: '133.333333333333333333',
      },
      {
        from: 'a2',
        quantity: '2',
        proceeds: '400',
        cost: '333.333333333333333333',
        gain: '66.666666666666666667',
      },
    ]);
  });

  it('returns the pool average spread over the FIFO lots of one sale', () => {
    // Pool: 1 @ 100 + 1 @ 300 = 2 for 400, 200 per unit. Sell 1.5 for 450: basis 400 × 1.5/2 = 300,
    // on a1 (1 unit → 200) and a2 (0.5 → the rest, 100); proceeds 300 and 150.
    const result = run(
      [
        buy('a1', '2025-01-10', 'ETH', '1', '100'),
        buy('a2', '2025-02-10', 'ETH', '1', '300'),
        sell('s1', '2025-03-10', 'ETH', '1.5', '450'),
      ],
      { method: 'average' },
    );
    expect(lines(result)).toEqual([
      { from: 'a1', quantity: '1', proceeds: '300', cost: '200', gain: '100' },
      { from: 'a2', quantity: '0.5', proceeds: '150', cost: '100', gain: '50' },
    ]);
  });
});

describe('createGainsEngine (pooling)', () => {
  // Account A buys 1 @ 100 (Jan), account B buys 1 @ 200 (Feb), B sells 1 for 250 (Mar).
  const events = [
    buy('a', '2025-01-10', 'ETH', '1', '100', { account: 'A' }),
    buy('b', '2025-02-10', 'ETH', '1', '200', { account: 'B' }),
    sell('s', '2025-03-10', 'ETH', '1', '250', { account: 'B' }),
  ];

  it('returns the lot of the selling account when pooled by account', () => {
    // B holds only lot b: 250 − 200 = 50.
    expect(lines(run(events, { pooling: 'account' }))).toEqual([
      { from: 'b', quantity: '1', proceeds: '250', cost: '200', gain: '50' },
    ]);
  });

  it('returns the earliest lot of any account when pooled universally', () => {
    // FIFO over both accounts: lot a, 250 − 100 = 150.
    expect(lines(run(events, { pooling: 'universal' }))).toEqual([
      { from: 'a', quantity: '1', proceeds: '250', cost: '100', gain: '150' },
    ]);
  });
});

describe('createGainsEngine (fees)', () => {
  it('returns the acquisition fee in the basis and the disposal fee out of the proceeds', () => {
    // Buy 2 for 100 + fee 2: basis 102. Sell 1 for 80 − fee 1 = 79; basis 102 / 2 = 51; gain 28.
    const result = run([
      buy('b', '2025-01-10', 'ETH', '2', '100', { fee: '2' }),
      sell('s', '2025-02-10', 'ETH', '1', '80', { fee: '1' }),
    ]);
    expect(lines(result)).toEqual([{ from: 'b', quantity: '1', proceeds: '79', cost: '51', gain: '28' }]);
  });
});

describe('createGainsEngine (transfers)', () => {
  it('returns moved lots with their acquisition date and basis in the new account', () => {
    // A buys 2 @ 100 (Jan 10); B buys 1 @ 90 (Feb 10); A moves 1.5 to B (Mar 10): B now holds
    // 1.5 of lot a (basis 75, Jan 10) and lot b (1, basis 90). B sells 2 for 300 (150/unit):
    // a: 1.5 → proceeds 225, cost 75, gain 150; b: 0.5 → proceeds 75, cost 45, gain 30.
    const result = run(
      [
        buy('a', '2025-01-10', 'ETH', '2', '100', { account: 'A' }),
        buy('b', '2025-02-10', 'ETH', '1', '90', { account: 'B' }),
        move('m', '2025-03-10', 'ETH', '1.5', 'A', 'B'),
        sell('s', '2025-04-10', 'ETH', '2', '300', { account: 'B' }),
      ],
      { pooling: 'account' },
    );
    expect(lines(result)).toEqual([
      { from: 'a', quantity: '1.5', proceeds: '225', cost: '75', gain: '150' },
      { from: 'b', quantity: '0.5', proceeds: '75', cost: '45', gain: '30' },
    ]);
    expect(result.disposals[0]?.acquiredAt).toBe(Date.parse('2025-01-10T12:00:00Z'));
  });

  it('returns no gain for a move', () => {
    const result = run(
      [buy('a', '2025-01-10', 'ETH', '1', '100'), move('m', '2025-02-10', 'ETH', '1', 'A', 'B')],
      { pooling: 'account' },
    );
    expect(result.disposals).toEqual([]);
  });

  it('returns a negative-balance warning for a move beyond the holding', () => {
    // A holds 1 and moves 1.5: the 0.5 missing arrives in B with a zero basis.
    const result = run(
      [buy('a', '2025-01-10', 'ETH', '1', '100'), move('m', '2025-02-10', 'ETH', '1.5', 'A', 'B')],
      { pooling: 'account' },
    );
    expect(result.warnings.map((w) => [w.kind, w.txId, w.quantity])).toEqual([
      ['negative-balance', 'm', '0.5'],
    ]);
  });

  it('returns a withdrawal without a gain and without the lots', () => {
    // Withdraw 1 of 2, then sell 1 for 70: the earliest lot left is b (cost 60), gain 10.
    const result = run([
      buy('a', '2025-01-10', 'ETH', '1', '50'),
      buy('b', '2025-01-11', 'ETH', '1', '60'),
      withdraw('w', '2025-02-01', 'ETH', '1'),
      sell('s', '2025-03-01', 'ETH', '1', '70'),
    ]);
    expect(lines(result)).toEqual([{ from: 'b', quantity: '1', proceeds: '70', cost: '60', gain: '10' }]);
  });
});

describe('createGainsEngine (income)', () => {
  it('returns an income line at the value at receipt', () => {
    const result = run([buy('r', '2025-05-01', 'ETH', '0.01', '25.5', { income: 'staking' })]);
    expect(result.income.map((i) => [i.category, i.token, i.quantity, i.value, i.taxYear])).toEqual([
      ['staking', 'ETH', '0.01', '25.5', '2025'],
    ]);
  });

  it('returns the value at receipt as the basis of a later sale', () => {
    // Reward 0.01 worth 25.5; sold for 30: gain 4.5.
    const result = run([
      buy('r', '2025-05-01', 'ETH', '0.01', '25.5', { income: 'staking' }),
      sell('s', '2025-06-01', 'ETH', '0.01', '30'),
    ]);
    expect(lines(result)).toEqual([
      { from: 'r', quantity: '0.01', proceeds: '30', cost: '25.5', gain: '4.5' },
    ]);
  });
});

describe('createGainsEngine (partial lots and rounding)', () => {
  it('returns the exact rest of the basis on the last consumption of a lot', () => {
    // Buy 3 for 100; sell 1 three times. s1: 100 × 1/3 = 33.333333333333333333 (18 places),
    // leaving 2 for 66.666666666666666667. s2: 66.666666666666666667 × 1/2 = 33.3333333333333333335,
    // half to even → 33.333333333333333334, leaving 33.333333333333333333, which s3 takes whole.
    // Total basis: exactly 100.
    const result = run([
      buy('b', '2025-01-10', 'ETH', '3', '100'),
      sell('s1', '2025-02-10', 'ETH', '1', '50'),
      sell('s2', '2025-02-11', 'ETH', '1', '50'),
      sell('s3', '2025-02-12', 'ETH', '1', '50'),
    ]);
    expect(result.disposals.map((d) => d.cost)).toEqual([
      '33.333333333333333333',
      '33.333333333333333334',
      '33.333333333333333333',
    ]);
  });

  it('returns the basis at the scale asked for', () => {
    // fiatScale 2: 100 / 3 = 33.33, the last takes 33.34.
    const result = run(
      [
        buy('b', '2025-01-10', 'ETH', '3', '100'),
        sell('s1', '2025-02-10', 'ETH', '2', '50'),
        sell('s2', '2025-02-11', 'ETH', '1', '50'),
      ],
      { fiatScale: 2 },
    );
    expect(result.disposals.map((d) => d.cost)).toEqual(['66.67', '33.33']);
  });
});

describe('createGainsEngine (many lots per disposal)', () => {
  it('returns one line per lot with the proceeds split by quantity', () => {
    // Four lots of 0.25, 0.5, 0.125, 0.125 (costs 10, 30, 5, 7); sell all 1 for 100:
    // proceeds 25, 50, 12.5, 12.5; gains 15, 20, 7.5, 5.5.
    const result = run([
      buy('l1', '2025-01-01', 'BTC', '0.25', '10'),
      buy('l2', '2025-01-02', 'BTC', '0.5', '30'),
      buy('l3', '2025-01-03', 'BTC', '0.125', '5'),
      buy('l4', '2025-01-04', 'BTC', '0.125', '7'),
      sell('s', '2025-02-01', 'BTC', '1', '100'),
    ]);
    expect(lines(result)).toEqual([
      { from: 'l1', quantity: '0.25', proceeds: '25', cost: '10', gain: '15' },
      { from: 'l2', quantity: '0.5', proceeds: '50', cost: '30', gain: '20' },
      { from: 'l3', quantity: '0.125', proceeds: '12.5', cost: '5', gain: '7.5' },
      { from: 'l4', quantity: '0.125', proceeds: '12.5', cost: '7', gain: '5.5' },
    ]);
  });

  it('returns the rounding rest of the proceeds on the last line', () => {
    // Three lots of 1; sell 3 for 100: 33.333333333333333333 twice, then 33.333333333333333334.
    const result = run([
      buy('l1', '2025-01-01', 'BTC', '1', '0'),
      buy('l2', '2025-01-02', 'BTC', '1', '0'),
      buy('l3', '2025-01-03', 'BTC', '1', '0'),
      sell('s', '2025-02-01', 'BTC', '3', '100'),
    ]);
    expect(result.disposals.map((d) => d.proceeds)).toEqual([
      '33.333333333333333333',
      '33.333333333333333333',
      '33.333333333333333334',
    ]);
  });
});

describe('createGainsEngine (same timestamp)', () => {
  it('returns the events of one instant in input order', () => {
    // Sell before buy at the same instant: nothing held yet, so the sale has a zero basis.
    const result = run([
      sell('s', '2025-02-01T10:00:00Z', 'ETH', '1', '100'),
      buy('b', '2025-02-01T10:00:00Z', 'ETH', '1', '80'),
    ]);
    expect(lines(result)).toEqual([{ from: null, quantity: '1', proceeds: '100', cost: '0', gain: '100' }]);
  });
});

describe('createGainsEngine (warnings)', () => {
  it('returns a zero-basis line and warning for a disposal beyond the lots', () => {
    // Hold 1 (cost 40), sell 1.5 for 90: lot b 1 → proceeds 60, cost 40; rest 0.5 → proceeds 30, cost 0.
    const result = run([
      buy('b', '2025-01-10', 'ETH', '1', '40'),
      sell('s', '2025-02-10', 'ETH', '1.5', '90'),
    ]);
    expect(lines(result)).toEqual([
      { from: 'b', quantity: '1', proceeds: '60', cost: '40', gain: '20' },
      { from: null, quantity: '0.5', proceeds: '30', cost: '0', gain: '30' },
    ]);
    expect(result.warnings.map((w) => [w.kind, w.txId, w.quantity])).toEqual([['zero-basis', 's', '0.5']]);
  });

  it('returns a missing-value warning and a zero basis for an acquisition without value', () => {
    const result = run([buy('b', '2025-01-10', 'ETH', '1', null), sell('s', '2025-02-10', 'ETH', '1', '10')]);
    expect([result.warnings.map((w) => [w.kind, w.txId]), result.disposals[0]?.cost]).toEqual([
      [['missing-value', 'b']],
      '0',
    ]);
  });

  it('returns a missing-value warning and zero proceeds for a disposal without value', () => {
    const result = run([buy('b', '2025-01-10', 'ETH', '1', '10'), sell('s', '2025-02-10', 'ETH', '1', null)]);
    expect([result.warnings.map((w) => [w.kind, w.txId]), result.disposals[0]?.gain]).toEqual([
      [['missing-value', 's']],
      '-10',
    ]);
  });
});

describe('createGainsEngine (holding period and tax year)', () => {
  it('returns long term for a disposal one year and one local day later', () => {
    const result = run([buy('b', '2024-03-10', 'ETH', '1', '1'), sell('s', '2025-03-11', 'ETH', '1', '2')]);
    expect(result.disposals[0]?.term).toBe('long');
  });

  it('returns short term for a disposal exactly one year later', () => {
    const result = run([buy('b', '2024-03-10', 'ETH', '1', '1'), sell('s', '2025-03-10', 'ETH', '1', '2')]);
    expect(result.disposals[0]?.term).toBe('short');
  });

  it('returns long term for 366 days across a leap day with a 365-day rule, short by the calendar', () => {
    // 2024-01-10 → 2025-01-10: exactly one calendar year (short), but 366 whole days (> 365: long).
    const events = [buy('b', '2024-01-10', 'ETH', '1', '1'), sell('s', '2025-01-10', 'ETH', '1', '2')];
    expect([run(events, { longTermDays: 365 }), run(events)].map((r) => r.disposals[0]?.term)).toEqual([
      'long',
      'short',
    ]);
  });

  it('returns the term from local dates of the report zone', () => {
    // Acquired 2024-03-10T20:00Z = 2024-03-11 05:00 in Tokyo; disposed 2025-03-11T10:00Z = 2025-03-11
    // 19:00 in Tokyo: not after 2025-03-11, so short (in UTC the same pair is long: 03-10 → 03-11).
    const events = [
      buy('b', '2024-03-10T20:00:00Z', 'ETH', '1', '1'),
      sell('s', '2025-03-11T10:00:00Z', 'ETH', '1', '2'),
    ];
    expect([run(events, { timeZone: 'Asia/Tokyo' }), run(events)].map((r) => r.disposals[0]?.term)).toEqual([
      'short',
      'long',
    ]);
  });

  it('returns the local tax year of a disposal at 23:30 UTC on 31 December', () => {
    // 2024-12-31T23:30Z is 2025-01-01 00:30 in Berlin: tax year 2025 (2024 in UTC).
    const events = [
      buy('b', '2024-06-01', 'ETH', '1', '1'),
      sell('s', '2024-12-31T23:30:00Z', 'ETH', '1', '2'),
    ];
    expect(
      [run(events, { timeZone: 'Europe/Berlin' }), run(events)].map((r) => r.disposals[0]?.taxYear),
    ).toEqual(['2025', '2024']);
  });

  it('returns the UK tax year of a disposal at 23:30 UTC on 5 April', () => {
    // 2025-04-05T23:30Z is 2025-04-06 00:30 BST in London: first day of 2025/26.
    const result = run(
      [buy('b', '2024-06-01', 'ETH', '1', '1'), sell('s', '2025-04-05T23:30:00Z', 'ETH', '1', '2')],
      { timeZone: 'Europe/London', taxYearStart: { month: 4, day: 6 } },
    );
    expect(result.disposals[0]?.taxYear).toBe('2025/26');
  });
});

describe('createGainsEngine (period)', () => {
  const events = [
    buy('b1', '2024-05-01', 'ETH', '2', '100'),
    sell('s1', '2024-08-01', 'ETH', '1', '70'),
    buy('b2', '2025-02-01', 'ETH', '1', '80'),
    sell('s2', '2025-03-01', 'ETH', '1', '90'),
    sell('s3', '2026-01-05', 'ETH', '1', '95'),
  ];
  const period = { start: '2025-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' };

  it('returns only the disposals of the period, matched against the earlier lots', () => {
    // s1 (before) consumed half of b1; s2 takes the other half: cost 50, gain 40. s3 is after.
    expect(lines(run(events, { period }))).toEqual([
      { from: 'b1', quantity: '1', proceeds: '90', cost: '50', gain: '40' },
    ]);
  });

  it('returns the roll-forward from the holdings at the period start', () => {
    // Opening 1 (cost 50); +1 (80); −1 (50); closing 1 (80).
    const [line] = run(events, { period }).rollForward;
    expect(line).toMatchObject({
      opening: { quantity: '1', cost: '50' },
      acquired: { quantity: '1', cost: '80' },
      disposed: { quantity: '1', cost: '50' },
      closing: { quantity: '1', cost: '80' },
    });
  });

  it('returns the events at or after the period end as ignored', () => {
    expect(run(events, { period }).counts.ignored).toBe(1);
  });
});

describe('createGainsEngine (roll-forward by account)', () => {
  it('returns transfers in and out per account', () => {
    const result = run(
      [
        buy('a', '2025-01-10', 'ETH', '2', '100', { account: 'A' }),
        move('m', '2025-02-10', 'ETH', '0.5', 'A', 'B'),
      ],
      { pooling: 'account' },
    );
    expect(
      result.rollForward.map((l) => [
        l.account,
        l.transferredIn.quantity,
        l.transferredOut.cost,
        l.closing.cost,
      ]),
    ).toEqual([
      ['A', '0', '25', '75'],
      ['B', '0.5', '0', '25'],
    ]);
  });
});

describe('createGainsEngine (carry)', () => {
  it('returns the same disposals when resumed from carried lots', () => {
    const first = [buy('b1', '2025-01-10', 'ETH', '3', '100'), sell('s1', '2025-02-10', 'ETH', '1', '50')];
    const second = [buy('b2', '2025-03-10', 'ETH', '1', '90'), sell('s2', '2025-04-10', 'ETH', '3', '200')];
    const engine = createGainsEngine({ method: 'hifo' });
    for (const event of first) engine.process(event);
    const resumed = createGainsEngine({ method: 'hifo' }, JSON.parse(JSON.stringify(engine.carry())));
    for (const event of second) resumed.process(event);
    expect([...engine.result().disposals, ...resumed.result().disposals]).toEqual(
      run([...first, ...second], { method: 'hifo' }).disposals,
    );
  });

  it('returns the same disposals when resumed from carried lots with half-up rounding and a tie', () => {
    // Whole units, half up: half of a lot costing 1 costs 0.5, which rounds up to 1 (half to even: 0).
    const options = { method: 'fifo', fiatScale: 0, rounding: 'half-up' } as const;
    const first = [buy('b1', '2025-01-10', 'ETH', '2', '1')];
    const second = [sell('s1', '2025-02-10', 'ETH', '1', '10')];
    const engine = createGainsEngine(options);
    for (const event of first) engine.process(event);
    const resumed = createGainsEngine(options, JSON.parse(JSON.stringify(engine.carry())));
    for (const event of second) resumed.process(event);
    const onePass = run([...first, ...second], options);
    expect(lines(onePass)).toEqual([{ from: 'b1', quantity: '1', proceeds: '10', cost: '1', gain: '9' }]);
    expect(resumed.result().disposals).toEqual(onePass.disposals);
  });

  it('throws when resumed with another method', () => {
    const state = createGainsEngine({ method: 'fifo' }).carry();
    expect(() => createGainsEngine({ method: 'average' }, state)).toThrow(ValidationError);
  });
});

describe('resolveGainsOptions', () => {
  it('throws for an unknown time zone', () => {
    expect(() => createGainsEngine({ timeZone: 'Mars/Olympus' })).toThrow(ValidationError);
  });
});

describe('createGainsEngine (input checks)', () => {
  it('throws for a zero quantity', () => {
    const engine = createGainsEngine();
    expect(() => engine.process(sell('s', '2025-02-10', 'ETH', '0', '5'))).toThrow(ValidationError);
  });
});

describe('createGainsEngine (result before the period)', () => {
  it('returns an opening that still follows later events before the period start', () => {
    const engine = createGainsEngine({ period: { start: '2025-01-01T00:00:00Z' } });
    engine.process(buy('b1', '2024-05-01', 'ETH', '1', '10'));
    engine.result();
    engine.process(buy('b2', '2024-06-01', 'ETH', '1', '20'));
    expect(engine.result().rollForward[0]?.opening).toEqual({ quantity: '2', cost: '30' });
  });
});

describe('createGainsEngine (average cost pooled by account)', () => {
  it('returns the moved average basis joining the other account’s pool', () => {
    // A: 1 @ 100 + 1 @ 300 → 2 for 400 (200/unit). Move 1 to B: basis 200; A keeps 1 for 200.
    // B buys 1 @ 500 → B pool: 2 for 700 (350/unit). B sells 1 for 400: basis 350, gain 50.
    const result = run(
      [
        buy('a1', '2025-01-10', 'ETH', '1', '100', { account: 'A' }),
        buy('a2', '2025-01-11', 'ETH', '1', '300', { account: 'A' }),
        move('m', '2025-02-10', 'ETH', '1', 'A', 'B'),
        buy('b1', '2025-03-10', 'ETH', '1', '500', { account: 'B' }),
        sell('s', '2025-04-10', 'ETH', '1', '400', { account: 'B' }),
      ],
      { method: 'average', pooling: 'account' },
    );
    expect(lines(result)).toEqual([{ from: 'a1', quantity: '1', proceeds: '400', cost: '350', gain: '50' }]);
  });
});

describe('createGainsEngine (drain)', () => {
  it('returns the lines recorded since the last drain and leaves only later ones in the result', () => {
    const engine = createGainsEngine();
    engine.process(buy('b1', '2025-01-10', 'ETH', '2', '200'));
    engine.process(sell('s1', '2025-02-10', 'ETH', '1', '150'));
    const first = engine.drain();
    engine.process(sell('s2', '2025-03-10', 'ETH', '3', '300'));
    const second = engine.drain();
    expect(first.disposals.map((line) => [line.disposedTxId, line.quantity, line.gain])).toEqual([
      ['s1', '1', '50'],
    ]);
    // s2 sells 3 with 1 left: 1 from b1 (cost 100), the rest 2 with a zero basis and a warning.
    expect(second.disposals.map((line) => [line.disposedTxId, line.quantity, line.cost])).toEqual([
      ['s2', '1', '100'],
      ['s2', '2', '0'],
    ]);
    expect(second.warnings.map((w) => w.kind)).toEqual(['zero-basis']);
    expect(engine.result().disposals).toEqual([]);
    expect(engine.result().counts.lotsMatched).toBe(3);
  });
});

describe('createGainsEngine (transfer fee in the basis)', () => {
  const events = [
    buy('b1', '2025-01-10', 'ETH', '1', '100'),
    buy('b2', '2025-01-11', 'ETH', '1', '300'),
    { ...move('m', '2025-02-01', 'ETH', '1.5', 'A', 'B'), fee: '6' },
    sell('s', '2025-03-01', 'ETH', '1.5', '900', { account: 'B' }),
  ];

  it('returns the fee spread over the moved lots by quantity when pooled by account', () => {
    // Moved: all of b1 (100 + 6 × 1/1.5 = 104) and half of b2 (150 + 2 = 152).
    expect(lines(run(events, { pooling: 'account' })).map((l) => [l.from, l.quantity, l.cost])).toEqual([
      ['b1', '1', '104'],
      ['b2', '0.5', '152'],
    ]);
  });

  it('returns the fee in the basis of the lots the move would take when pooled universally', () => {
    expect(lines(run(events, { pooling: 'universal' })).map((l) => [l.from, l.quantity, l.cost])).toEqual([
      ['b1', '1', '104'],
      ['b2', '0.5', '152'],
    ]);
  });

  it('returns a zero check in the roll-forward with the fee as cost transferred in', () => {
    const result = run(events, { pooling: 'account' });
    const b = result.rollForward.find((l) => l.account === 'B');
    expect(b?.transferredIn).toEqual({ quantity: '1.5', cost: '256' });
  });
});

describe('createGainsEngine (missing cost basis)', () => {
  it('returns a missing-cost-basis warning for a lot opened without its cost', () => {
    const result = run([buy('in', '2025-01-10', 'ETH', '1', '0', { missingBasis: true })]);
    expect(result.warnings.map((w) => [w.kind, w.txId, w.quantity])).toEqual([
      ['missing-cost-basis', 'in', '1'],
    ]);
  });
});
