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
