/**
 * The minimal fetch (`bench/minimal-fetch.ts`, issue #30's floor under the client, also run
 * against latency by `npm run bench -- --only latency`) reads what the client reads: against the
 * simulator over loopback, with small pages (several a shard, some shards ending on a full page),
 * the same number of transactions over the same number of pages as the client's own paging of
 * the plan's shards.
 */
import pLimit from 'p-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalFetch } from '../../bench/minimal-fetch.ts';
import { parseExportRequest, planExport, shardQuery } from '../../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../../lib/pbs/index.ts';
import { profilesWithCounts } from '../../lib/simulator/profiles.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const PERIOD = { from: '2023-01-01', to: '2025-12-31' };
const PAGE_SIZE = 100;

describe('the minimal fetch beside the client', () => {
  let harness: ExportHarness;
  beforeAll(async () => {
    harness = await startExportHarness(
      'demo',
      { profiles: profilesWithCounts({ demo: 12_000 }) as never },
      { shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: PAGE_SIZE } } },
    );
  }, 60_000);
  afterAll(() => harness.close());

  it('reads as many transactions over as many pages as the client pages the same plan', async () => {
    const request = parseExportRequest({ profile: 'demo', period: PERIOD });
    const plan = await planExport(request, harness.client);
    let clientRows = 0;
    let clientPages = 0;
    const limit = pLimit(8);
    await Promise.all(
      plan.shards.map((shard) =>
        limit(async () => {
          for await (const page of harness.client.transactionPages(shardQuery(shard, request.filters))) {
            clientRows += page.items.length;
            clientPages += 1;
          }
        }),
      ),
    );
    const simulated = harness.simulator.profiles.find((p) => p.name === 'demo');
    if (simulated === undefined) throw new Error('no demo profile');
    const minimal = await minimalFetch(
      { url: harness.simulator.url, period: PERIOD, concurrency: 8 },
      harness.client,
      simulated,
    );
    // Several pages a shard, so the pages after the first are read ahead by the shard's total.
    expect(clientPages).toBeGreaterThan(plan.shards.length * 2);
    expect(minimal.rows).toBe(clientRows);
    expect(minimal.pages).toBe(clientPages);
  }, 60_000);
});
