import { describe, expect, it } from 'vitest';
import type { Account, JournalEntry } from '../ledger/types.ts';
import { adjustingDate, adjustingEntries, dayAfterPeriod } from './adjusting.ts';

const cash: Account = { code: '1000', name: 'Cash', kind: 'cash' };
const btc: Account = { code: '1500', name: 'BTC', kind: 'asset' };
const gain: Account = { code: '8000', name: 'Gains', kind: 'gain' };

const entry = (id: string, lines: [Account, string, string][]): JournalEntry => ({
  id,
  date: '2025-10-10',
  txIds: [id],
  description: id,
  postings: lines.map(([account, debit, credit]) => ({ account, debit, credit, currency: 'USD' })),
});

/** Debit − credit per account code, computed here on its own. */
function net(entries: JournalEntry[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of entries)
    for (const p of e.postings)
      out[p.account.code] = (out[p.account.code] ?? 0) + Number(p.debit) - Number(p.credit);
  return out;
}

describe('adjustingEntries', () => {
  it('brings the closed balances to the corrected ones, account by account', () => {
    const closed = [
      entry('a', [
        [cash, '100.00', '0'],
        [btc, '0', '80.00'],
        [gain, '0', '20.00'],
      ]),
    ];
    const corrected = [
      entry('a', [
        [cash, '90.00', '0'],
        [btc, '0', '80.00'],
        [gain, '0', '10.00'],
      ]),
      entry('b', [
        [btc, '5.00', '0'],
        [cash, '0', '5.00'],
      ]),
    ];
    const adjusting = adjustingEntries(closed, corrected, {
      id: 'adj',
      date: '2025-11-01',
      description: 'restated',
      txIds: ['a', 'b'],
    });
    const after = net([...closed, ...adjusting]);
    const expected = net(corrected);
    for (const code of new Set([...Object.keys(after), ...Object.keys(expected)])) {
      expect(after[code] ?? 0).toBeCloseTo(expected[code] ?? 0, 9);
    }
    const posted = adjusting[0]?.postings ?? [];
    const debits = posted.reduce((s, p) => s + Number(p.debit), 0);
    const credits = posted.reduce((s, p) => s + Number(p.credit), 0);
    expect(debits).toBeCloseTo(credits, 9);
    expect(adjusting[0]?.date).toBe('2025-11-01');
  });

  it('returns no entry when the journals balance alike', () => {
    const same = [
      entry('a', [
        [cash, '1.00', '0'],
        [gain, '0', '1.00'],
      ]),
    ];
    expect(
      adjustingEntries(same, same, { id: 'adj', date: '2025-11-01', description: '', txIds: [] }),
    ).toEqual([]);
  });

  it('splits a posting whose tokens move against their value: the tokens at no value, the value alone', () => {
    const held = (quantity: string, debit: string): JournalEntry => ({
      id: 'a',
      date: '2025-10-10',
      txIds: ['a'],
      description: 'a',
      postings: [
        { account: btc, debit, credit: '0', currency: 'USD', token: 'BTC', quantity },
        { account: cash, debit: '0', credit: debit, currency: 'USD' },
      ],
    });
    const [adjusting] = adjustingEntries([held('2', '100.00')], [held('1', '150.00')], {
      id: 'adj',
      date: '2025-11-01',
      description: '',
      txIds: ['a'],
    });
    expect(adjusting?.postings.filter((p) => p.account === btc)).toEqual([
      { account: btc, debit: '0', credit: '0', currency: 'USD', token: 'BTC', quantity: '-1' },
      { account: btc, debit: '50.00', credit: '0', currency: 'USD', token: 'BTC' },
    ]);
  });

  it("writes its amounts as the closed journal does, with the currency's minor unit (issue 39, item 5)", () => {
    const closed = [
      entry('a', [
        [cash, '17900.10', '0'],
        [gain, '0', '17900.10'],
      ]),
    ];
    const corrected = [
      entry('a', [
        [cash, '35811.00', '0'],
        [gain, '0', '35811.00'],
      ]),
      entry('b', [
        [btc, '112.00', '0'],
        [cash, '0', '100.00'],
        [gain, '0', '12.00'],
      ]),
    ];
    const [adjusting] = adjustingEntries(closed, corrected, {
      id: 'adj',
      date: '2025-11-01',
      description: '',
      txIds: [],
    });
    const amounts = (adjusting?.postings ?? []).flatMap((p) => [p.debit, p.credit]).filter((a) => a !== '0');
    expect(amounts.sort()).toEqual(['112.00', '17810.90', '17922.90'].sort());
    const yen = adjustingEntries(
      [
        {
          ...entry('a', [
            [cash, '100', '0'],
            [gain, '0', '100'],
          ]),
          postings: [],
        },
      ],
      [
        {
          ...entry('a', []),
          postings: [
            { account: cash, debit: '1200', credit: '0', currency: 'JPY' },
            { account: gain, debit: '0', credit: '1200', currency: 'JPY' },
          ],
        },
      ],
      { id: 'adj', date: '2025-11-01', description: '', txIds: [] },
    );
    expect(yen[0]?.postings.map((p) => [p.debit, p.credit])).toEqual([
      ['1200', '0'],
      ['0', '1200'],
    ]);
  });

  it('dates the entries the day after the latest closed period of the profile', () => {
    expect(dayAfterPeriod('2025-12')).toBe('2026-01-01');
    expect(dayAfterPeriod('2025')).toBe('2026-01-01');
    expect(dayAfterPeriod('2024-04-06_2025-04-05')).toBe('2025-04-06');
    const closes = [
      { profile: 'acme', period: '2025-10' },
      { profile: 'acme', period: '2025-11' },
      { profile: 'other', period: '2026-03' },
    ];
    expect(adjustingDate('acme', '2025-10', closes)).toBe('2025-12-01');
    expect(adjustingDate('acme', '2025-10', [])).toBe('2025-11-01');
  });
});
