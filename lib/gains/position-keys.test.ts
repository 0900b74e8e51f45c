/**
 * The engine's positions are kept per wallet and token whatever the names: a wallet id holding
 * U+0000, an empty wallet id, and a wallet and a token that would join to the same text.
 */
import { describe, expect, it } from 'vitest';
import { buy, move, sell } from '../../test/support/gains.ts';
import { createGainsEngine } from './engine.ts';

/** Buys 1, 2, 3… units for 10, 20, 30… USD, a day apart, each in its wallet. */
const buys = (holdings: readonly (readonly [wallet: string, token: string])[]) =>
  holdings.map(([wallet, token], i) =>
    buy(`buy-${i}`, `2025-01-${String(i + 2).padStart(2, '0')}`, token, String(i + 1), String(10 * (i + 1)), {
      account: wallet,
    }),
  );

const HOLDINGS = [
  ['', 'ETH'],
  ['w\u0000x', 'ETH'],
  ['w', 'ETH'],
  ['a\u0000b', 'c'],
  ['a', 'b\u0000c'],
] as const;

describe('createGainsEngine with wallet ids no separator can mark', () => {
  it('keeps a position of its own for an empty wallet id, one holding U+0000, and a wallet and a token that would join alike', () => {
    const engine = createGainsEngine({ method: 'fifo', pooling: 'account' });
    for (const event of buys(HOLDINGS)) engine.process(event);
    engine.finish();

    const positions = engine.positions().map((p) => [p.account, p.token, p.quantity, p.cost]);
    expect(positions).toHaveLength(HOLDINGS.length);
    expect(positions).toEqual(
      expect.arrayContaining([
        ['', 'ETH', '1', '10'],
        ['w\u0000x', 'ETH', '2', '20'],
        ['w', 'ETH', '3', '30'],
        ['a\u0000b', 'c', '4', '40'],
        ['a', 'b\u0000c', '5', '50'],
      ]),
    );
  });

  it("sells from each wallet's own lots and rolls each wallet forward on a line of its own", () => {
    const events = [
      ...buys(HOLDINGS),
      move('m', '2025-02-01', 'ETH', '1', '', 'w'),
      sell('s1', '2025-02-02', 'ETH', '2', '100', { account: 'w\u0000x' }),
      sell('s2', '2025-02-03', 'c', '4', '100', { account: 'a\u0000b' }),
    ];
    const engine = createGainsEngine({ method: 'fifo', pooling: 'account' });
    for (const event of events) engine.process(event);
    engine.finish();
    const result = engine.result();

    expect(result.disposals.map((d) => [d.account, d.token, d.acquiredTxId, d.cost])).toEqual([
      ['w\u0000x', 'ETH', 'buy-1', '20'],
      ['a\u0000b', 'c', 'buy-3', '40'],
    ]);
    const closing = new Map(
      result.rollForward.map((line) => [JSON.stringify([line.account, line.token]), line]),
    );
    expect(closing.size).toBe(HOLDINGS.length);
    expect(closing.get(JSON.stringify(['', 'ETH']))?.closing).toEqual({ quantity: '0', cost: '0' });
    expect(closing.get(JSON.stringify(['w', 'ETH']))?.closing).toEqual({ quantity: '4', cost: '40' });
    expect(closing.get(JSON.stringify(['a', 'b\u0000c']))?.closing).toEqual({ quantity: '5', cost: '50' });
  });
});
