/**
 * uk: the 30 days after the period's end (issue 24, item 3). A tax-year export stops at 5 April,
 * so a sale on 1 April re-bought on 10 April used to miss its 30-day match. The plan fetches the 30
 * days after the period's last day, the feed gives them to the engine (not to the reports), and
 * while those days are not over the Read me names the disposals that may change.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import type { CanonicalTransaction } from '../../domain/index.ts';
import type { Row } from '../../domain/table.ts';
import { periodRange } from '../plan/period.ts';
import { planExport } from '../plan/plan.ts';
import { type ExportRequest, parseExportRequest } from '../plan/request.ts';
import { createGainsFeed } from './gains-feed.ts';
import { readmeLines } from './readme.ts';

const request = (): ExportRequest =>
  parseExportRequest({
    profile: 'acme',
    period: { from: '2024-04-06', to: '2025-04-05' },
    timeZone: 'Europe/London',
    window: 'month',
    reports: ['gains'],
    gains: { taxRules: 'uk' },
  });

function trade(id: string, date: string, quantity: string, value: string): CanonicalTransaction {
  const out = quantity.startsWith('-');
  return tx({
    id,
    date: `${date}T12:00:00.000Z`,
    valueCurrency: 'GBP',
    feeCurrency: 'GBP',
    movements: [
      leg('X', quantity, out ? `-${value}` : value),
      leg('GBP', out ? value : `-${value}`, out ? value : `-${value}`),
    ],
  });
}

const history = [
  trade('b1', '2024-06-01', '1', '1000'),
  trade('s1', '2025-04-01', '-1', '2000'),
  trade('b2', '2025-04-10', '1', '1600'),
];

async function disposals(now: Date): Promise<{ rows: Row[]; pending: string[] }> {
  const r = request();
  const range = periodRange(r.period, r.timeZone);
  const feed = createGainsFeed(
    r,
    { start: range.start.toJSDate(), end: range.end.toJSDate() },
    { now: () => now },
  );
  for (const t of history.filter((h) => Date.parse(h.date) < now.getTime())) feed.add('all', t);
  const table = feed.tables().find((t) => t.spec.name === 'disposals');
  const rows: Row[] = [];
  for await (const row of table?.rows() ?? []) rows.push(row);
  return { rows, pending: feed.pendingMatches() };
}

describe('uk: the 30 days after the period end, from the plan to the Read me', () => {
  it('plans the fetch through 5 May, the 30th day after the tax year', async () => {
    const plan = await planExport(request(), {
      dateBounds: async () => ({
        earliest: new Date('2024-01-01T00:00:00Z'),
        latest: new Date('2026-01-01T00:00:00Z'),
      }),
      defiProtocols: async () => [],
    });
    // London midnight after 5 May 2025 (BST): 2025-05-05T23:00Z.
    expect(plan.windows.at(-1)?.end.toISOString()).toBe('2025-05-05T23:00:00.000Z');
  });

  it('returns the 1 April sale matched with the 10 April purchase: a £400 gain, not £1,000', async () => {
    const { rows, pending } = await disposals(new Date('2025-06-01T00:00:00Z'));
    // Columns: proceeds, cost, gain (shown to the penny), then the matching rule.
    expect(rows.map((row) => [row[4], row[5], row[6], row[12]])).toEqual([
      ['2000.00', '1600.00', '400.00', 'thirty-day'],
    ]);
    expect(pending).toEqual([]);
  });

  it('names the 1 April sale in the Read me while its 30 days are not over', async () => {
    const { rows, pending } = await disposals(new Date('2025-04-08T09:00:00Z'));
    expect(rows.map((row) => [row[6], row[12]])).toEqual([['1000.00', 'section-104']]);
    expect(pending).toEqual([
      expect.stringMatching(/^1 X, transaction s1 \(2025-04-01T12:00:00.000Z\): .*2025-05-01/),
    ]);
    const lines = readmeLines({
      request: request(),
      runId: 'r',
      generator: { name: 'pbs-export', version: '0' },
      createdAt: '2025-04-08T09:00:00Z',
      apiBase: 'http://localhost',
      demo: false,
      windows: 1,
      shards: 1,
      tables: [],
      baseName: 'acme',
      money: null,
      pendingMatches: pending,
    });
    const at = lines.findIndex(([topic]) => topic === 'May still change');
    expect(lines[at]?.[1]).toMatch(
      /^1 disposal\(s\) of the period have 30 days after them that were not over/,
    );
    expect(lines[at + 1]?.[1]).toBe(pending[0]);
  });
});
