/**
 * Issue 39, item 5: the journal's asset account of a token holds what the holdings report's rows
 * add up to, each wallet's carrying value rounded once (docs/accountant/rounding.md), not the
 * token's exact total rounded once. Figures chosen so the two differ: two wallets at x.xx5 each.
 */

import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { buy, move, sell } from '../../test/support/gains.ts';
import { periodRange } from '../export/plan/period.ts';
import { parseExportRequest } from '../export/plan/request.ts';
import { createJournalFeed } from '../export/report/journal-feed.ts';
import { createGainsEngine, gainsMoney, holdingsTable, roundDisposal, roundIncome } from '../gains/index.ts';
import type { GainsEvent } from '../gains/types.ts';

async function journalAndHoldings(pooling: string, events: GainsEvent[]) {
  const request = parseExportRequest({
    profile: 'acme',
    period: '2025',
    reports: ['journal'],
    gains: { pooling, currency: 'USD' },
  });
  const range = periodRange(request.period, request.timeZone);
  const period = { start: range.start.toJSDate(), end: range.end.toJSDate() };
  const feed = createJournalFeed(request, period);
  const engine = createGainsEngine(
    {
      period: { start: period.start.toISOString(), end: period.end.toISOString() },
      pooling: pooling as never,
    },
    undefined,
    feed.observer,
  );
  feed.attach(engine, () => gainsMoney('USD'));
  for (const event of events) engine.process(event);
  engine.finish();
  const money = gainsMoney('USD');
  const drained = engine.drain();
  feed.report(
    drained.disposals.map((line) => roundDisposal(line, money)),
    drained.income.map((line) => roundIncome(line, money)),
  );
  feed.finish();
  // The asset account's balance, added up here from the postings as written.
  let account = new Big(0);
  for await (const entry of feed.entries())
    for (const p of entry.postings)
      if (p.account.code === 'Assets:Crypto:ETH') account = account.plus(p.debit).minus(p.credit);
  // The holdings report's closing cost column, as shown, added up.
  const table = holdingsTable(engine.result(), gainsMoney('USD'));
  const at = table.spec.columns.findIndex((c) => c.key === 'closing_cost');
  let rows = new Big(0);
  for await (const row of table.rows()) rows = rows.plus(row[at] as string);
  return { account: account.toFixed(2), rows: rows.toFixed(2) };
}

describe('the journal and the holdings report, to the cent', () => {
  it("pooled by account: the asset account is the wallets' rounded carrying values added up", async () => {
    const { account, rows } = await journalAndHoldings('account', [
      buy('a', '2025-01-10', 'ETH', '1', '100.005', { account: 'A' }),
      buy('b', '2025-01-11', 'ETH', '1', '100.005', { account: 'B' }),
    ]);
    // Each wallet 100.005 → 100.00 (half to even): 200.00, where the exact 200.01 rounded is 200.01.
    expect(rows).toBe('200.00');
    expect(account).toBe(rows);
  });

  it('stays tied through moves between the wallets and sales', async () => {
    const { account, rows } = await journalAndHoldings('account', [
      buy('a', '2025-01-10', 'ETH', '3', '300.015', { account: 'A' }),
      buy('b', '2025-01-11', 'ETH', '1', '100.005', { account: 'B' }),
      move('m', '2025-02-01', 'ETH', '1', 'A', 'B'),
      sell('s', '2025-03-01', 'ETH', '0.5', '70', { account: 'B' }),
    ]);
    expect(account).toBe(rows);
  });
});
