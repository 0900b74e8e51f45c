import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Page, RawTransaction, TransactionQuery } from '../../pbs/model.ts';
import type { PageRequestOptions } from '../../pbs/pagination.ts';
import type { Pagination } from '../../pbs/shape.ts';
import { confirmingPageSize } from './coverage.ts';
import { UnprovableShardError } from './errors.ts';
import { type FetchShard, fetchShards, UnconfirmedShardError } from './fetch.ts';

const shard: FetchShard = {
  id: 's0',
  protocol: null,
  window: { index: 0, start: new Date('2025-01-01T00:00:00Z'), end: new Date('2025-02-01T00:00:00Z') },
};
/** `count` rows a minute apart, oldest first. */
const rowsOf = (count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `t${String(i).padStart(2, '0')}`,
    date: new Date(Date.UTC(2025, 0, 2, 0, i)).toISOString(),
  }));
const ROWS = rowsOf(23);

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
 * A source over `rows` (default `ROWS`) that pages, oldest or newest first as asked, with the size
 * asked for (else the shape's; always the shape's with `ignoresSize`), records each listing's
 * size and order, and with `skipFirstOfPage2` always loses the first row of page 2 (a service
 * whose loss repeats on every listing of one page size).
 */
function source(
  pagination: Pagination,
  options: { skipFirstOfPage2?: boolean; rows?: typeof ROWS; ignoresSize?: boolean } = {},
) {
  const sizes: (number | undefined)[] = [];
  const orders: (string | undefined)[] = [];
  const shapeSize = pagination.style === 'page' ? pagination.pageSize : pagination.limit;
  const totals = pagination.totalItemsPath !== null;
  const all = options.rows ?? ROWS;
  return {
    sizes,
    orders,
    shape: { pagination },
    async *transactionPages(
      query: TransactionQuery,
      requests?: PageRequestOptions,
    ): AsyncIterable<Page<RawTransaction>> {
      sizes.push(requests?.pageSize);
      orders.push(query.order);
      const size = options.ignoresSize === true ? shapeSize : (requests?.pageSize ?? shapeSize);
      const rows = query.order === 'desc' ? [...all].reverse() : all;
      for (let index = 0; index * size < rows.length; index++) {
        const start = index * size + (options.skipFirstOfPage2 === true && index >= 1 ? 1 : 0);
        const items = rows.slice(start, start + size);
        yield { items, totalItems: totals ? rows.length : null, index };
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

/** With `dated`, the fetch reads each row's instant, so a newest-first listing can be compared. */
const fetchOne = (client: ReturnType<typeof source>, shardAttempts = 3, dated = false) =>
  fetchShards(
    client,
    [shard],
    {},
    {
      workDir,
      concurrency: 1,
      shardAttempts,
      idField: 'id',
      ...(dated ? { fields: { id: 'id', date: 'date' } } : {}),
    },
  );

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
  it('pages with another size and, when both agree with no page boundary alike, is accepted with both sizes recorded', async () => {
    const client = source(pageStyle(6, false));

    const [fetched] = await fetchOne(client);

    expect(client.sizes).toEqual([6, 5]);
    expect(fetched).toMatchObject({
      rows: ROWS.length,
      completeness: 'second-listing',
      attempts: 2,
      pageSizes: [6, 5],
    });
  });

  it('confirms newest first when that covers more boundaries than another size (4 and 3 share row 12)', async () => {
    // 22 rows, 4 a page: newest first, the pages split 2 rows from each boundary of the first listing.
    const client = source(pageStyle(4, false), { rows: rowsOf(22) });

    const [fetched] = await fetchOne(client, 3, true);

    expect([client.sizes, client.orders]).toEqual([
      [4, 4],
      ['asc', 'desc'],
    ]);
    expect(fetched).toMatchObject({
      rows: 22,
      completeness: 'second-listing',
      pageSizes: [4, 4],
      orders: ['asc', 'desc'],
    });
  });

  it('covers what one confirming listing leaves open with a third (9 shares rows 90 and 180 with 10, 8 does not)', async () => {
    const client = source(pageStyle(10, false), { rows: rowsOf(200) });

    const [fetched] = await fetchOne(client);

    expect(client.sizes).toEqual([10, 9, 8]);
    expect(fetched).toMatchObject({ rows: 200, completeness: 'second-listing', pageSizes: [10, 9, 8] });
  });

  it('fails with UnprovableShardError naming the boundary when two page sizes share one and no other listing can be compared', async () => {
    const client = source(pageStyle(4, false));

    const failure = fetchOne(client);

    await expect(failure).rejects.toBeInstanceOf(UnprovableShardError);
    await expect(failure).rejects.toThrow('the page boundary after row 12 of 23');
    expect(client.sizes).toEqual([4, 3]);
  });

  it('fails with UnprovableShardError when the service ignores the size asked and pages beside each boundary newest first', async () => {
    // 23 rows, 4 a page whatever is asked: newest first, the pages split 3 rows after each boundary.
    const client = source(pageStyle(4, false), { ignoresSize: true });

    const failure = fetchOne(client, 3, true);

    await expect(failure).rejects.toBeInstanceOf(UnprovableShardError);
    await expect(failure).rejects.toThrow('4 rows a page whatever page size is asked');
    // The newest-first listing would page beside every boundary: it is not asked for.
    expect(client.orders).toEqual(['asc', 'asc']);
  });

  it('does not take a newest-first page as covering a boundary between rows of one instant', async () => {
    // As the 22-row case above, but rows 3 to 5 share an instant: newest first, the page holding
    // rows 5 to 2 may list a fourth row of that instant in any place, so it shows nothing of row 3|4.
    const rows = rowsOf(22).map((row, n) => (n >= 3 && n <= 5 ? { ...row, date: ROWS[3]?.date ?? '' } : row));
    const client = source(pageStyle(4, false), { rows, ignoresSize: true });

    const failure = fetchOne(client, 3, true);

    await expect(failure).rejects.toBeInstanceOf(UnprovableShardError);
    await expect(failure).rejects.toThrow('the page boundary after row 4 of 22');
    // Newest first covered every other boundary; 3 a page was asked, and ignored, for that one.
    expect(client.orders).toEqual(['asc', 'desc', 'asc']);
  });

  it('fails with UnconfirmedShardError when the service loses the first row of page 2 on every listing', async () => {
    const client = source(pageStyle(4, false), { skipFirstOfPage2: true });

    const failure = fetchOne(client, 2);

    await expect(failure).rejects.toBeInstanceOf(UnconfirmedShardError);
    // Each listing after the first pages with another size, so no two in a row share a boundary.
    expect(client.sizes).toEqual([4, 3, 4]);
  });

  it('uses the configured size only for a shard whose service reports a total', async () => {
    const client = source(pageStyle(4, true));

    const [fetched] = await fetchOne(client);

    expect(client.sizes).toEqual([4]);
    expect(fetched?.completeness).toBe('total');
    expect(fetched?.pageSizes).toBeUndefined();
  });

  it('asks no size of a cursor service without a limit parameter, and confirms it newest first', async () => {
    const client = source(
      {
        style: 'cursor',
        cursorParam: 'cursor',
        limitParam: null,
        limit: 4,
        next: { from: 'field', path: 'next' },
        totalItemsPath: null,
      },
      { rows: rowsOf(22) },
    );

    const [fetched] = await fetchOne(client, 3, true);

    expect([client.sizes, client.orders]).toEqual([
      [undefined, undefined],
      ['asc', 'desc'],
    ]);
    expect(fetched?.completeness).toBe('second-listing');
    expect(fetched?.pageSizes).toBeUndefined();
  });
});
