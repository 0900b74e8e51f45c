/**
 * The journal under HMRC identification (uk rules), on crafted histories whose figures are
 * computed by hand in the comments: a same-day match, a section 104 disposal, a 30-day match
 * across a month end (bed and breakfasting) and one across the period's start.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { runJournal } from '../../test/support/journal.ts';
import type { CanonicalTransaction } from '../domain/index.ts';
import { Big } from '../domain/index.ts';
import type { Row } from '../domain/table.ts';
import { periodRange } from '../export/plan/period.ts';
import { parseExportRequest } from '../export/plan/request.ts';
import { createGainsFeed, gainsEngineOptions } from '../export/report/gains-feed.ts';
import { createJournalFeed } from '../export/report/journal-feed.ts';
import { createGainsEngine, gainsMoney, roundDisposal } from '../gains/index.ts';
import { TieOutError } from './errors.ts';
import { journalReadmeLines } from './words.ts';

const UK = { gains: { taxRules: 'uk', currency: 'USD' } };
const BTC = 'Assets:Crypto:BTC';
const THIRTY_DAY = 'Income:Crypto:Thirty-Day-Adjustments';

const trade = (id: string, date: string, amount: string, value: string): CanonicalTransaction =>
  tx({ id, date, movements: [leg('BTC', amount, value)] });

/** An account's quantity and carrying value through `date` (its postings summed); the BTC asset's by default. */
function assetAt(rows: readonly Row[], date: string, account = BTC): { quantity: string; cost: string } {
  let quantity = new Big(0);
  let cost = new Big(0);
  for (const row of rows) {
    if (row[2] !== account || (row[1] as string) > date) continue;
    quantity = quantity.plus((row[7] as string | null) ?? 0);
    cost = cost.plus(row[4] as string).minus(row[5] as string);
  }
  return { quantity: quantity.toFixed(), cost: cost.toFixed(2) };
}

/** The postings of transaction `id`: account → signed amount (debit positive). */
function postingsOf(rows: readonly Row[], id: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const row of rows.filter((r) => r[9] === id)) {
    const account = row[2] as string;
    out[account] = new Big(out[account] ?? 0)
      .plus(row[4] as string)
      .minus(row[5] as string)
      .toFixed(2);
  }
  return out;
}

describe('journal under HMRC identification', () => {
  it('posts a same-day match and a section 104 disposal at their matched costs', async () => {
    const run = await runJournal(
      [
        trade('b1', '2025-01-05T10:00:00.000Z', '10', '1000'),
        trade('b2', '2025-01-20T10:00:00.000Z', '10', '3000'),
        // Pool 20 BTC / 4000. Same day: 5 sold, 2 bought later that day for 1200. The 2 match
        // the day's acquisition (1200), the other 3 the pool (3 × 4000 / 20 = 600): cost 1800,
        // gain 2500 − 1800 = 700. Pool 17 / 3400.
        trade('s1', '2025-02-10T10:00:00.000Z', '-5', '-2500'),
        trade('b3', '2025-02-10T15:00:00.000Z', '2', '1200'),
        // Section 104: 7 × 3400 / 17 = 1400, gain 2100 − 1400 = 700. Pool 10 / 2000.
        trade('s2', '2025-03-15T10:00:00.000Z', '-7', '-2100'),
      ],
      UK,
    );
    expect(postingsOf(run.rows, 's1')).toEqual({
      [BTC]: '-1800.00',
      'Assets:Cash-Clearing': '2500.00',
      'Income:Crypto:Realised-Gains': '-700.00',
    });
    expect(postingsOf(run.rows, 'b3')).toEqual({ [BTC]: '1200.00', 'Assets:Cash-Clearing': '-1200.00' });
    expect(postingsOf(run.rows, 's2')).toEqual({
      [BTC]: '-1400.00',
      'Assets:Cash-Clearing': '2100.00',
      'Income:Crypto:Realised-Gains': '-700.00',
    });
    expect(assetAt(run.rows, '2025-01-31')).toEqual({ quantity: '20', cost: '4000.00' });
    expect(assetAt(run.rows, '2025-02-28')).toEqual({ quantity: '17', cost: '3400.00' });
    expect(assetAt(run.rows, '2025-12-31')).toEqual({ quantity: '10', cost: '2000.00' });
    expect(run.manifest.totals.realisedGain).toBe('1400.00');
    const hledger = run.files.find((f) => f.name === 'journal.hledger')?.body as string;
    expect(hledger).toContain(`${BTC}  0 BTC = 17 BTC`);
    expect(hledger).toContain(`${BTC}  0 BTC = 10 BTC`);
  });

  it('says in the Read me how HMRC identification is posted, and in the manifest what was compared', async () => {
    const journal = parseExportRequest({
      profile: 'acme',
      period: '2025',
      reports: ['journal'],
      ...UK,
    }).journal;
    if (journal === undefined) throw new Error('no journal');
    expect(journalReadmeLines(journal, 'hmrc').at(-1)).toMatch(
      /HMRC identification: each disposal on its own date/,
    );
    expect(journalReadmeLines(journal, 'fifo').join('\n')).not.toMatch(/HMRC/);
    const run = await runJournal([trade('b1', '2025-01-05T10:00:00.000Z', '1', '100')], UK);
    expect(run.manifest.checks.at(-1)?.check).toMatch(/section 104 pool less the 30-day matches ahead/);
  });

  it('posts a disposal matched under the 30-day rule across a month end at the later cost (bed and breakfast)', async () => {
    const run = await runJournal(
      [
        trade('b1', '2025-01-05T10:00:00.000Z', '10', '1000'),
        // Sold on 31 January, bought back on 5 February for 2400: the 30-day rule matches the sale
        // with the buy-back, cost 2400, loss 2000 − 2400 = 400; the pool keeps 10 / 1000.
        trade('s1', '2025-01-31T10:00:00.000Z', '-4', '-2000'),
        trade('b2', '2025-02-05T10:00:00.000Z', '4', '2400'),
      ],
      UK,
    );
    // Posted on its own date at its final cost.
    expect(run.rows.find((r) => r[9] === 's1')?.[1]).toBe('2025-01-31');
    expect(postingsOf(run.rows, 's1')).toEqual({
      [BTC]: '-2400.00',
      'Assets:Cash-Clearing': '2000.00',
      'Expenses:Crypto:Realised-Losses': '400.00',
    });
    // 31 January: the 6 BTC held at the pool's average cost (6 × 1000 / 10 = 600), not at the
    // pool's 1000 less the 2400 the buy-back will bring (-1400): the 2400 − 4 × 100 = 2000 by which
    // the sale's cost exceeds the pool's is credited to the 30-day account, reversed the next day.
    expect(assetAt(run.rows, '2025-01-31')).toEqual({ quantity: '6', cost: '600.00' });
    expect(assetAt(run.rows, '2025-01-31', THIRTY_DAY)).toEqual({ quantity: '0', cost: '-2000.00' });
    expect(assetAt(run.rows, '2025-02-01', THIRTY_DAY).cost).toBe('0.00');
    // 28 February: the pool, 10 / 1000.
    expect(assetAt(run.rows, '2025-02-28')).toEqual({ quantity: '10', cost: '1000.00' });
    expect(run.manifest.totals.realisedGain).toBe('-400.00');
    expect(run.manifest.checks.every((c) => c.ok)).toBe(true);
  });

  it('opens with the tokens held when a disposal before the period is matched with an acquisition in it', async () => {
    const run = await runJournal(
      [
        trade('b0', '2024-11-01T10:00:00.000Z', '10', '1000'),
        // 20 December 2024: matched with the buy-back of 5 January (2400), not with the pool.
        trade('s0', '2024-12-20T10:00:00.000Z', '-4', '-2000'),
        trade('b1', '2025-01-05T10:00:00.000Z', '4', '2400'),
      ],
      UK,
    );
    const opening = run.rows.filter((r) => r[0] === 'J000001');
    // 6 BTC held at the pool's average cost (600), as the previous period's journal closed them;
    // that day the adjustment is reversed: the sale's cost exceeds the pool's by 2400 − 400.
    expect(opening.map((r) => [r[2], r[7], r[4], r[5]])).toEqual([
      [BTC, '6', '600.00', '0'],
      ['Equity:Opening-Balances', null, '0', '600.00'],
    ]);
    expect(run.rows.filter((r) => r[0] === 'J000002').map((r) => [r[1], r[2], r[4], r[5]])).toEqual([
      ['2025-01-01', BTC, '0', '2000.00'],
      ['2025-01-01', THIRTY_DAY, '2000.00', '0'],
    ]);
    expect(assetAt(run.rows, '2025-01-01')).toEqual({ quantity: '6', cost: '-1400.00' });
    expect(assetAt(run.rows, '2025-01-01', THIRTY_DAY).cost).toBe('2000.00');
    expect(assetAt(run.rows, '2025-01-31')).toEqual({ quantity: '10', cost: '1000.00' });
    expect(run.manifest.totals.realisedGain).toBe('0.00');
  });

  it('posts a disposal whose 30 days are not over in the data at its provisional cost, with the warning', async () => {
    const history = [
      trade('b1', '2025-01-05T10:00:00.000Z', '10', '1000'),
      trade('s1', '2025-12-20T10:00:00.000Z', '-4', '-2000'),
      trade('b2', '2026-01-10T10:00:00.000Z', '4', '2400'),
    ];
    const request = parseExportRequest({ profile: 'acme', period: '2025', reports: ['journal'], ...UK });
    const range = periodRange(request.period, request.timeZone);
    const period = { start: range.start.toJSDate(), end: range.end.toJSDate() };
    const journalOf = async (now: string) => {
      const feed = createGainsFeed(request, period, { now: () => new Date(now) });
      for (const t of history) feed.add('all', t);
      const rows: Row[] = [];
      const table = feed.tables().find((t) => t.spec.name === 'journal');
      for await (const row of table?.rows() ?? []) rows.push(row);
      return { rows, pending: feed.pendingMatches() };
    };
    // Run on 5 January 2026: the buy-back is not in the data; the pool's 4 × 100 = 400, gain 1600.
    const early = await journalOf('2026-01-05T00:00:00.000Z');
    expect(postingsOf(early.rows, 's1')).toEqual({
      [BTC]: '-400.00',
      'Assets:Cash-Clearing': '2000.00',
      'Income:Crypto:Realised-Gains': '-1600.00',
    });
    expect(early.pending.join('\n')).toMatch(/4 BTC, transaction s1 .*30 days after this disposal/);
    // Run once the 30 days are over: matched with the buy-back, 2400, loss 400.
    const late = await journalOf('2026-02-10T00:00:00.000Z');
    expect(postingsOf(late.rows, 's1')[BTC]).toBe('-2400.00');
    expect(late.pending).toEqual([]);
    // The asset account closes the same either way: the 6 BTC held at the pool's average cost; the
    // final cost's 2000 more is credited to the 30-day account, reversed in the next period's journal.
    expect(assetAt(late.rows, '2025-12-31')).toEqual({ quantity: '6', cost: '600.00' });
    expect(assetAt(early.rows, '2025-12-31')).toEqual({ quantity: '6', cost: '600.00' });
    expect(assetAt(late.rows, '2025-12-31', THIRTY_DAY).cost).toBe('-2000.00');
    expect(assetAt(early.rows, '2025-12-31', THIRTY_DAY).cost).toBe('0.00');
  });

  it('fails naming the account and the difference when the month end does not allow for a 30-day match ahead', () => {
    const request = parseExportRequest({ profile: 'acme', period: '2025', reports: ['journal'], ...UK });
    const range = periodRange(request.period, request.timeZone);
    const period = { start: range.start.toJSDate(), end: range.end.toJSDate() };
    const feed = createJournalFeed(request, period);
    const engine = createGainsEngine(gainsEngineOptions(request, period), undefined, feed.observer);
    // An engine that forgets the 30-day matches ahead: the pool alone is compared.
    feed.attach({ ...engine, matchedAhead: () => [] }, () => gainsMoney('USD'));
    const at = (date: string) => Date.parse(`${date}T10:00:00Z`);
    const base = { leg: 0, fee: '0', account: 'A', token: 'BTC' } as const;
    engine.process({
      ...base,
      kind: 'acquire',
      txId: 'b1',
      time: at('2025-01-05'),
      quantity: '10',
      value: '1000',
      income: null,
    });
    engine.process({
      ...base,
      kind: 'dispose',
      txId: 's1',
      time: at('2025-01-31'),
      quantity: '4',
      value: '2000',
    });
    engine.process({
      ...base,
      kind: 'acquire',
      txId: 'b2',
      time: at('2025-02-05'),
      quantity: '4',
      value: '2400',
      income: null,
    });
    engine.finish();
    feed.report(
      engine.drain().disposals.map((line) => roundDisposal(line, gainsMoney('USD'))),
      [],
    );
    let error: unknown;
    try {
      feed.finish();
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TieOutError);
    expect((error as TieOutError).message).toMatch(
      /quantity at 2025-01-31, account Assets:Crypto:BTC \(BTC\): journal 6, reports 10, difference -4/,
    );
  });
});
