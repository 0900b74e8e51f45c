import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { createEventStream, toEvents } from './events.ts';

const DAY = 24 * 3600 * 1000;

// The in side (B) is stamped three days before the out side (A) and under another hash.
const IN = tx({
  id: 'in',
  date: '2025-03-01T00:00:00.000Z',
  category: 'transfer',
  hash: '0x2',
  accountId: 'B',
  movements: [leg('ETH', '1', '3000')],
});
const OUT = tx({
  id: 'out',
  date: '2025-03-04T00:00:00.000Z',
  category: 'trade',
  hash: '0x1',
  accountId: 'A',
  movements: [leg('ETH', '-1', '-3000')],
});

describe('adapter options of the adjustments', () => {
  it('pairs a hand-made pair whatever the time apart, the hash and the category, even in before out', () => {
    const events = toEvents([IN, OUT], { transferPairs: new Map([['out', 'in']]) });
    expect(events).toEqual([
      {
        kind: 'move',
        txId: 'out',
        leg: 0,
        time: Date.parse(OUT.date),
        token: 'ETH',
        quantity: '1',
        from: 'A',
        to: 'B',
      },
    ]);
    // Without it: an acquisition at value and a disposal, three days apart.
    expect(toEvents([IN, OUT]).map((e) => e.kind)).toEqual(['acquire', 'dispose']);
  });

  it('holds the events after a waiting side until its counterpart arrives (streamed window by window)', () => {
    const stream = createEventStream({ transferPairs: new Map([['out', 'in']]) });
    const between = tx({
      id: 'buy',
      date: '2025-03-02T00:00:00.000Z',
      movements: [leg('BTC', '1', '90000')],
    });
    stream.add(IN);
    stream.add(between);
    // Days after both, but the out side has not arrived: nothing is final.
    expect(stream.advance(Date.parse('2025-03-03T12:00:00Z'))).toEqual([]);
    stream.add(OUT);
    const events = stream.advance(Date.parse(OUT.date) + DAY);
    expect(events.map((e) => `${e.kind} ${e.txId}`)).toEqual(['acquire buy', 'move out']);
  });

  it('opens a transfer in from outside at the cost and date given, without a warning flag, never paired by hash', () => {
    const sent = tx({
      id: 'sent',
      date: '2025-02-28T23:00:00.000Z',
      category: 'transfer',
      hash: '0x2',
      accountId: 'A',
      movements: [leg('ETH', '-1', '-3000')],
    });
    const acquiredAt = Date.parse('2019-05-01T00:00:00Z');
    const events = toEvents([sent, IN], {
      transferInCosts: new Map([['in', new Map([['ETH', { cost: '700', acquiredAt }]])]]),
    });
    expect(events.find((e) => e.txId === 'in')).toEqual({
      kind: 'acquire',
      txId: 'in',
      leg: 0,
      time: Date.parse(IN.date),
      token: 'ETH',
      account: 'B',
      quantity: '1',
      value: '700',
      fee: '0',
      income: null,
      unmatchedTransfer: undefined,
      acquiredAt,
    });
    // The out side, which the hash would have paired with it, leaves as an external transfer.
    expect(events.find((e) => e.txId === 'sent')?.kind).toBe('withdraw');
  });
});
