import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Page, RawTransaction } from '../../pbs/model.ts';
import type { PageRequestOptions } from '../../pbs/pagination.ts';
import type { Pagination } from '../../pbs/shape.ts';
import { confirmingPageSize, type FetchShard, fetchShards, UnconfirmedShardError } from './fetch.ts';

const shard: FetchShard = {
  id: 's0',
  protocol: null,
  window: { index: 0, start: new Date('2025-01-01T00:00:00Z'), end: new Date('2025-02-01T00:00:00Z') },
};
const ROWS = Array.from({ length: 23 }, (_, i) => ({
  id: `t${String(i).padStart(2, '0')}`,
  date: new Date(Date.UTC(2025, 0, 2, 0, i)).toISOString(),
}));

const pageStyle = (pageSize: number, totals: boolean): Pagination => ({
  style: 'page',
  pageParam: 'page',
  pageSizeParam: 'pageSize',
  pageSize,
  firstPage: 1,
  totalItemsPath: totals ? 'totalItems' : null,
  totalPagesPath: null,
});

/**
 * A source over `ROWS` that pages with the size asked for (else the shape's), records each
 * listing's size, and with `skipFirstOfPage2` always loses the first row of page 2 (a service
 * whose loss repeats on every listing of one page size).
 */
function source(pagination: Pagination, options: { skipFirstOfPage2?: boolean } = {}) {
  const sizes: (number | undefined)[] = [];
  const shapeSize = pagination.style === 'page' ? pagination.pageSize : pagination.limit;
  const totals = pagination.totalItemsPath !== null;
  return {
    sizes,
    shape: { pagination },
    async *transactionPages(
      _query: unknown,
      requests?: PageRequestOptions,
    ): AsyncIterable<Page<RawTransaction>> {
      sizes.push(requests?.pageSize);
      const size = requests?.pageSize ?? shapeSize;
      for (let index = 0; index * size < ROWS.length; index++) {
        const start = index * size + (options.skipFirstOfPage2 === true && index >= 1 ? 1 : 0);
        const items = ROWS.slice(start, start + size);
        yield { items, totalItems: totals ? ROWS.length : null, index };
      }
    },
  };
}

let workDir: string;
beforeEach(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'pbs-confirm-'));
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

const fetchOne = (client: ReturnType<typeof source>, shardAttempts = 3) =>
  fetchShards(client, [shard], {}, { workDir, concurrency: 1, shardAttempts, idField: 'id' });

describe('confirmingPageSize', () => {
  it('is one fewer, coprime with the first, so no page boundary of the two falls alike before size × (size - 1) rows', () => {
    for (const size of [2, 3, 4, 10, 500, 1000]) {
      const other = confirmingPageSize(size);
      const shared = Array.from({ length: size * other }, (_, row) => row).filter(
        (row) => row > 0 && row % size === 0 && row % other === 0,
      );
      expect([other < size, shared]).toEqual([true, []]);
    }
    expect(confirmingPageSize(1)).toBe(2);
  });
});

describe('the listing that confirms a shard without a total', () => {
  it('pages with another size and, when both agree, is accepted with both sizes recorded', async () => {
    const client = source(pageStyle(4, false));

    const [fetched] = await fetchOne(client);

    expect(client.sizes).toEqual([4, 3]);
    expect(fetched).toMatchObject({
      rows: ROWS.length,
      completeness: 'second-listing',
      attempts: 2,
      pageSizes: [4, 3],
    });
  });

  it('fails with UnconfirmedShardError when the service loses the first row of page 2 on every listing', async () => {
    const client = source(pageStyle(4, false), { skipFirstOfPage2: true });

    const failure = fetchOne(client, 2);

    await expect(failure).rejects.toBeInstanceOf(UnconfirmedShardError);
    // Each listing after the first pages with the other size, so no two in a row share a boundary.
    expect(client.sizes).toEqual([4, 3, 4]);
  });

  it('uses the configured size only for a shard whose service reports a total', async () => {
    const client = source(pageStyle(4, true));

    const [fetched] = await fetchOne(client);

    expect(client.sizes).toEqual([4]);
    expect(fetched?.completeness).toBe('total');
    expect(fetched?.pageSizes).toBeUndefined();
  });

  it('asks no size of a cursor service without a limit parameter, and records none', async () => {
    const client = source({
      style: 'cursor',
      cursorParam: 'cursor',
      limitParam: null,
      limit: 4,
      next: { from: 'field', path: 'next' },
      totalItemsPath: null,
    });

    const [fetched] = await fetchOne(client);

    expect(client.sizes).toEqual([undefined, undefined]);
    expect(fetched?.completeness).toBe('second-listing');
    expect(fetched?.pageSizes).toBeUndefined();
  });
});
