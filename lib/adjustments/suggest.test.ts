import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import type { CanonicalTransaction } from '../domain/index.ts';
import { runGains } from '../gains/index.ts';
import { adjustmentSchema } from './schema.ts';
import { proposalFromId, type SuggestOptions, suggestAdjustments, suggestionCell } from './suggest.ts';

const DAY = 86_400_000;
const at = (day: number, hour = 10) => new Date(Date.UTC(2025, 0, day, hour)).toISOString();

/** A funded portfolio: A buys 10 ETH and 1 000 USDC on 1 January. */
const FUNDING = [
  tx({
    id: 'buy',
    date: at(1),
    accountId: 'A',
    movements: [leg('USD', '-30000', '-30000'), leg('ETH', '10', '30000')],
  }),
  tx({
    id: 'buy-usdc',
    date: at(1, 11),
    accountId: 'A',
    movements: [leg('USD', '-1000', '-1000'), leg('USDC', '1000', '1000')],
  }),
];

/** The suggestions for a history, from the warnings the gains engine really raises on it. */
function suggest(history: CanonicalTransaction[], options: SuggestOptions = {}) {
  const { result } = runGains(history, { timeZone: 'UTC' });
  return { warnings: result.warnings, suggestions: suggestAdjustments(history, result.warnings, options) };
}

const transfer = (
  id: string,
  date: string,
  account: string,
  amount: string,
  hash: string | null,
  token = 'ETH',
) =>
  tx({ id, date, accountId: account, category: 'transfer', hash, movements: [leg(token, amount, amount)] });

describe('suggestAdjustments', () => {
  it('pairs the two sides of a same-hash move that lie beyond the pairing tolerance', () => {
    const history = [
      ...FUNDING,
      transfer('out', at(5), 'A', '-2', '0xmove'),
      transfer('in', new Date(Date.parse(at(5)) + 3 * DAY).toISOString(), 'B', '2', '0xmove'),
    ];
    const { warnings, suggestions } = suggest(history);
    expect(warnings.map((w) => [w.kind, w.txId])).toEqual([
      ['unmatched-transfer', 'out'],
      ['unmatched-transfer', 'in'],
    ]);
    expect(suggestions).toHaveLength(1);
    const [suggestion] = suggestions;
    expect(suggestion?.adjustment).toMatchObject({ kind: 'transfer-pair', outTxId: 'out', inTxId: 'in' });
    expect(suggestion?.text).toBe(
      'Pair out (out) with in (in) as one move of 2 ETH between own accounts: same hash, 3 days apart: beyond the pairing tolerance of 24 hours',
    );
    expect(suggestion?.resolves).toEqual([
      { txId: 'out', token: 'ETH' },
      { txId: 'in', token: 'ETH' },
    ]);
  });

  it('suggests nothing for a transfer in from outside: no counterpart, its basis is the accountant’s to give', () => {
    const history = [...FUNDING, transfer('deposit', at(5), 'B', '0.5', '0xoutside', 'BTC')];
    const { warnings, suggestions } = suggest(history);
    expect(warnings.map((w) => [w.kind, w.txId])).toEqual([['unmatched-transfer', 'deposit']]);
    expect(suggestions).toEqual([]);
  });

  it('pairs an unmatched out and in of equal quantity between own accounts close in time, the nearest one', () => {
    const history = [
      ...FUNDING,
      transfer('out', at(5), 'A', '-1.5', '0xaaa'),
      transfer('in-far', at(7), 'B', '1.5', '0xccc'),
      transfer('in-near', at(5, 14), 'C', '1.5', '0xbbb'),
      transfer('in-other-qty', at(5, 12), 'B', '1.4', '0xddd'),
    ];
    const { suggestions } = suggest(history);
    expect(suggestions.map((s) => s.adjustment)).toEqual([
      expect.objectContaining({ kind: 'transfer-pair', outTxId: 'out', inTxId: 'in-near' }),
    ]);
    expect(suggestions[0]?.text).toContain(
      'the same quantity, out of one own account and into another, 4 hours apart',
    );
  });

  it('suggests no pair for an equal in and out in the same account, or days beyond the window', () => {
    const history = [
      ...FUNDING,
      transfer('out', at(5), 'A', '-1', '0xaaa'),
      transfer('in-same-account', at(5, 12), 'A', '1', '0xbbb'),
      transfer('in-late', at(12), 'B', '1', '0xccc'),
    ];
    expect(suggest(history).suggestions).toEqual([]);
  });

  it('marks a token only ever received and never valued as spam, resolving each of its warnings', () => {
    const airdrop = (id: string, day: number) =>
      tx({ id, date: at(day), category: 'income', movements: [leg('CLAIM-ETH', '1000', null)] });
    const history = [...FUNDING, airdrop('drop-1', 3), airdrop('drop-2', 9)];
    const { warnings, suggestions } = suggest(history);
    expect(warnings.map((w) => [w.kind, w.txId])).toEqual([
      ['missing-value', 'drop-1'],
      ['missing-value', 'drop-2'],
    ]);
    expect(suggestions.map((s) => [s.adjustment, s.resolves])).toEqual([
      [
        expect.objectContaining({ kind: 'spam', token: 'CLAIM-ETH' }),
        [
          { txId: 'drop-1', token: 'CLAIM-ETH' },
          { txId: 'drop-2', token: 'CLAIM-ETH' },
        ],
      ],
    ]);
    expect(suggestions[0]?.text).toBe(
      'Mark CLAIM-ETH as spam: only ever received (2 times), never valued and never given away',
    );
  });

  it('does not call a token spam once it is given away or valued', () => {
    const history = [
      ...FUNDING,
      tx({ id: 'drop', date: at(3), category: 'income', movements: [leg('NEW', '10', null)] }),
      tx({ id: 'sold', date: at(4), movements: [leg('NEW', '-5', '-50'), leg('USD', '50', '50')] }),
    ];
    expect(suggest(history).suggestions).toEqual([]);
  });

  it('values a stablecoin movement without a value at its peg, and says it is the peg', () => {
    const history = [
      ...FUNDING,
      tx({ id: 'interest', date: at(3), category: 'income', movements: [leg('USDC', '12.5', null)] }),
      tx({ id: 'paid', date: at(4), movements: [leg('USDC', '-100', null)] }),
    ];
    const { suggestions } = suggest(history);
    expect(suggestions.map((s) => s.adjustment)).toEqual([
      expect.objectContaining({ kind: 'value', txId: 'interest', token: 'USDC', value: '12.50' }),
      expect.objectContaining({ kind: 'value', txId: 'paid', token: 'USDC', value: '-100.00' }),
    ]);
    expect(suggestions[0]?.text).toBe(
      'Value 12.5 USDC at the peg: 12.50 USD (1 USDC = 1 USD, not a market price)',
    );
  });

  it('suggests no peg value for a token that is no stablecoin, or for a peg in another currency', () => {
    const history = [
      ...FUNDING,
      tx({ id: 'eth', date: at(3), category: 'income', movements: [leg('ETH', '1', null)] }),
      tx({
        id: 'eurc',
        date: at(3, 12),
        category: 'income',
        valueCurrency: 'EUR',
        movements: [leg('EURC', '5', null)],
      }),
      tx({ id: 'eurc-sold', date: at(4), movements: [leg('EURC', '-1', '-1')] }),
    ];
    expect(suggest(history).suggestions).toEqual([]);
  });

  it('proposes adjustments the schema accepts once who and when are set, with ids stable for the same data', () => {
    const history = [
      ...FUNDING,
      transfer('out', at(5), 'A', '-2', '0xmove'),
      transfer('in', new Date(Date.parse(at(5)) + 3 * DAY).toISOString(), 'B', '2', '0xmove'),
      tx({ id: 'drop', date: at(6), category: 'income', movements: [leg('SPAM', '1', null)] }),
      tx({ id: 'interest', date: at(7), category: 'income', movements: [leg('DAI', '3', null)] }),
    ];
    const first = suggest(history).suggestions;
    expect(first.map((s) => s.adjustment.kind)).toEqual(['transfer-pair', 'spam', 'value']);
    for (const s of first) {
      const parsed = adjustmentSchema.safeParse({
        ...s.adjustment,
        by: 'ana@example.com',
        at: '2026-01-05T10:00:00Z',
      });
      expect(parsed.success).toBe(true);
    }
    expect(suggest(history).suggestions.map((s) => s.adjustment.id)).toEqual(
      first.map((s) => s.adjustment.id),
    );
    expect(suggestionCell(first[1])).toBe(
      `Mark SPAM as spam: only ever received (once), never valued and never given away (proposed adjustment ${first[1]?.adjustment.id})`,
    );
    expect(suggestionCell(undefined)).toBe('');
    // A warning row's id alone says the whole proposal (the portal's one-click accept reads it).
    expect(first.map((s) => proposalFromId(s.adjustment.id, s.adjustment.why))).toEqual(
      first.map((s) => s.adjustment),
    );
    expect(first.map((s) => s.adjustment.id)).toEqual([
      'suggested:transfer-pair:out:in',
      'suggested:spam:SPAM',
      'suggested:value:interest:DAI:3.00',
    ]);
    expect(proposalFromId('user-7', 'why')).toBeNull();
    expect(proposalFromId('suggested:spam:%E0%A4%A', 'why')).toBeNull();
  });
});
