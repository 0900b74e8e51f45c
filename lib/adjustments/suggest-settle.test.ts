import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import type { CanonicalTransaction } from '../domain/index.ts';
import { runGains } from '../gains/index.ts';
import { createSuggester, suggestAdjustments } from './suggest.ts';

const DAY = 86_400_000;
const at = (day: number, hour = 10) => new Date(Date.UTC(2025, 0, day, hour)).toISOString();

const transfer = (id: string, date: string, account: string, amount: string, hash: string | null) =>
  tx({ id, date, accountId: account, category: 'transfer', hash, movements: [leg('ETH', amount, amount)] });

/** A history with one late same-hash move, one unvalued USDC receipt, and a paired move. */
const HISTORY: CanonicalTransaction[] = [
  tx({
    id: 'buy',
    date: at(1),
    accountId: 'A',
    movements: [leg('USD', '-30000', '-30000'), leg('ETH', '10', '30000')],
  }),
  transfer('paired-out', at(3), 'A', '-1', '0xpaired'),
  transfer('paired-in', at(3, 11), 'B', '1', '0xpaired'),
  transfer('out', at(5), 'A', '-2', '0xmove'),
  tx({ id: 'usdc', date: at(6), accountId: 'A', category: 'income', movements: [leg('USDC', '50', null)] }),
  transfer('in', new Date(Date.parse(at(5)) + 3 * DAY).toISOString(), 'B', '2', '0xmove'),
];

describe('Suggester.settle', () => {
  it('keeps the sides a warning names: the same suggestions as without settling', () => {
    const { result } = runGains(HISTORY, { timeZone: 'UTC' });
    const expected = suggestAdjustments(HISTORY, result.warnings);
    expect(expected.map((s) => s.adjustment.kind).sort()).toEqual(['transfer-pair', 'value']);
    // As a feed does it: each transaction seen, its warnings told, then everything before it settled.
    const suggester = createSuggester();
    for (const t of HISTORY) {
      suggester.see(t);
      for (const w of result.warnings.filter((w) => w.txId === t.id)) suggester.warn(w);
      suggester.settle(Date.parse(t.date) + 1);
    }
    expect(suggester.suggestions()).toEqual(expected);
  });

  it('forgets a side no warning named by the time it is settled', () => {
    const { result } = runGains(HISTORY, { timeZone: 'UTC' });
    const suggester = createSuggester();
    for (const t of HISTORY) suggester.see(t);
    // Settled before their warnings are told: nothing is left to pair or to value at the peg.
    suggester.settle(Number.POSITIVE_INFINITY);
    for (const w of result.warnings) suggester.warn(w);
    expect(suggester.suggestions()).toEqual([]);
  });
});
