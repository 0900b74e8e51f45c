import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import type { CanonicalTransaction } from '../../domain/index.ts';
import type { Row, TableSource } from '../../domain/table.ts';
import { periodRange } from '../plan/period.ts';
import { planWindows } from '../plan/plan.ts';
import { parseExportRequest, type WindowSize } from '../plan/request.ts';
import { checkGainsCurrency, createGainsFeed, taxYearZone } from './gains-feed.ts';

/** Rows of a table, in order. */
async function rowsOf(table: TableSource | undefined): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of table?.rows() ?? []) out.push(row);
  return out;
}

/**
 * Feeds `history` (in input order) to a gains feed window by window, the windows planned exactly as
 * an export plans them for `window` in `timeZone`, and returns every gains table by name.
 */
async function feedByWindows(
  history: readonly CanonicalTransaction[],
  options: { period: string; timeZone: string; window: WindowSize; gains?: Record<string, unknown> },
): Promise<Record<string, Row[]>> {
  const request = parseExportRequest({
    profile: 'acme',
    period: options.period,
    // uk and de rules count their own zone's days: the run is in it.
    ...(options.gains?.taxRules === 'uk' || options.gains?.taxRules === 'de'
      ? {}
      : { timeZone: options.timeZone }),
    window: options.window,
    reports: ['gains'],
    ...(options.gains !== undefined ? { gains: options.gains } : {}),
  });
  const range = periodRange(request.period, request.timeZone);
  const times = history.map((t) => Date.parse(t.date));
  const windows = planWindows({
    period: { from: '2000-01-01', to: range.end.minus({ days: 1 }).toFormat('yyyy-MM-dd') },
    timeZone: request.timeZone,
    window: request.window,
    bounds: { earliest: new Date(Math.min(...times)), latest: new Date(Math.max(...times)) },
  });
  const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
  for (const window of windows) {
    history.forEach((t, index) => {
      const at = times[index] as number;
      if (at >= window.start.getTime() && at < window.end.getTime()) feed.add(window.label, t);
    });
  }
  const tables: Record<string, Row[]> = {};
  for (const table of feed.tables()) tables[table.spec.name] = await rowsOf(table);
  return tables;
}

const column = (rows: Row[], index: number) => rows.map((row) => row[index]);

// The worked example of issue 18 (universal pooling): A buys 1 ETH for 1 000 on 2025-01-10; A sends
// it at 2025-05-31T23:58Z, B receives it at 2025-06-01T00:03Z (same hash, value 3 000); B sells
// it on 2025-07-01 for 3 500. One pass over the history: cost 1 000, gain 2 500.
const ISSUE_EXAMPLE = [
  tx({
    id: 'buy',
    date: '2025-01-10T10:00:00.000Z',
    accountId: 'A',
    movements: [leg('USD', '-1000', '-1000'), leg('ETH', '1', '1000')],
  }),
  tx({
    id: 'send',
    date: '2025-05-31T23:58:00.000Z',
    category: 'transfer',
    hash: '0xabc',
    accountId: 'A',
    movements: [leg('ETH', '-1', '-3000')],
  }),
  tx({
    id: 'receive',
    date: '2025-06-01T00:03:00.000Z',
    category: 'transfer',
    hash: '0xabc',
    accountId: 'B',
    movements: [leg('ETH', '1', '3000')],
  }),
  tx({
    id: 'sell',
    date: '2025-07-01T10:00:00.000Z',
    accountId: 'B',
    movements: [leg('ETH', '-1', '-3500'), leg('USD', '3500', '3500')],
  }),
];

describe('createGainsFeed (transfers across fetch windows)', () => {
  // Disposals columns: 5 proceeds, 6 cost basis, 7 gain or loss.
  it.each([
    { window: 'month', timeZone: 'UTC' },
    { window: 'year', timeZone: 'UTC' },
    { window: 'month', timeZone: 'Europe/Berlin' },
    { window: 'day', timeZone: 'UTC' },
  ] as const)(
    'returns cost 1000 and gain 2500 for the issue example with $window windows in $timeZone',
    async ({ window, timeZone }) => {
      const { disposals = [], gains_warnings = [] } = await feedByWindows(ISSUE_EXAMPLE, {
        period: '2025',
        timeZone,
        window,
      });
      expect(disposals.map((row) => [row[0], row[1], row[4], row[5], row[6]])).toEqual([
        ['ETH', '1', '3500.00', '1000.00', '2500.00'],
      ]);
      expect(gains_warnings).toEqual([]);
    },
  );

  it('returns an unmatched transfer when its counterpart arrives after the tolerance', async () => {
    const late = ISSUE_EXAMPLE.map((t) =>
      t.id === 'receive' ? { ...t, date: '2025-06-02T00:04:00.000Z' } : t,
    );
    const { disposals = [], gains_warnings = [] } = await feedByWindows(late, {
      period: '2025',
      timeZone: 'UTC',
      window: 'month',
      gains: { transferToleranceHours: 24 },
    });
    // Withdrawn from A at its basis; a new lot in B at 3000.
    expect(disposals.map((row) => [row[5], row[6]])).toEqual([['3000.00', '500.00']]);
    expect(column(gains_warnings, 2)).toEqual(['unmatched-transfer', 'unmatched-transfer']);
  });

  it('returns no other-currency warning when the data is in the configured currency (us: USD)', async () => {
    const { gains_warnings = [] } = await feedByWindows(ISSUE_EXAMPLE, {
      period: '2025',
      timeZone: 'UTC',
      window: 'month',
      gains: { taxRules: 'us' },
    });
    expect(gains_warnings).toEqual([]);
  });

  it('returns one other-currency warning per further currency when none is configured', async () => {
    const mixed = [...ISSUE_EXAMPLE, { ...ISSUE_EXAMPLE[0], id: 'eur-buy', valueCurrency: 'EUR' }];
    const { gains_warnings = [] } = await feedByWindows(mixed as CanonicalTransaction[], {
      period: '2025',
      timeZone: 'UTC',
      window: 'month',
    });
    expect(gains_warnings.map((row) => [row[1], row[2], row[3]])).toEqual([
      ['eur-buy', 'other-currency', 'EUR'],
    ]);
  });
});

// Generated portfolios for the invariance property: buys, sales, income and transfers between
// three own accounts whose two sides are up to an hour apart (the in side sometimes first), over
// the turn of the year, so the pairs straddle day, week, month and year boundaries.
const BASE = Date.parse('2024-12-27T00:00:00Z');
const QUARTER_HOUR = 15 * 60 * 1000;
const account = fc.constantFrom('A', 'B', 'C');
const token = fc.constantFrom('ETH', 'BTC');
const amount = fc.integer({ min: 1, max: 400 }).map((n) => (n / 100).toFixed(2));
const value = fc.integer({ min: 1, max: 900_000 }).map((n) => (n / 100).toFixed(2));

const step = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('buy' as const), account, token, amount, value }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('sell' as const), account, token, amount, value }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('income' as const), account, token, amount, value }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('transfer' as const),
      account,
      to: account,
      token,
      amount,
      value,
      lagMinutes: fc.integer({ min: -30, max: 60 }),
    }),
  },
);

const portfolio = fc
  .array(fc.tuple(fc.integer({ min: 0, max: 4 * 24 * 40 }), step), { minLength: 1, maxLength: 30 })
  .map((items) => {
    const txs: CanonicalTransaction[] = [];
    items.forEach(([slot, s], index) => {
      const at = BASE + slot * QUARTER_HOUR;
      const date = new Date(at).toISOString();
      const id = `t${index}`;
      if (s.kind === 'buy' || s.kind === 'sell') {
        const sign = s.kind === 'buy' ? '' : '-';
        const cash = s.kind === 'buy' ? '-' : '';
        txs.push(
          tx({
            id,
            date,
            accountId: s.account,
            movements: [
              leg(s.token, `${sign}${s.amount}`, `${sign}${s.value}`),
              leg('USD', `${cash}${s.value}`, null),
            ],
          }),
        );
      } else if (s.kind === 'income') {
        txs.push(
          tx({
            id,
            date,
            category: 'staking',
            accountId: s.account,
            movements: [leg(s.token, s.amount, s.value)],
          }),
        );
      } else {
        const to = s.to === s.account ? `${s.account}2` : s.to;
        const common = { category: 'transfer', hash: `0x${index}` };
        txs.push(
          tx({
            id: `${id}o`,
            date,
            accountId: s.account,
            ...common,
            movements: [leg(s.token, `-${s.amount}`, `-${s.value}`)],
          }),
        );
        txs.push(
          tx({
            id: `${id}i`,
            date: new Date(at + s.lagMinutes * 60_000).toISOString(),
            accountId: to,
            ...common,
            movements: [leg(s.token, s.amount, s.value)],
          }),
        );
      }
    });
    // Input order is date order (ties keep their generated order), as the service lists them.
    return txs
      .map((t, index) => ({ t, index }))
      .sort((a, b) => Date.parse(a.t.date) - Date.parse(b.t.date) || a.index - b.index)
      .map(({ t }) => t);
  });

const WINDOWS: readonly WindowSize[] = ['day', 'week', 'month', 'year'];

describe('createGainsFeed (invariance under the fetch window)', () => {
  it('returns the same gains, income, holdings and warnings for day, week, month and year windows', async () => {
    await fc.assert(
      fc.asyncProperty(
        portfolio,
        fc.constantFrom('UTC', 'Europe/Berlin', 'America/New_York'),
        fc.constantFrom<Record<string, unknown>>(
          { pooling: 'universal', method: 'fifo' },
          { pooling: 'account', method: 'hifo' },
          { pooling: 'account', method: 'average' },
          { pooling: 'universal', method: 'hmrc' },
          // The generated values are in USD: computing uk and de figures in it is the explicit choice.
          { taxRules: 'uk', currency: 'USD' },
          { taxRules: 'de', currency: 'USD' },
          { taxRules: 'us', method: 'lifo' },
        ),
        async (history, timeZone, gains) => {
          const results = [];
          for (const window of WINDOWS) {
            results.push(await feedByWindows(history, { period: '2025', timeZone, window, gains }));
          }
          const [first, ...rest] = results;
          for (const other of rest) {
            expect(other.disposals).toEqual(first?.disposals);
            expect(other.income).toEqual(first?.income);
            expect(other.holdings).toEqual(first?.holdings);
            expect(other.gains_warnings).toEqual(first?.gains_warnings);
            expect(other.pool_history).toEqual(first?.pool_history);
            expect(other.tax_summary).toEqual(first?.tax_summary);
          }
        },
      ),
      { numRuns: 60 },
    );
  });
});

describe('checkGainsCurrency', () => {
  const valued = (currency: string | null, fee: string | null = null) =>
    tx({
      id: 'x1',
      valueCurrency: currency,
      feeCurrency: fee,
      feeAmount: fee === null ? null : '1',
      movements: [leg('ETH', '1', '100')],
    });

  it('returns for values and fees in the currency of the figures', () => {
    expect(() => checkGainsCurrency(valued('GBP', 'GBP'), 'GBP', 'uk')).not.toThrow();
  });

  it('throws naming gains.currency, the transaction and the data currency', () => {
    expect(() => checkGainsCurrency(valued('USD'), 'GBP', 'uk')).toThrow(
      /^gains\.currency: uk figures are in GBP, but transaction x1 has values in USD/,
    );
  });

  it('names the conversion at published rates as the way to figures in the currency', () => {
    expect(() => checkGainsCurrency(valued('USD'), 'GBP', 'uk')).toThrow(
      /Convert at published rates \(gains\.rates, CLI --rates FILE/,
    );
  });

  it('throws for a fee in another currency', () => {
    expect(() => checkGainsCurrency(valued('EUR', 'USD'), 'EUR', 'de')).toThrow(/has values in USD/);
  });

  it('throws for values in a currency the service did not name', () => {
    expect(() => checkGainsCurrency(valued(null), 'GBP', 'uk')).toThrow(
      /has values in a currency the service did not name/,
    );
  });

  it('returns for a transaction without any value', () => {
    const bare = tx({ id: 'x2', valueCurrency: 'USD', movements: [leg('ETH', '1', null)] });
    expect(() => checkGainsCurrency(bare, 'GBP', 'uk')).not.toThrow();
  });
});

describe('taxYearZone', () => {
  it("is the rule set's zone when it has one, else the request's", () => {
    const request = (gains?: { taxRules: string }) =>
      parseExportRequest({
        profile: 'acme',
        period: '2025',
        ...(gains?.taxRules === 'uk' || gains?.taxRules === 'de' ? {} : { timeZone: 'America/New_York' }),
        reports: gains === undefined ? ['transactions'] : ['gains'],
        ...(gains === undefined ? {} : { gains }),
      });
    expect(taxYearZone(request({ taxRules: 'uk' }))).toBe('Europe/London');
    expect(taxYearZone(request({ taxRules: 'de' }))).toBe('Europe/Berlin');
    expect(taxYearZone(request({ taxRules: 'generic' }))).toBe('America/New_York');
    expect(taxYearZone(request())).toBe('America/New_York');
  });
});
