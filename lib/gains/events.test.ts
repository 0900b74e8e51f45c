import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { GainsOrderError } from './errors.ts';
import { createEventStream, toEvents } from './events.ts';

/** The events without their instants, for compact comparisons. */
const shapes = (events: ReturnType<typeof toEvents>) => events.map(({ time: _time, ...rest }) => rest);

describe('toEvents (trade)', () => {
  it('returns a disposal of the out token and an acquisition of the in token, the fee off the proceeds', () => {
    // Swap 1 ETH (worth 2000) for 1990 USDC, fee 5 USD (paid in fiat).
    const events = toEvents([
      tx({
        id: 't',
        movements: [leg('ETH', '-1', '-2000'), leg('USDC', '1990', '1990')],
        feeAmount: '5',
      }),
    ]);
    expect(shapes(events)).toEqual([
      {
        kind: 'dispose',
        txId: 't',
        leg: 0,
        token: 'ETH',
        account: 'A',
        quantity: '1',
        value: '2000',
        fee: '5',
      },
      {
        kind: 'acquire',
        txId: 't',
        leg: 1,
        token: 'USDC',
        account: 'A',
        quantity: '1990',
        value: '1990',
        fee: '0',
        income: null,
      },
    ]);
  });

  it('returns a disposal of the fee token at the fee value', () => {
    // Fee 0.001 ETH worth 3 USD: an ETH disposal with proceeds 3.
    const events = toEvents([
      tx({
        id: 't',
        movements: [leg('USDC', '-100', '-100'), leg('SOL', '1', '99')],
        feeAmount: '3',
        feeSymbol: 'ETH',
        feeQuantity: '0.001',
      }),
    ]);
    expect(shapes(events).at(-1)).toEqual({
      kind: 'dispose',
      txId: 't',
      leg: 2,
      token: 'ETH',
      account: 'A',
      quantity: '0.001',
      value: '3',
      fee: '0',
    });
  });

  it('returns only the acquisition of a buy with fiat, the fee in its basis', () => {
    const events = toEvents([
      tx({ id: 't', movements: [leg('USD', '-500', '-500'), leg('ETH', '0.2', '500')], feeAmount: '2.5' }),
    ]);
    expect(shapes(events)).toEqual([
      {
        kind: 'acquire',
        txId: 't',
        leg: 1,
        token: 'ETH',
        account: 'A',
        quantity: '0.2',
        value: '500',
        fee: '2.5',
        income: null,
      },
    ]);
  });
});

describe('toEvents (income)', () => {
  it('returns an income acquisition for an income category', () => {
    const [event] = toEvents([tx({ id: 'r', category: 'staking', movements: [leg('ETH', '0.01', '30')] })]);
    expect(event).toMatchObject({ kind: 'acquire', income: 'staking', value: '30' });
  });

  it('returns an exchange, not income, for a staking transaction with an out movement', () => {
    // Stake ETH for stETH: disposal of ETH, plain acquisition of stETH.
    const events = toEvents([
      tx({ id: 's', category: 'staking', movements: [leg('ETH', '-1', '-2000'), leg('stETH', '1', '2000')] }),
    ]);
    expect(events.map((e) => [e.kind, e.kind === 'acquire' ? e.income : null])).toEqual([
      ['dispose', null],
      ['acquire', null],
    ]);
  });
});

describe('toEvents (transfers)', () => {
  const out = tx({
    id: 'o',
    category: 'transfer',
    hash: '0x1',
    accountId: 'A',
    movements: [leg('ETH', '-1', '-2000')],
  });
  const inn = tx({
    id: 'i',
    category: 'transfer',
    hash: '0x1',
    accountId: 'B',
    movements: [leg('ETH', '1', '2000')],
  });

  it('returns a move for a transfer out and in sharing a hash', () => {
    expect(shapes(toEvents([out, inn]))).toEqual([
      { kind: 'move', txId: 'o', leg: 0, token: 'ETH', quantity: '1', from: 'A', to: 'B' },
    ]);
  });

  it('returns a move of the received quantity and a disposal of the rest', () => {
    // Sent 1 (worth 2000), received 0.99: move 0.99; dispose 0.01 for 2000 × 0.01 = 20.
    const short = { ...inn, movements: [leg('ETH', '0.99', '1980')] };
    expect(shapes(toEvents([out, short]))).toEqual([
      { kind: 'move', txId: 'o', leg: 0, token: 'ETH', quantity: '0.99', from: 'A', to: 'B' },
      {
        kind: 'dispose',
        txId: 'o',
        leg: 0,
        token: 'ETH',
        account: 'A',
        quantity: '0.01',
        value: '20',
        fee: '0',
      },
    ]);
  });

  it('returns a withdrawal for a transfer out without a counterpart', () => {
    expect(shapes(toEvents([out]))).toEqual([
      {
        kind: 'withdraw',
        txId: 'o',
        leg: 0,
        token: 'ETH',
        account: 'A',
        quantity: '1',
        unmatchedTransfer: true,
      },
    ]);
  });

  it('returns a disposal for a transfer out without a counterpart when external transfers are taxable', () => {
    const [event] = toEvents([out], { externalTransfers: 'taxable' });
    expect(event).toMatchObject({ kind: 'dispose', value: '2000', unmatchedTransfer: true });
  });

  it('returns an acquisition at its value for a transfer in without a counterpart', () => {
    const [event] = toEvents([inn]);
    expect(event).toMatchObject({ kind: 'acquire', value: '2000', income: null, unmatchedTransfer: true });
  });

  it('returns no pair for a transfer within one account', () => {
    const same = { ...inn, accountId: 'A' };
    expect(toEvents([out, same]).map((e) => e.kind)).toEqual(['withdraw', 'acquire']);
  });

  it('returns a pair by a caller-given key', () => {
    const events = toEvents(
      [
        { ...out, hash: null },
        { ...inn, hash: null },
      ],
      {
        pairKey: (t) => (t.id === 'o' || t.id === 'i' ? 'k' : null),
      },
    );
    expect(events.map((e) => e.kind)).toEqual(['move']);
  });
});

describe('toEvents (fee category)', () => {
  it('returns the movement as the disposal and ignores the fee fields', () => {
    const events = toEvents([
      tx({
        id: 'g',
        category: 'fee',
        movements: [leg('ETH', '-0.002', '-6')],
        feeAmount: '6',
        feeSymbol: 'ETH',
        feeQuantity: '0.002',
      }),
    ]);
    expect(shapes(events)).toEqual([
      {
        kind: 'dispose',
        txId: 'g',
        leg: 0,
        token: 'ETH',
        account: 'A',
        quantity: '0.002',
        value: '6',
        fee: '0',
      },
    ]);
  });
});

describe('toEvents (order)', () => {
  const sale = tx({ id: 's', date: '2025-01-01T10:00:00.000Z', movements: [leg('ETH', '-1', '-100')] });
  const purchase = tx({ id: 'p', date: '2025-01-01T10:00:00.000Z', movements: [leg('ETH', '1', '90')] });

  it('returns the events of one instant in input order by default', () => {
    expect(toEvents([sale, purchase]).map((e) => e.txId)).toEqual(['s', 'p']);
  });

  it('returns acquisitions before disposals of one instant when asked', () => {
    expect(toEvents([sale, purchase], { sameTimeOrder: 'acquisitions-first' }).map((e) => e.txId)).toEqual([
      'p',
      's',
    ]);
  });

  it('returns events sorted by instant', () => {
    const later = { ...sale, date: '2025-01-02T00:00:00.000Z' };
    expect(toEvents([later, purchase]).map((e) => e.txId)).toEqual(['p', 's']);
  });
});

describe('toEvents (transfer to itself)', () => {
  it('returns a move inside one account for a transfer with out and in of the same token', () => {
    const events = toEvents([
      tx({ id: 'x', category: 'transfer', movements: [leg('ETH', '-1', '-2000'), leg('ETH', '1', '2000')] }),
    ]);
    expect(shapes(events)).toEqual([
      { kind: 'move', txId: 'x', leg: 0, token: 'ETH', quantity: '1', from: 'A', to: 'A' },
    ]);
  });
});

describe('createEventStream (pieces of the history)', () => {
  const send = tx({
    id: 'o',
    date: '2025-05-31T23:58:00.000Z',
    category: 'transfer',
    hash: '0x1',
    accountId: 'A',
    movements: [leg('ETH', '-1', '-3000')],
  });
  const receive = tx({
    id: 'i',
    date: '2025-06-01T00:03:00.000Z',
    category: 'transfer',
    hash: '0x1',
    accountId: 'B',
    movements: [leg('ETH', '1', '3000')],
  });

  it('returns a move for a pair whose in side comes in a later piece', () => {
    const stream = createEventStream();
    stream.add(send);
    // The out side waits for its counterpart: nothing is final at the end of May.
    expect(stream.advance(Date.parse('2025-05-31T23:59:59.999Z'))).toEqual([]);
    stream.add(receive);
    expect(stream.finish().map((e) => [e.kind, e.txId])).toEqual([['move', 'o']]);
  });

  it('returns a move for a pair whose in side comes first, in an earlier piece', () => {
    const stream = createEventStream();
    stream.add({ ...receive, date: '2025-05-31T23:50:00.000Z' });
    expect(stream.advance(Date.parse('2025-05-31T23:55:00.000Z'))).toEqual([]);
    stream.add(send);
    expect(stream.finish().map((e) => [e.kind, e.txId])).toEqual([['move', 'o']]);
  });

  it('returns the events before a waiting transfer once it is decided', () => {
    const buy = tx({ id: 'b', date: '2025-05-30T10:00:00.000Z', movements: [leg('ETH', '1', '1000')] });
    const stream = createEventStream({ transferTolerance: 3_600_000 });
    stream.add(buy);
    stream.add(send);
    expect(stream.advance(Date.parse('2025-05-31T23:59:00.000Z')).map((e) => e.txId)).toEqual(['b']);
    // An hour after the out side without a counterpart: it leaves the portfolio.
    expect(stream.advance(Date.parse('2025-06-01T01:00:00.000Z')).map((e) => [e.kind, e.txId])).toEqual([
      ['withdraw', 'o'],
    ]);
  });

  it('returns no pair for sides further apart than the tolerance', () => {
    const events = toEvents([send, receive], { transferTolerance: 60_000 });
    expect(events.map((e) => e.kind)).toEqual(['withdraw', 'acquire']);
  });

  it('throws GainsOrderError for a transaction at or before an instant declared complete', () => {
    const stream = createEventStream();
    stream.advance(Date.parse('2025-06-01T00:03:00.000Z'));
    expect(() => stream.add(receive)).toThrow(GainsOrderError);
  });
});

describe('toEvents (protocol moves)', () => {
  const supply = tx({
    id: 'sup',
    date: '2025-02-01T10:00:00.000Z',
    category: 'lending',
    subType: 'supply',
    protocol: 'Aave V3',
    movements: [leg('ETH', '-2', '-6000'), leg('aETH', '2', '6000')],
  });
  const withdraw = tx({
    id: 'wd',
    date: '2025-03-01T10:00:00.000Z',
    category: 'lending',
    subType: 'withdraw',
    protocol: 'Aave V3',
    movements: [leg('aETH', '-2.1', '-6300'), leg('ETH', '2.1', '6300')],
  });

  it('returns a disposal and an acquisition at value by default (taxable)', () => {
    expect(toEvents([supply]).map((e) => [e.kind, e.token])).toEqual([
      ['dispose', 'ETH'],
      ['acquire', 'aETH'],
    ]);
  });

  it('returns moves into and out of the position, the excess acquired at its share of the value, when non-taxable', () => {
    // 2 ETH go in; 2.1 come back: 2 move back, 0.1 is acquired at 6300 × 0.1 / 2.1 = 300. aETH is the receipt.
    const events = toEvents([supply, withdraw], { protocolMoves: 'non-taxable' });
    expect(shapes(events)).toEqual([
      {
        kind: 'move',
        txId: 'sup',
        leg: 0,
        token: 'ETH',
        quantity: '2',
        from: 'A',
        to: 'A [lending Aave V3]',
      },
      { kind: 'move', txId: 'wd', leg: 1, token: 'ETH', quantity: '2', from: 'A [lending Aave V3]', to: 'A' },
      {
        kind: 'acquire',
        txId: 'wd',
        leg: 1,
        token: 'ETH',
        account: 'A',
        quantity: '0.1',
        value: '300',
        fee: '0',
        income: null,
      },
    ]);
  });

  it('returns a withdrawal of a position never entered as an acquisition at value', () => {
    const [event] = toEvents([withdraw], { protocolMoves: 'non-taxable' });
    expect(event).toMatchObject({ kind: 'acquire', token: 'ETH', quantity: '2.1', value: '6300' });
  });

  it('returns the staking delegate and undelegate of a token as moves when non-taxable', () => {
    const delegate = tx({
      id: 'd',
      category: 'staking',
      subType: 'delegate',
      movements: [leg('SOL', '-10', '-1500')],
    });
    const undelegate = tx({
      id: 'u',
      date: '2025-04-01T00:00:00.000Z',
      category: 'staking',
      subType: 'undelegate',
      movements: [leg('SOL', '10', '2000')],
    });
    expect(toEvents([delegate, undelegate], { protocolMoves: 'non-taxable' }).map((e) => e.kind)).toEqual([
      'move',
      'move',
    ]);
  });
});

describe('toEvents (transfer policies)', () => {
  const out = tx({
    id: 'o',
    category: 'transfer',
    hash: '0x1',
    accountId: 'A',
    movements: [leg('ETH', '-1', '-2000')],
    feeAmount: '4',
  });
  const inn = tx({
    id: 'i',
    category: 'transfer',
    hash: '0x1',
    accountId: 'B',
    movements: [leg('ETH', '1', '2000')],
    feeAmount: '1',
  });

  it('returns a transfer in from outside at a zero basis with the missing basis flag', () => {
    const [event] = toEvents([inn], { transferInBasis: 'zero' });
    expect(event).toMatchObject({ kind: 'acquire', value: '0', missingBasis: true, unmatchedTransfer: true });
  });

  it('returns the fiat fees of both sides on the move when transfer fees go to the basis', () => {
    const [move] = toEvents([out, inn], { transferFee: 'basis' });
    expect(move).toMatchObject({ kind: 'move', fee: '5' });
  });

  it('returns the fiat fees of both sides once when the in side comes first', () => {
    const early = { ...inn, date: '2025-03-14T08:59:00.000Z' };
    expect(toEvents([early, out], { transferFee: 'basis' })).toMatchObject([{ kind: 'move', fee: '5' }]);
  });

  it('returns a move without a fee by default (dropped)', () => {
    const [move] = toEvents([out, inn]);
    expect(move?.kind === 'move' ? move.fee : 'not a move').toBeUndefined();
  });
});
