import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import {
  type Adjustment,
  AdjustmentMismatchError,
  type AdjustmentsDocument,
  parseAdjustments,
  serializeAdjustments,
  UnknownReferenceError,
} from '../../adjustments/index.ts';
import type { CanonicalTransaction } from '../../domain/index.ts';
import type { Row, TableSource } from '../../domain/table.ts';
import { periodRange } from '../plan/period.ts';
import { parseExportRequest } from '../plan/request.ts';
import { createGainsFeed } from './gains-feed.ts';

const BY = { by: 'ann@example.com', at: '2026-11-20T10:00:00Z', why: 'client statement' };

function doc(adjustments: Adjustment[]): AdjustmentsDocument {
  return { schema: 'pbs-export/adjustments@1', profile: 'acme', version: 1, adjustments };
}

interface Tables {
  [name: string]: { columns: string[]; rows: Row[] };
}

/** Feeds `history` one month per window (windows labelled by month) and returns the tables by name. */
async function run(history: readonly CanonicalTransaction[], adjustments?: Adjustment[]): Promise<Tables> {
  const request = parseExportRequest({
    profile: 'acme',
    period: '2025',
    reports: ['gains'],
    gains: { currency: 'USD' },
  });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(
    request,
    { start: range.start.toJSDate(), end: range.end.toJSDate() },
    adjustments === undefined
      ? {}
      : { adjustments: parseAdjustments(serializeAdjustments(doc(adjustments))) },
  );
  for (const t of [...history].sort((a, b) => a.date.localeCompare(b.date))) feed.add(t.date.slice(0, 7), t);
  const tables: Tables = {};
  for (const table of feed.tables()) tables[table.spec.name] = await read(table);
  return tables;
}

async function read(table: TableSource) {
  const rows: Row[] = [];
  for await (const row of table.rows()) rows.push(row);
  return { columns: table.spec.columns.map((c) => c.key), rows };
}

/** The values of `key` in the rows of `table` whose `filter` column equals `value`. */
function cells(tables: Tables, table: string, key: string, where: [string, string] | null = null) {
  const t = tables[table];
  if (t === undefined) throw new Error(`no table ${table}`);
  const at = t.columns.indexOf(key);
  const filter = where === null ? -1 : t.columns.indexOf(where[0]);
  return t.rows.filter((row) => where === null || row[filter] === where[1]).map((row) => row[at]);
}

/** Income by token (the total rows left out). */
function incomeOf(tables: Tables): Record<string, string> {
  const tokens = cells(tables, 'income_exact', 'token');
  const values = cells(tables, 'income_exact', 'value');
  return Object.fromEntries(
    tokens.flatMap((token, index) =>
      token === null || token === '' || token === 'TOTAL' ? [] : [[token, values[index]]],
    ),
  );
}

const gainOf = (tables: Tables, token: string) =>
  cells(tables, 'disposals_exact', 'gain_loss', ['token', token]);

const BUY_ETH = tx({
  id: 'buy-eth',
  date: '2025-01-10T10:00:00.000Z',
  accountId: 'A',
  movements: [leg('USD', '-1000', '-1000'), leg('ETH', '1', '1000')],
});
// A sends its ETH on 1 February, B receives it six weeks later under another hash: beyond the
// 24 h pairing tolerance, so without an adjustment the lot leaves A and restarts at B at 3 000.
const SEND = tx({
  id: 'send',
  date: '2025-02-01T10:00:00.000Z',
  category: 'transfer',
  hash: '0x1',
  accountId: 'A',
  movements: [leg('ETH', '-1', '-2000')],
});
const RECEIVE = tx({
  id: 'receive',
  date: '2025-03-15T10:00:00.000Z',
  category: 'transfer',
  hash: '0x2',
  accountId: 'B',
  movements: [leg('ETH', '1', '3000')],
});
const SELL_ETH = tx({
  id: 'sell-eth',
  date: '2025-07-01T10:00:00.000Z',
  accountId: 'B',
  movements: [leg('ETH', '-1', '-3500'), leg('USD', '3500', '3500')],
});

describe('adjustments in the gains feed', () => {
  it('transfer-pair: the lot moves with its basis whatever the time apart', async () => {
    const history = [BUY_ETH, SEND, RECEIVE, SELL_ETH];
    const plain = await run(history);
    // Without: the lot restarts at B at its value, 3 000: gain 3 500 − 3 000.
    expect(gainOf(plain, 'ETH')).toEqual(['500']);
    const pair: Adjustment = { ...BY, id: 'p1', kind: 'transfer-pair', outTxId: 'send', inTxId: 'receive' };
    const adjusted = await run(history, [pair]);
    // With: the lot bought for 1 000 is sold for 3 500.
    expect(gainOf(adjusted, 'ETH')).toEqual(['2500']);
    expect(cells(adjusted, 'disposals_exact', 'acquired_tx_id')).toEqual(['buy-eth']);
    // Both unmatched-transfer warnings are listed as resolved by p1, none is open.
    const resolution = cells(adjusted, 'gains_warnings', 'resolution', ['kind', 'unmatched-transfer']);
    expect(resolution).toEqual(['resolved by p1', 'resolved by p1']);
    expect(cells(adjusted, 'adjustments', 'change', ['id', '(all) realised gain'])).toEqual(['2000.00']);
  });

  it('cost-basis: the transfer in opens at the cost and date given (long term)', async () => {
    const history = [
      tx({
        id: 'btc-in',
        date: '2025-04-01T10:00:00.000Z',
        category: 'transfer',
        hash: '0xb',
        accountId: 'C',
        movements: [leg('BTC', '2', '100000')],
      }),
      tx({
        id: 'btc-sell',
        date: '2025-08-01T10:00:00.000Z',
        accountId: 'C',
        movements: [leg('BTC', '-2', '-120000'), leg('USD', '120000', '120000')],
      }),
    ];
    const plain = await run(history);
    expect(gainOf(plain, 'BTC')).toEqual(['20000']);
    expect(cells(plain, 'disposals_exact', 'term')).toEqual(['short']);
    const basis: Adjustment = {
      ...BY,
      id: 'b1',
      kind: 'cost-basis',
      txId: 'btc-in',
      token: 'BTC',
      cost: '7000',
      acquiredAt: '2019-05-01T00:00:00Z',
    };
    const adjusted = await run(history, [basis]);
    expect(gainOf(adjusted, 'BTC')).toEqual(['113000']);
    expect(cells(adjusted, 'disposals_exact', 'term')).toEqual(['long']);
    expect(cells(adjusted, 'gains_warnings', 'resolution')).toEqual(['resolved by b1']);
    expect(cells(adjusted, 'adjustments', 'basis_given', ['id', 'b1'])).toEqual(['7000.00']);
  });

  it('missing-lots: the zero-basis rest of a disposal gets its lot', async () => {
    const history = [
      tx({
        id: 'sol-sell',
        date: '2025-05-01T10:00:00.000Z',
        accountId: 'D',
        movements: [leg('SOL', '-1', '-200'), leg('USD', '200', '200')],
      }),
    ];
    expect(gainOf(await run(history), 'SOL')).toEqual(['200']);
    const lots: Adjustment = {
      ...BY,
      id: 'm1',
      kind: 'missing-lots',
      txId: 'sol-sell',
      lots: [{ token: 'SOL', quantity: '1', cost: '50', acquiredAt: '2022-01-01T00:00:00Z' }],
    };
    const adjusted = await run(history, [lots]);
    expect(gainOf(adjusted, 'SOL')).toEqual(['150']);
    expect(cells(adjusted, 'disposals_exact', 'acquired_tx_id')).toEqual(['adj:m1:1']);
    expect(cells(adjusted, 'disposals_exact', 'term')).toEqual(['long']);
    expect(cells(adjusted, 'gains_warnings', 'resolution', ['kind', 'zero-basis'])).toEqual([
      'resolved by m1',
    ]);
  });

  it('value, spam and category: income as the preparer says', async () => {
    const history = [
      tx({
        id: 'usdc-in',
        date: '2025-06-01T10:00:00.000Z',
        category: 'staking',
        movements: [leg('USDC', '10', null)],
      }),
      tx({
        id: 'scam-in',
        date: '2025-06-02T10:00:00.000Z',
        category: 'income',
        movements: [leg('SCAM', '1000', '500')],
      }),
      tx({
        id: 'dot-in',
        date: '2025-06-03T10:00:00.000Z',
        category: 'trade',
        movements: [leg('DOT', '5', '30')],
      }),
    ];
    const plain = await run(history);
    // Without: income is 0 (no value) + 500 (the spam airdrop); the DOT is a plain acquisition.
    expect(incomeOf(plain)).toEqual({ USDC: '0', SCAM: '500' });
    const adjusted = await run(history, [
      { ...BY, id: 'v1', kind: 'value', txId: 'usdc-in', value: '10' },
      { ...BY, id: 's1', kind: 'spam', token: 'SCAM' },
      { ...BY, id: 'c1', kind: 'category', txId: 'dot-in', category: 'income' },
    ]);
    expect(incomeOf(adjusted)).toEqual({ USDC: '10', DOT: '30' });
    expect(cells(adjusted, 'holdings_exact', 'token')).not.toContain('SCAM');
    // 10 + 30 instead of 0 + 500.
    expect(cells(adjusted, 'adjustments', 'change', ['id', '(all) income'])).toEqual(['-460.00']);
    expect(cells(adjusted, 'gains_warnings', 'resolution', ['kind', 'missing-value'])).toEqual([
      'resolved by v1',
    ]);
  });

  it('opening-lots: holdings from before the history enter at their cost', async () => {
    const history = [
      tx({
        id: 'xrp-sell',
        date: '2025-09-01T10:00:00.000Z',
        accountId: 'A',
        movements: [leg('XRP', '-2', '-4'), leg('USD', '4', '4')],
      }),
    ];
    const opening: Adjustment = {
      ...BY,
      id: 'o1',
      kind: 'opening-lots',
      lots: [
        { token: 'XRP', account: 'A', quantity: '1.5', cost: '0.6', acquiredAt: '2020-01-01T00:00:00Z' },
        { token: 'XRP', account: 'A', quantity: '0.5', cost: '0.4', acquiredAt: '2020-06-01T00:00:00Z' },
      ],
    };
    const adjusted = await run(history, [opening]);
    // 4 × 1.5/2 − 0.6 = 2.4 and 4 × 0.5/2 − 0.4 = 0.6.
    expect(gainOf(adjusted, 'XRP')).toEqual(['2.4', '0.6']);
    expect(cells(adjusted, 'disposals_exact', 'acquired_tx_id')).toEqual(['adj:o1:1', 'adj:o1:2']);
    expect(cells(adjusted, 'adjustments', 'basis_given', ['id', 'o1'])).toEqual(['1.00']);
  });

  it('fails naming an adjustment whose transaction or token the data does not have', async () => {
    const history = [BUY_ETH];
    await expect(
      run(history, [{ ...BY, id: 'x1', kind: 'value', txId: 'nope', value: '1' }]),
    ).rejects.toThrow(new UnknownReferenceError('x1', 'transaction', 'nope'));
    await expect(run(history, [{ ...BY, id: 'x2', kind: 'spam', token: 'NOPE' }])).rejects.toThrow(
      /adjustment x2 names token "NOPE"/,
    );
  });

  it('fails naming a pair whose quantities differ beyond the tolerance, and a value the service sent', async () => {
    const short = { ...RECEIVE, movements: [leg('ETH', '0.9', '2700')] };
    await expect(
      run(
        [BUY_ETH, SEND, short],
        [{ ...BY, id: 'p2', kind: 'transfer-pair', outTxId: 'send', inTxId: 'receive' }],
      ),
    ).rejects.toThrow(AdjustmentMismatchError);
    await expect(
      run([BUY_ETH], [{ ...BY, id: 'v2', kind: 'value', txId: 'buy-eth', token: 'ETH', value: '5' }]),
    ).rejects.toThrow(
      /adjustment v2: the ETH movement of transaction buy-eth has a value from the service \(1000\)/,
    );
    await expect(
      run([BUY_ETH], [{ ...BY, id: 'b2', kind: 'cost-basis', txId: 'buy-eth', token: 'ETH', cost: '5' }]),
    ).rejects.toThrow(/adjustment b2: transaction buy-eth is not a transfer in of ETH/);
  });
});
