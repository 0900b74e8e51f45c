/**
 * A service without totals, paged by page numbers over real HTTP (the simulator): each shard is
 * listed twice, the second time with one item fewer a page, and the snapshot header records both
 * page sizes. The exported ids are those the simulator generates, counted on their own. A service
 * with totals is listed once, one request a page.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { readNdjson } from '../../lib/export/snapshot/snapshot.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/index.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';
import { generatedIds } from '../support/simulator.ts';

const SEED = 1;
const PAGE = 7;
const NO_TOTALS: ServiceShapeOverrides = {
  pagination: {
    style: 'page',
    pageParam: 'page',
    pageSizeParam: 'pageSize',
    pageSize: PAGE,
    firstPage: 1,
    totalItemsPath: null,
    totalPagesPath: null,
  },
};

interface HeaderShard {
  rows: number;
  completeness?: string;
  pageSizes?: number[];
  listings?: number;
}

describe('a shard without a total, confirmed by a listing with another page size', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('exports every transaction, asks for both page sizes and records them in the snapshot header', async () => {
    harness = await startExportHarness('acme', { seed: SEED, shape: NO_TOTALS }, { shape: NO_TOTALS });
    // With a signal, as the CLI runs it: the fetch then reads the page size through the stoppable client.
    const result = await runExport(
      parseExportRequest({ profile: 'acme', period: '2024-06' }),
      harness.deps({ signal: new AbortController().signal }),
    );
    const rows = await readCsv(join(harness.outDir, result.prefix, 'acme_2024-06_transactions.csv'));
    const acme = harness.simulator.profiles.find((p) => p.name === 'acme');
    if (acme === undefined) throw new Error('no acme profile');
    const expected = generatedIds(acme, SEED, '2024-06-01T00:00:00.000Z', '2024-07-01T00:00:00.000Z');
    const snapshot = join(harness.outDir, result.prefix, 'acme_2024-06_snapshot.ndjson.gz');
    let header: { shards: HeaderShard[] } | undefined;
    for await (const record of readNdjson(snapshot)) {
      header = record as { shards: HeaderShard[] };
      break;
    }
    const asked = new Set(
      harness.simulator.requestLog
        .filter((entry) => entry.path === '/v2/transactions')
        .map((entry) => entry.query.find(([name]) => name === 'pageSize')?.[1]),
    );

    expect(expected.length).toBeGreaterThan(PAGE);
    expect(rows.map((row) => row.id)).toEqual(expected);
    expect(asked).toEqual(new Set([String(PAGE), String(PAGE - 1)]));
    expect(header?.shards.length).toBeGreaterThan(0);
    for (const shard of header?.shards ?? []) {
      expect(shard).toMatchObject({
        completeness: 'second-listing',
        pageSizes: [PAGE, PAGE - 1],
        listings: 2,
      });
    }
  });
});

describe('a shard whose service reports a total', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  it('is listed once: ⌊rows / page size⌋ + 1 requests a shard, no second listing', async () => {
    const totals: ServiceShapeOverrides = {
      pagination: {
        style: 'page',
        pageParam: 'page',
        pageSizeParam: 'pageSize',
        pageSize: PAGE,
        firstPage: 1,
        totalItemsPath: 'totalItems',
        totalPagesPath: 'totalPages',
      },
    };
    harness = await startExportHarness('acme', { seed: SEED, shape: totals }, { shape: totals });
    const result = await runExport(parseExportRequest({ profile: 'acme', period: '2024' }), harness.deps());
    const snapshot = join(harness.outDir, result.prefix, 'acme_2024_snapshot.ndjson.gz');
    let header: { shards: HeaderShard[] } | undefined;
    for await (const record of readNdjson(snapshot)) {
      header = record as { shards: HeaderShard[] };
      break;
    }
    const shards = header?.shards ?? [];
    const requests = harness.simulator.requestLog.filter((entry) => entry.path === '/v2/transactions');

    expect(shards.some((shard) => shard.rows > PAGE)).toBe(true);
    expect(shards.every((shard) => shard.completeness === 'total' && shard.listings === 1)).toBe(true);
    expect(requests).toHaveLength(shards.reduce((sum, shard) => sum + Math.floor(shard.rows / PAGE) + 1, 0));
  });
});
