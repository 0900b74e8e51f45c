/**
 * The CLI as a user runs it against services that report no total and whose listings cannot be
 * trusted to agree with themselves (loopback HTTP, 1 200 transactions in October 2025): a service
 * that sends 500 rows a page whatever size is asked and loses a row at a page boundary, one that
 * caps its pages at 100 rows, and one whose page at a boundary two page sizes share starts late.
 * Each ends with every transaction exported (exit 0) or a clean failure (exit 1, no manifest):
 * never a published export with transactions missing. The expectations are the server's own
 * transactions, read back from the CSV with csv-parse.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Pagination } from '../../lib/pbs/index.ts';
import {
  exportFromHostilePaging,
  idsOf,
  listingOrders,
  offsetsNoTotal,
  PAGES_NO_TOTAL,
} from '../support/hostile-paging.ts';
import type { HostilePaging } from '../support/hostile-server.ts';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const exportFrom = (paging: HostilePaging, pagination: Pagination, count = 1200) =>
  exportFromHostilePaging(paging, pagination, count, cleanups);

describe('pbs-export run against a service without totals that sends 500 rows a page whatever size is asked', () => {
  it('fails cleanly, no manifest, when its pages after the first start a row late (page numbers)', async () => {
    const run = await exportFrom({ style: 'page', fixedPageSize: 500, shiftAfterFirst: 1 }, PAGES_NO_TOTAL);

    expect(run.code).toBe(1);
    expect(run.manifests).toEqual([]);
    expect(run.stderr).toMatch(/no total.*listings disagree/);
    // The listing asked 499 a page got 500 and lost the same row: newest first was asked too.
    const orders = listingOrders(run.server, (query) => query.get('page') === '1');
    expect(orders.slice(0, 3)).toEqual(['asc', 'asc', 'desc']);
  });

  it('exports all 1 200 transactions when it loses none: the listing asked 499 pages alike, newest first does not', async () => {
    const run = await exportFrom({ style: 'page', fixedPageSize: 500 }, PAGES_NO_TOTAL);

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.ids).toEqual(idsOf(1200));
    expect(listingOrders(run.server, (query) => query.get('page') === '1')).toEqual(['asc', 'asc', 'desc']);
  });

  it('fails cleanly, no manifest, when its first page lists a row the offsets do not count', async () => {
    const run = await exportFrom(
      { style: 'offset', fixedPageSize: 500, pinnedNewest: true },
      offsetsNoTotal(500),
    );

    expect(run.code).toBe(1);
    expect(run.manifests).toEqual([]);
    expect(run.stderr).toMatch(/no total.*listings disagree/);
    const orders = listingOrders(run.server, (query) => query.get('offset') === '0');
    expect(orders.slice(0, 3)).toEqual(['asc', 'asc', 'desc']);
  });
});

describe('pbs-export run against a service without totals that caps its pages at 100 rows when 500 are asked', () => {
  it.each<[string, HostilePaging, Pagination]>([
    ['page numbers', { style: 'page', cap: 100 }, PAGES_NO_TOTAL],
    ['offsets', { style: 'offset', cap: 100 }, offsetsNoTotal(500)],
  ])(
    'exports all 1 200 transactions (%s): a page as long as its cap is not the end',
    async (_name, paging, pagination) => {
      const run = await exportFrom(paging, pagination);

      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(run.ids).toEqual(idsOf(1200));
    },
  );
});

describe('pbs-export run against a service without totals whose page at a boundary both listings share starts late', () => {
  it('fails cleanly, no manifest, when the page at offset 108 (4 × 27 and 3 × 36) skips the last 12 of 120 rows', async () => {
    // 4 a page, as the faults suite paged: every smaller size pages at 108 too (120 rows keep it quick).
    const run = await exportFrom(
      { style: 'offset', lateAt: { offset: 108, by: 12 } },
      offsetsNoTotal(4),
      120,
    );

    expect(run.code).toBe(1);
    expect(run.manifests).toEqual([]);
    expect(run.stderr).toMatch(/no total/);
  });
});
