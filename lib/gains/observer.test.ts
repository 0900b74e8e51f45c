import { describe, expect, it } from 'vitest';
import { buy, move, sell, withdraw } from '../../test/support/gains.ts';
import { createGainsEngine } from './engine.ts';
import type { BasisMove, GainsEvent, GainsObserver, GainsOptions } from './types.ts';

/** Runs events through an engine with an observer; returns what it was told and the engine. */
function observe(events: GainsEvent[], options: GainsOptions = {}) {
  const moves: BasisMove[] = [];
  const seen: string[] = [];
  const observer: GainsObserver = {
    event: (event, reported) => seen.push(`${event.txId}:${reported}`),
    basis: (m) => moves.push(m),
  };
  const engine = createGainsEngine(options, undefined, observer);
  for (const event of events) engine.process(event);
  engine.finish();
  return { moves, seen, engine };
}

const brief = (m: BasisMove) => ({
  kind: m.kind,
  txId: m.txId,
  account: m.account,
  ...(m.to === undefined ? {} : { to: m.to }),
  quantity: m.quantity,
  requested: m.requested,
  cost: m.cost,
  reported: m.reported,
});

describe('gains engine observer', () => {
  it('tells every lot movement with its carrying value, account pooling', () => {
    const { moves } = observe(
      [
        buy('b1', '2025-01-10', 'ETH', '2', '200', { fee: '2' }),
        move('m1', '2025-02-01', 'ETH', '1', 'A', 'B'),
        sell('s1', '2025-03-01', 'ETH', '0.5', '300', { account: 'B', fee: '1' }),
        withdraw('w1', '2025-04-01', 'ETH', '1', 'A'),
      ],
      { pooling: 'account' },
    );
    // Lot cost 202 for 2: 101 a unit.
    expect(moves.map(brief)).toEqual([
      {
        kind: 'acquire',
        txId: 'b1',
        account: 'A',
        quantity: '2',
        requested: '2',
        cost: '202',
        reported: true,
      },
      {
        kind: 'move',
        txId: 'm1',
        account: 'A',
        to: 'B',
        quantity: '1',
        requested: '1',
        cost: '101',
        reported: true,
      },
      {
        kind: 'dispose',
        txId: 's1',
        account: 'B',
        quantity: '0.5',
        requested: '0.5',
        cost: '50.5',
        reported: true,
      },
      {
        kind: 'withdraw',
        txId: 'w1',
        account: 'A',
        quantity: '1',
        requested: '1',
        cost: '101',
        reported: true,
      },
    ]);
    expect(moves[2]?.value).toBe('300');
    expect(moves[2]?.fee).toBe('1');
    expect(moves[2]?.lines?.map((l) => [l.proceeds, l.cost, l.gain])).toEqual([['299', '50.5', '248.5']]);
  });

  it('tells a disposal short of lots the quantity the lots gave', () => {
    const { moves } = observe([
      buy('b1', '2025-01-10', 'BTC', '1', '100'),
      sell('s1', '2025-02-01', 'BTC', '3', '900'),
    ]);
    expect(brief(moves[1] as BasisMove)).toMatchObject({ quantity: '1', requested: '3', cost: '100' });
  });

  it('marks events before the period as not reported, and ignores those after it', () => {
    const { moves, seen } = observe(
      [
        buy('b0', '2024-12-10', 'BTC', '1', '100'),
        buy('b1', '2025-01-10', 'BTC', '1', '200'),
        sell('s9', '2026-02-01', 'BTC', '1', '900'),
      ],
      { period: { start: '2025-01-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } },
    );
    expect(seen).toEqual(['b0:false', 'b1:true']);
    expect(moves.map((m) => [m.txId, m.reported])).toEqual([
      ['b0', false],
      ['b1', true],
    ]);
  });

  it('gives the open positions per pool', () => {
    const { engine } = observe(
      [buy('b1', '2025-01-10', 'ETH', '2', '200'), move('m1', '2025-02-01', 'ETH', '0.5', 'A', 'B')],
      { pooling: 'account' },
    );
    expect(engine.positions()).toEqual([
      { token: 'ETH', account: 'A', quantity: '1.5', cost: '150' },
      { token: 'ETH', account: 'B', quantity: '0.5', cost: '50' },
    ]);
  });

  it('changes nothing in the results', () => {
    const events = [
      buy('b1', '2025-01-10', 'ETH', '2', '200', { fee: '2' }),
      sell('s1', '2025-03-01', 'ETH', '1.5', '300', { fee: '1' }),
    ];
    const plain = createGainsEngine({});
    for (const event of events) plain.process(event);
    plain.finish();
    expect(observe(events).engine.result()).toEqual(plain.result());
  });
});

describe('gains engine observer under HMRC identification', () => {
  const UK: GainsOptions = { method: 'hmrc', taxRules: 'uk', timeZone: 'Europe/London' };
  const history = () => [
    buy('b1', '2025-01-05', 'BTC', '10', '1000'),
    // Two disposals on one day, matched as one: 4 BTC, of which 2 with the buy-back of 10 February
    // (30 days, the earlier disposal first) at 700 and 2 with the pool at 100: 1600, shared by
    // quantity: s1 3/4 = 1200 (gain 600 − 1200 = −600), s2 the rest, 400.
    sell('s1', '2025-01-20', 'BTC', '3', '600'),
    sell('s2', '2025-01-20', 'BTC', '1', '250'),
    // The buy-back is taken: the pool, 2 × 100 = 200 (the pool keeps 6 at 600 for w1: 100).
    sell('s3', '2025-01-31', 'BTC', '2', '1000'),
    buy('b2', '2025-02-10', 'BTC', '2', '1400'),
    withdraw('w1', '2025-04-01', 'BTC', '1', 'A'),
  ];

  it("tells each day's events once the day is final, disposals at their matched cost", () => {
    const settled: string[] = [];
    const moves: BasisMove[] = [];
    const engine = createGainsEngine(UK, undefined, {
      basis: (m) => moves.push(m),
      settled: (date) => settled.push(date),
    });
    const events = history();
    for (const event of events.slice(0, -1)) engine.process(event);
    // s3's day is not final while its 30 days are open: held, like the days after it.
    expect(moves.map((m) => m.txId)).not.toContain('s3');
    engine.process(events.at(-1) as GainsEvent);
    expect(moves.map((m) => m.txId)).toEqual(['b1', 's1', 's2', 's3']);
    expect(engine.matchedAhead('2025-02-01')).toEqual([
      { token: 'BTC', account: null, quantity: '2', cost: '1400' },
    ]);
    expect(engine.matchedAhead('2025-02-11')).toEqual([]);
    engine.finish();
    expect(moves.map(brief)).toEqual([
      {
        kind: 'acquire',
        txId: 'b1',
        account: 'A',
        quantity: '10',
        requested: '10',
        cost: '1000',
        reported: true,
      },
      {
        kind: 'dispose',
        txId: 's1',
        account: 'A',
        quantity: '3',
        requested: '3',
        cost: '1200',
        reported: true,
      },
      {
        kind: 'dispose',
        txId: 's2',
        account: 'A',
        quantity: '1',
        requested: '1',
        cost: '400',
        reported: true,
      },
      {
        kind: 'dispose',
        txId: 's3',
        account: 'A',
        quantity: '2',
        requested: '2',
        cost: '200',
        reported: true,
      },
      {
        kind: 'acquire',
        txId: 'b2',
        account: 'A',
        quantity: '2',
        requested: '2',
        cost: '1400',
        reported: true,
      },
      {
        kind: 'withdraw',
        txId: 'w1',
        account: 'A',
        quantity: '1',
        requested: '1',
        cost: '100',
        reported: true,
      },
    ]);
    // s1 tells its own gain; s2, the day's last, the day's lines.
    expect(moves[1]?.gain).toBe('-600');
    expect(moves[2]?.lines?.map((line) => line.rule)).toEqual(['thirty-day', 'section-104']);
    expect(settled).toEqual(['2025-01-05', '2025-01-20', '2025-01-31', '2025-02-10', '2025-04-01']);
  });

  it('gives the same results with an observer as without', () => {
    const run = (observer?: GainsObserver) => {
      const engine = createGainsEngine(UK, undefined, observer);
      for (const event of history()) engine.process(event);
      engine.finish();
      return engine.result();
    };
    expect(run({ basis: () => {} })).toEqual(run());
  });
});
