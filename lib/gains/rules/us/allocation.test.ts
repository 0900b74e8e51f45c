/**
 * The allocation of the unused basis on 1 January 2025 (`wallet-from-2025`, Rev. Proc. 2024-28):
 * each wallet keeps the units its own records hold, with their own lots; the basis a universal
 * sale left unused goes by lot order; no account id or its alphabetical order changes the tax.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buy, move, run, sell } from '../../../../test/support/gains.ts';
import { ZERO } from '../../../domain/index.ts';
import { createGainsEngine } from '../../engine.ts';
import type { AllocationLine, GainsEvent, GainsOptions, GainsResult, LotMethod } from '../../types.ts';

const US: GainsOptions = { taxRules: 'us', timeZone: 'UTC', period: { end: '2026-01-01T00:00:00Z' } };
const date = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().slice(0, 10));

/** Each wallet's cost of its 2025 sales, by wallet. */
const costs = (result: GainsResult) =>
  Object.fromEntries(
    result.disposals
      .filter((d) => d.taxYear === '2025')
      .map((d) => [d.account, [d.cost, date(d.acquiredAt)]]),
  );

/** The zeta/alpha case of issue 24: zeta's 2023 coin and alpha's 2024 coin, no sale before 2025. */
function zetaAlpha(zeta: string, alpha: string): GainsEvent[] {
  return [
    buy('z1', '2023-03-01', 'BTC', '1', '20000', { account: zeta }),
    buy('a1', '2024-03-01', 'BTC', '1', '60000', { account: alpha }),
    sell('a2', '2025-02-01', 'BTC', '1', '90000', { account: alpha }),
    sell('z2', '2025-02-02', 'BTC', '1', '90000', { account: zeta }),
  ];
}

describe('wallet-from-2025 allocation (records, the default)', () => {
  it('returns each wallet its own coin: alpha keeps its 2024 lot, zeta its 2023 lot', () => {
    // Before: accounts in alphabetical order filled their holdings from the FIFO pool, so alpha
    // took zeta's 2023 coin (cost 20000) and zeta got alpha's (60000).
    const result = run(zetaAlpha('zeta', 'alpha'), US);
    expect(costs(result)).toEqual({ alpha: ['60000', '2024-03-01'], zeta: ['20000', '2023-03-01'] });
  });

  it('returns the same basis per wallet when the accounts swap ids', () => {
    const named = costs(run(zetaAlpha('zeta', 'alpha'), US));
    const swapped = costs(run(zetaAlpha('alpha', 'zeta'), US));
    // The wallet that bought in 2023 (now called alpha) still has the 2023 basis.
    expect(swapped).toEqual({ alpha: named.zeta, zeta: named.alpha });
  });

  it('returns the allocation statement: per wallet the token, units, acquisition date and basis', () => {
    const result = run(zetaAlpha('zeta', 'alpha'), US);
    expect(
      result.allocation.map((l) => [l.account, l.token, l.quantity, date(l.acquiredAt), l.cost, l.source]),
    ).toEqual([
      ['zeta', 'BTC', '1', '2023-03-01', '20000', 'own-units'],
      ['alpha', 'BTC', '1', '2024-03-01', '60000', 'own-units'],
    ]);
  });

  it("returns a sale's unused basis to the wallet whose units lost theirs, by lot order", () => {
    // B sells 1 before 2025: the universal FIFO pool takes A's 2023 lot (100), B's records give up
    // B's own 2024 lot (300). A holds its unit but its lot's basis is spent: it gets B's unused 300.
    // C keeps its own lot. C's id sorts before A's nowhere in this rule.
    const result = run(
      [
        buy('a', '2023-01-10', 'ETH', '1', '100', { account: 'A' }),
        buy('b', '2024-01-10', 'ETH', '1', '300', { account: 'B' }),
        buy('c', '2024-02-10', 'ETH', '2', '500', { account: 'C' }),
        sell('s', '2024-06-01', 'ETH', '1', '400', { account: 'B' }),
      ],
      US,
    );
    expect(result.allocation.map((l) => [l.account, l.quantity, l.cost, l.acquiredTxId, l.source])).toEqual([
      ['C', '2', '500', 'c', 'own-units'],
      ['A', '1', '300', 'b', 'reallocated'],
    ]);
  });

  it('returns a moved part with its own lot: the receiving wallet keeps what it was sent', () => {
    const result = run(
      [
        buy('a', '2023-01-10', 'ETH', '2', '200', { account: 'A' }),
        buy('b', '2024-01-10', 'ETH', '1', '900', { account: 'B' }),
        move('m', '2024-03-01', 'ETH', '1', 'A', 'B'),
      ],
      { ...US, method: 'hifo' },
    );
    const byWallet = (account: string) =>
      result.allocation
        .filter((l) => l.account === account)
        .map((l) => [l.quantity, l.cost, l.acquiredTxId])
        .sort();
    // A sent one unit of its 2023 lot to B: B holds its own 900 lot and one unit of A's lot.
    expect(byWallet('A')).toEqual([['1', '100', 'a']]);
    expect(byWallet('B')).toEqual([
      ['1', '100', 'a'],
      ['1', '900', 'b'],
    ]);
  });

  it('resumes a state carried before the switch: with the records, as one pass; without (older versions), by account-order', () => {
    const events = zetaAlpha('zeta', 'alpha');
    const resumed = (dropRecords: boolean) => {
      const first = createGainsEngine(US);
      for (const e of events.slice(0, 2)) first.process(e);
      const state = first.carry();
      if (dropRecords && state.walletSwitch) delete state.walletSwitch.records;
      const second = createGainsEngine(US, JSON.parse(JSON.stringify(state)));
      for (const e of events.slice(2)) second.process(e);
      second.finish();
      return costs(second.result());
    };
    expect(resumed(false)).toEqual(costs(run(events, US)));
    expect(resumed(true)).toEqual({ alpha: ['20000', '2023-03-01'], zeta: ['60000', '2024-03-01'] });
  });

  it('keeps the old rule as an explicit option: account-order gives alpha the 2023 coin', () => {
    const result = run(zetaAlpha('zeta', 'alpha'), { ...US, walletAllocation: 'account-order' });
    expect(costs(result)).toEqual({ alpha: ['20000', '2023-03-01'], zeta: ['60000', '2024-03-01'] });
    expect(() => run([], { ...US, walletAllocation: 'alphabetical' as never })).toThrow(
      /walletAllocation: must be records or account-order/,
    );
  });
});

/** Properties over random histories (same shape as lib/gains/properties.test.ts). */
const BASE = Date.parse('2023-06-01T00:00:00Z');
const SIX_HOURS = 6 * 3600 * 1000;
const SWITCH = Date.parse('2025-01-01T00:00:00Z');

const decimal = (max: bigint, maxScale: number) =>
  fc.tuple(fc.bigInt({ min: 1n, max }), fc.integer({ min: 0, max: maxScale })).map(([n, scale]) => {
    const digits = n.toString().padStart(scale + 1, '0');
    return scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  });
const quantity = decimal(5_000_000n, 6);
const fiat = decimal(10_000_000n, 2);
const account = fc.constantFrom('X', 'Y', 'Z');
const draft = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('acquire' as const), quantity, value: fiat }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('dispose' as const), quantity, value: fiat }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('move' as const), quantity, to: account }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), quantity }) },
);

/** Histories of up to 30 events from June 2023 to about April 2025 (across the switch). */
const history = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 2700 }), fc.constantFrom('ETH', 'BTC'), account, draft), {
    maxLength: 30,
  })
  .map((items) =>
    items
      .sort((a, b) => a[0] - b[0])
      .map(([slot, token, acc, d], index): GainsEvent => {
        const base = { txId: `${d.kind[0]}${index}`, leg: 0, time: BASE + slot * SIX_HOURS, token };
        if (d.kind === 'move') return { ...base, ...d, from: acc, to: d.to === acc ? `${acc}2` : d.to };
        if (d.kind === 'withdraw') return { ...base, ...d, account: acc };
        if (d.kind === 'dispose') return { ...base, ...d, fee: '0', account: acc };
        return { ...base, ...d, fee: '0', income: null, account: acc };
      }),
  );

/** Renamings that reverse the accounts' alphabetical order. */
const RENAMINGS: readonly Record<string, string>[] = [
  { X: 'zz', Y: 'mm', Z: 'aa', X2: 'z2', Y2: 'm2', Z2: 'a2' },
  { X: 'Y', Y: 'Z', Z: 'X', X2: 'Y2', Y2: 'Z2', Z2: 'X2' },
];

function renamed(events: readonly GainsEvent[], names: Record<string, string>): GainsEvent[] {
  const to = (id: string) => names[id] ?? id;
  return events.map((e) =>
    e.kind === 'move' ? { ...e, from: to(e.from), to: to(e.to) } : { ...e, account: to(e.account) },
  );
}

const statement = (lines: readonly AllocationLine[], back: (id: string) => string = (id) => id) =>
  lines.map((l) => JSON.stringify({ ...l, account: back(l.account) })).sort();

const METHODS: readonly LotMethod[] = ['fifo', 'lifo', 'hifo', 'average'];

describe('wallet-from-2025 allocation properties', () => {
  it('returns the same allocation and 2025 disposals, wallet by wallet, however the accounts are named', () => {
    fc.assert(
      fc.property(
        history,
        fc.constantFrom(...RENAMINGS),
        fc.constantFrom(...METHODS),
        (events, names, method) => {
          const options: GainsOptions = { pooling: 'wallet-from-2025', method };
          const back = Object.fromEntries(Object.entries(names).map(([k, v]) => [v, k]));
          const original = run(events, options);
          const other = run(renamed(events, names), options);
          expect(statement(other.allocation, (id) => back[id] ?? id)).toEqual(statement(original.allocation));
          const disposals = (r: GainsResult, map: (id: string) => string) =>
            r.disposals.map((d) => JSON.stringify({ ...d, account: map(d.account) }));
          expect(disposals(other, (id) => back[id] ?? id)).toEqual(disposals(original, (id) => id));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns total units and total basis conserved across the switch', () => {
    fc.assert(
      fc.property(history, fc.constantFrom(...METHODS), (events, method) => {
        const options: GainsOptions = { pooling: 'wallet-from-2025', method };
        // The universal pools just before the switch: the history up to it, carried.
        const before = createGainsEngine(options);
        for (const e of events.filter((e) => e.time < SWITCH)) before.process(e);
        const pools = before.carry().pools;
        const after = run(events, { ...options, period: { end: '2025-06-01T00:00:00Z' } });
        for (const token of ['ETH', 'BTC']) {
          const pool = pools.filter((p) => p.token === token);
          const held = pool.flatMap((p) => p.lots).reduce((sum, l) => sum.plus(l.quantity), ZERO);
          const basis = pool.reduce((sum, p) => sum.plus(p.cost), ZERO);
          const lines = after.allocation.filter((l) => l.token === token && l.source !== 'uncovered');
          expect(lines.reduce((sum, l) => sum.plus(l.quantity), ZERO).toFixed()).toBe(held.toFixed());
          expect(lines.reduce((sum, l) => sum.plus(l.cost), ZERO).toFixed()).toBe(basis.toFixed());
        }
      }),
      { numRuns: 200 },
    );
  });
});
