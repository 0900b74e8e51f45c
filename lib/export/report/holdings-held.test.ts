/**
 * Issue 39, item 6: under HMRC identification the holdings report names its closing figures the
 * section 104 pool's, and says beside them what was sold and matched with acquisitions after the
 * period (30-day rule) and what the wallets hold, at the pool's average cost. Figures by hand:
 * 10 BTC bought for 10 000, 4 sold on 20 March, 4 bought back on 10 April (after the period).
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import type { CanonicalTransaction } from '../../domain/index.ts';
import type { Row } from '../../domain/table.ts';
import { periodRange } from '../plan/period.ts';
import { parseExportRequest } from '../plan/request.ts';
import { createGainsFeed } from './gains-feed.ts';

const gbp = (overrides: Partial<CanonicalTransaction> & { id: string }) =>
  tx({ valueCurrency: 'GBP', feeCurrency: 'GBP', ...overrides });

const HISTORY = [
  gbp({
    id: 'buy',
    date: '2025-01-10T10:00:00.000Z',
    movements: [leg('GBP', '-10000', '-10000'), leg('BTC', '10', '10000')],
  }),
  gbp({
    id: 'sell',
    date: '2025-03-20T10:00:00.000Z',
    movements: [leg('BTC', '-4', '-6000'), leg('GBP', '6000', '6000')],
  }),
  gbp({
    id: 'buy-back',
    date: '2025-04-10T10:00:00.000Z',
    movements: [leg('GBP', '-6400', '-6400'), leg('BTC', '4', '6400')],
  }),
];

async function holdings(taxRules: string): Promise<Record<string, string | null>[]> {
  const request = parseExportRequest({
    profile: 'acme',
    period: { from: '2025-01-01', to: '2025-03-31' },
    timeZone: 'Europe/London',
    reports: ['gains'],
    gains: { taxRules, currency: 'GBP' },
  });
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
  for (const t of HISTORY) feed.add(t.date.slice(0, 7), t);
  const table = feed.tables().find((t) => t.spec.name === 'holdings');
  if (table === undefined) throw new Error('no holdings table');
  const keys = table.spec.columns.map((c) => c.key);
  const headers = Object.fromEntries(table.spec.columns.map((c) => [c.key, c.header]));
  const rows: Row[] = [];
  for await (const row of table.rows()) rows.push(row);
  return [headers, ...rows.map((row) => Object.fromEntries(keys.map((key, i) => [key, row[i] ?? null])))];
}

describe('holdings under HMRC identification', () => {
  it('shows the section 104 pool, what was matched ahead and what the wallets hold, each named', async () => {
    const [headers, btc] = await holdings('uk');
    // The sale is matched with the buy-back (30-day rule): the pool keeps all 10 BTC at 10 000.
    expect([btc?.token, btc?.closing_quantity, btc?.closing_cost]).toEqual(['BTC', '10', '10000.00']);
    // The wallets hold 6, at the pool's average cost of 1 000 each.
    expect([btc?.matched_ahead_quantity, btc?.held_quantity, btc?.held_cost]).toEqual(['4', '6', '6000.00']);
    expect(headers?.closing_quantity).toMatch(/section 104 pool/i);
    expect(headers?.held_quantity).toMatch(/held in the wallets/i);
    expect(headers?.matched_ahead_quantity).toMatch(/30-day rule/);
  });

  it('leaves the holdings report of the other rule sets as it was', async () => {
    const [headers] = await holdings('generic');
    expect(Object.keys(headers ?? {})).not.toContain('held_quantity');
    expect(headers?.closing_quantity).toBe('Closing quantity');
  });
});
