/**
 * The us rule set: long term when held more than one year; one universal pool per token before
 * 1 January 2025 and one per wallet (account) from then on, the unused basis allocated to the
 * wallets as documented in README.md (Rev. Proc. 2024-28); FIFO or specific identification.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import type { CanonicalTransaction } from '../domain/index.ts';
import { runGains } from './index.ts';
import { holdingsTable } from './reports.ts';

let counter = 0;
const acquired = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10));
const at = (date: string) => (date.length === 10 ? `${date}T17:00:00.000Z` : date);

function buy(date: string, account: string, quantity: string, cost: string): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `b${counter}`,
    date: at(date),
    accountId: account,
    movements: [leg('USD', `-${cost}`, `-${cost}`), leg('ETH', quantity, cost)],
  });
}

function sell(date: string, account: string, quantity: string, proceeds: string): CanonicalTransaction {
  counter += 1;
  return tx({
    id: `s${counter}`,
    date: at(date),
    accountId: account,
    movements: [leg('ETH', `-${quantity}`, `-${proceeds}`), leg('USD', proceeds, proceeds)],
  });
}

describe('us rules', () => {
  it('returns long term only for a holding of more than one year', () => {
    const result = runGains(
      [
        buy('2023-06-01', 'A', '2', '200'),
        sell('2024-06-01', 'A', '1', '300'),
        sell('2024-06-02', 'A', '1', '300'),
      ],
      { taxRules: 'us' },
    ).result;
    expect(result.disposals.map((d) => d.term)).toEqual(['short', 'long']);
  });

  it('returns universal pools before 2025: a sale in one wallet takes the earliest lot of any', () => {
    const result = runGains(
      [
        buy('2024-01-01', 'A', '1', '100'),
        buy('2024-02-01', 'B', '1', '300'),
        sell('2024-06-01', 'B', '1', '500'),
      ],
      { taxRules: 'us' },
    ).result;
    expect(result.disposals.map((d) => [d.account, acquired(d.acquiredAt), d.cost])).toEqual([
      ['B', '2024-01-01', '100'],
    ]);
  });

  it('returns wallet-by-wallet pools from 1 January 2025, the unused basis allocated to the wallets holding units', () => {
    // Before 2025 B's sale took A's lot (universal FIFO): A still holds 1 ETH, B none, and the pool
    // holds B's lot (300). On 1 January 2025 that unused basis goes to A, the wallet holding a unit.
    // In 2025 A's sale takes it (cost 300, acquired 2024-02-01); B's sale finds nothing (zero basis).
    const history = [
      buy('2024-01-01', 'A', '1', '100'),
      buy('2024-02-01', 'B', '1', '300'),
      sell('2024-06-01', 'B', '1', '500'),
      sell('2025-03-01', 'A', '1', '800'),
    ];
    const { result } = runGains(history, { taxRules: 'us' });
    expect(result.disposals.map((d) => [d.account, acquired(d.acquiredAt), d.cost, d.taxYear])).toEqual([
      ['B', '2024-01-01', '100', '2024'],
      ['A', '2024-02-01', '300', '2025'],
    ]);
    const later = runGains([...history, sell('2025-04-01', 'B', '0.5', '400')], { taxRules: 'us' }).result;
    expect(later.warnings.map((w) => [w.kind, w.account])).toEqual([['zero-basis', 'B']]);
  });

  it('returns the switch in the roll-forward: out of the universal pool, into each wallet, checks zero', async () => {
    const result = runGains(
      [
        buy('2024-01-01', 'A', '1', '100'),
        buy('2024-02-01', 'B', '2', '600'),
        sell('2025-03-01', 'B', '1', '800'),
      ],
      { taxRules: 'us', period: { start: '2024-07-01T00:00:00Z', end: '2025-07-01T00:00:00Z' } },
    ).result;
    expect(
      result.rollForward.map((l) => [
        l.account,
        l.opening.quantity,
        l.transferredIn.quantity,
        l.transferredOut.quantity,
        l.closing.quantity,
      ]),
    ).toEqual([
      [null, '3', '0', '3', '0'],
      ['A', '0', '1', '0', '1'],
      ['B', '0', '2', '0', '1'],
    ]);
    for await (const row of holdingsTable(result).rows()) expect(row.slice(-2)).toEqual(['0', '0']);
  });

  it('returns wallet-by-wallet holdings for a 2025 period without a 2025 transaction', () => {
    const result = runGains([buy('2024-01-01', 'A', '1', '100'), buy('2024-02-01', 'B', '1', '300')], {
      taxRules: 'us',
      period: { start: '2025-01-01T05:00:00Z', end: '2026-01-01T05:00:00Z' },
      timeZone: 'America/New_York',
    }).result;
    expect(result.rollForward.map((l) => [l.account, l.closing.quantity, l.closing.cost])).toEqual([
      [null, '0', '0'],
      ['A', '1', '100'],
      ['B', '1', '300'],
    ]);
  });

  it('refuses average cost and another pooling, naming the option', () => {
    expect(() => runGains([], { taxRules: 'us', method: 'average' })).toThrow(
      /method: us rules identify units/,
    );
    expect(() => runGains([], { taxRules: 'us', pooling: 'account' })).toThrow(
      /pooling: us rules pool universally/,
    );
  });
});
