/**
 * The gains engine over a simulated portfolio as the export reads it: the simulator's raw
 * transactions through the export's normaliser into `runGains`, whose books must balance.
 */
import { describe, expect, it } from 'vitest';
import { Big, type Row, type TableSource } from '../../lib/domain/index.ts';
import { createNormalizer } from '../../lib/export/index.ts';
import { gainsReports, type LotMethod, type Pooling, runGains } from '../../lib/gains/index.ts';
import { DEFAULT_SHAPE } from '../../lib/pbs/index.ts';
import { DEFAULT_PROFILES, Portfolio } from '../../lib/simulator/index.ts';

async function rowsOf(table: TableSource | undefined): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of table?.rows() ?? []) out.push(row);
  return out;
}

describe('runGains (simulated portfolio)', () => {
  const profile = { ...(DEFAULT_PROFILES[0] as (typeof DEFAULT_PROFILES)[number]), transactions: 600 };
  const portfolio = new Portfolio(profile, 7);
  const normalizer = createNormalizer({ fields: DEFAULT_SHAPE.fields, timeZone: 'UTC' });
  const transactions = Array.from({ length: portfolio.count }, (_, i) => i)
    .filter((i) => !portfolio.isDeleted(i))
    .map((i) => normalizer.canonical(portfolio.transaction(i) as never, i));
  const setups: [LotMethod, Pooling][] = (['fifo', 'lifo', 'hifo', 'average'] as const).flatMap((m) =>
    (['account', 'universal'] as const).map((p): [LotMethod, Pooling] => [m, p]),
  );

  it.each(setups)('returns balanced books with %s pooled by %s', async (method, pooling) => {
    const { result } = runGains(transactions, {
      method,
      pooling,
      timeZone: 'America/New_York',
      period: { start: '2024-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z' },
    });
    const holdings = gainsReports(result)[3];
    const checks = (await rowsOf(holdings)).flatMap((r) => [r[15], r[16]]);
    const total = (key: 'gain' | 'proceeds' | 'cost') =>
      result.disposals.reduce((sum, d) => sum.plus(d[key]), new Big(0));
    expect([
      checks.every((c) => c === '0'),
      total('gain').eq(total('proceeds').minus(total('cost'))),
      result.disposals.length > 0,
    ]).toEqual([true, true, true]);
  });
});
