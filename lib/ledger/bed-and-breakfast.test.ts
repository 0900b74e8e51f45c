/**
 * Bed and breakfast (HMRC's 30-day rule) across a month end, as the books get it month by month:
 * the monthly export of January runs before its 30 days are over (the disposal at its provisional
 * cost), February's once they are. The accountant's ledger is January's entries followed by
 * February's (its opening balances are January's closing ones). Figures computed by hand.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { Big } from '../domain/index.ts';
import type { Row } from '../domain/table.ts';
import { periodRange } from '../export/plan/period.ts';
import { parseExportRequest } from '../export/plan/request.ts';
import { createGainsFeed } from '../export/report/gains-feed.ts';

const BTC = 'Assets:Crypto:BTC';
const PROFIT_AND_LOSS = [
  'Income:Crypto:Realised-Gains',
  'Expenses:Crypto:Realised-Losses',
  'Income:Crypto:Thirty-Day-Adjustments',
];

const trade = (id: string, date: string, amount: string, value: string) =>
  tx({ id, date, movements: [leg('BTC', amount, value)] });

const HISTORY = [
  trade('b1', '2025-01-05T10:00:00.000Z', '10', '1000'),
  // Matched with the buy-back of 5 February (30 days): cost 2400, loss 400. Before the buy-back is
  // in the data: the pool's 4 × 100 = 400, gain 1600.
  trade('s1', '2025-01-31T10:00:00.000Z', '-4', '-2000'),
  trade('b2', '2025-02-05T10:00:00.000Z', '4', '2400'),
  // The pool is 10 / 1000 after the buy-back (the 30-day rule took it all): 1 × 100, gain 600.
  trade('s2', '2025-02-20T10:00:00.000Z', '-1', '-700'),
];

/** The journal and gains tables of `period` as a run at `now` makes them (the data it had then). */
async function monthly(period: string, now: string) {
  const request = parseExportRequest({
    profile: 'acme',
    period,
    reports: ['journal'],
    gains: { taxRules: 'uk', currency: 'USD' },
  });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(
    request,
    { start: range.start.toJSDate(), end: range.end.toJSDate() },
    { now: () => new Date(now) },
  );
  for (const t of HISTORY) if (t.date < now) feed.add('all', t);
  const tables: Record<string, Row[]> = {};
  for (const table of feed.tables()) {
    const rows: Row[] = [];
    for await (const row of table.rows()) rows.push(row);
    tables[table.spec.name] = rows;
  }
  return { rows: tables.journal ?? [], tables, manifest: feed.journal()?.manifest() };
}

/** Debit − credit and quantity of the accounts `accounts` over `rows` through `date`. */
function balance(rows: readonly Row[], accounts: readonly string[], date = '9999') {
  let cost = new Big(0);
  let quantity = new Big(0);
  for (const row of rows) {
    if (!accounts.includes(row[2] as string) || (row[1] as string) > date) continue;
    cost = cost.plus(row[4] as string).minus(row[5] as string);
    quantity = quantity.plus((row[7] as string | null) ?? 0);
  }
  return { quantity: quantity.toFixed(), cost: cost.toFixed(2) };
}

/** The gains summary's net (gains − losses) of the period, from its TOTAL row. */
function reportedNet(tables: Record<string, Row[]>): string {
  const total = tables.gains_summary?.find((row) => row[4] === 'TOTAL');
  return total === undefined ? '0.00' : (total[12] as string);
}

describe('bed and breakfast across a month end, month by month', () => {
  it('closes January with the tokens held at the pool average, whether its 30 days were over or not', async () => {
    const early = await monthly('2025-01', '2025-02-03T00:00:00.000Z');
    const late = await monthly('2025-01', '2025-04-01T00:00:00.000Z');
    // 6 BTC held, at the pool's average cost 6 × 1000 / 10 = 600, never the pool's 1000 less the
    // buy-back's 2400 (a negative carrying value).
    expect(balance(early.rows, [BTC])).toEqual({ quantity: '6', cost: '600.00' });
    expect(balance(late.rows, [BTC])).toEqual({ quantity: '6', cost: '600.00' });
    // Each journal's realised gains tie out with its own gains report: provisional 1600, final −400.
    expect(early.manifest?.totals.realisedGain).toBe('1600.00');
    expect(reportedNet(early.tables)).toBe('1600.00');
    expect(late.manifest?.totals.realisedGain).toBe('-400.00');
    expect(reportedNet(late.tables)).toBe('-400.00');
    // …and January's profit is the same in both: the late one's 2000 on the 30-day account.
    expect(balance(early.rows, PROFIT_AND_LOSS).cost).toBe('-1600.00');
    expect(balance(late.rows, PROFIT_AND_LOSS).cost).toBe('-1600.00');
  });

  it("corrects January's provisional cost in February's journal, so the books end at the final figures", async () => {
    const january = await monthly('2025-01', '2025-02-03T00:00:00.000Z');
    const february = await monthly('2025-02', '2025-04-01T00:00:00.000Z');
    const opening = february.rows.filter((row) => row[0] === 'J000001');
    // February opens where January closed.
    expect(balance(opening, [BTC])).toEqual(balance(january.rows, [BTC]));
    const books = [...january.rows, ...february.rows.filter((row) => row[0] !== 'J000001')];
    // The pool after February: 9 BTC at 900, as the holdings report closes.
    expect(balance(books, [BTC])).toEqual({ quantity: '9', cost: '900.00' });
    const closing = february.tables.holdings?.find((row) => row[0] === 'BTC');
    expect(closing?.[13]).toBe('9');
    expect(closing?.[14]).toBe('900.00');
    // Profit: s1's final loss 400 and s2's gain 600 (credit 200), however January was made.
    expect(balance(books, PROFIT_AND_LOSS).cost).toBe('-200.00');
    expect(february.manifest?.totals.realisedGain).toBe(reportedNet(february.tables));
  });

  it('reverses the adjustment in the next month even when every token was sold and nothing opens', async () => {
    const soldOut = [
      trade('b1', '2025-01-05T10:00:00.000Z', '4', '400'),
      // All 4 sold, bought back on 5 February for 2400: loss 400; none held at January's end.
      trade('s1', '2025-01-31T10:00:00.000Z', '-4', '-2000'),
      trade('b2', '2025-02-05T10:00:00.000Z', '4', '2400'),
    ];
    const request = parseExportRequest({
      profile: 'acme',
      period: '2025-02',
      reports: ['journal'],
      gains: { taxRules: 'uk', currency: 'USD' },
    });
    const range = periodRange(request.period, request.timeZone);
    const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
    for (const t of soldOut) feed.add('all', t);
    const rows: Row[] = [];
    for (const table of feed.tables())
      if (table.spec.name === 'journal') for await (const row of table.rows()) rows.push(row);
    // No opening line (nothing held, at no cost); the reversal brings the 2000 the sale took ahead.
    expect(rows.filter((row) => row[1] === '2025-02-01').map((row) => [row[2], row[4], row[5]])).toEqual([
      [BTC, '0', '2000.00'],
      ['Income:Crypto:Thirty-Day-Adjustments', '2000.00', '0'],
    ]);
    // February's asset account on its own: −2000 + 2400 = 400, the pool of 4 BTC.
    expect(balance(rows, [BTC])).toEqual({ quantity: '4', cost: '400.00' });
  });
});
