import { describe, expect, it } from 'vitest';
import { CREDENTIALS, fakeFetch, json, type RecordedRequest } from '../../test/pbs/support.ts';
import { PbsListingError } from './errors.ts';
import { paginate, SMALLEST_PAGE_CAP } from './pagination.ts';
import { type Pagination, resolveShape } from './shape.ts';
import { sendSigned } from './transport.ts';

const base = { baseUrl: 'http://host.test', origin: 'http://host.test', basePathname: '' };
const data = Array.from({ length: 7 }, (_, i) => ({ id: `a${i}` }));

/** Pages through `data` served by `serve`, asking for `pageSize` items a page; returns the requests. */
async function list(
  pagination: Pagination,
  serve: (url: URL) => unknown,
  pageSize?: number,
): Promise<{ items: unknown[]; urls: URL[] }> {
  const fake = fakeFetch(({ url }: RecordedRequest) => json(serve(url)));
  const items: unknown[] = [];
  for await (const page of paginate({
    shape: resolveShape({ pagination }),
    base,
    signedPath: '/v2/transactions',
    params: [],
    fetchJson: (target) =>
      sendSigned(target, {
        fetch: fake.fetch,
        credentials: CREDENTIALS,
        timeoutMs: 1000,
        maxResponseBytes: 1 << 20,
        timestamp: 1,
        nowMs: 1,
      }),
    validate: (found) => found,
    ...(pageSize === undefined ? {} : { pageSize }),
  })) {
    items.push(...page.items);
  }
  return { items, urls: fake.requests.map((request) => request.url) };
}

describe('paginate with a page size asked for', () => {
  it('sends it as the page size of a page-number listing and numbers pages by it', async () => {
    const pagination: Pagination = {
      style: 'page',
      pageParam: 'page',
      pageSizeParam: 'pageSize',
      pageSize: 3,
      firstPage: 1,
      totalItemsPath: null,
      totalPagesPath: null,
    };
    const serve = (url: URL) => {
      const size = Number(url.searchParams.get('pageSize'));
      const page = Number(url.searchParams.get('page'));
      return { items: data.slice((page - 1) * size, page * size) };
    };

    const { items, urls } = await list(pagination, serve, 2);

    expect(items).toEqual(data);
    expect(urls.map((url) => [url.searchParams.get('page'), url.searchParams.get('pageSize')])).toEqual([
      ['1', '2'],
      ['2', '2'],
      ['3', '2'],
      ['4', '2'],
    ]);
  });

  it('sends it as the limit of an offset listing and of a cursor listing with a limit parameter', async () => {
    const offset: Pagination = {
      style: 'offset',
      offsetParam: 'offset',
      limitParam: 'limit',
      limit: 3,
      totalItemsPath: null,
    };
    const serveOffset = (url: URL) => {
      const at = Number(url.searchParams.get('offset'));
      return { items: data.slice(at, at + Number(url.searchParams.get('limit'))) };
    };
    const cursor: Pagination = {
      style: 'cursor',
      cursorParam: 'cursor',
      limitParam: 'limit',
      limit: 3,
      next: { from: 'field', path: 'next' },
      totalItemsPath: null,
    };
    const serveCursor = (url: URL) => {
      const at = Number(url.searchParams.get('cursor') ?? 0);
      const end = at + Number(url.searchParams.get('limit'));
      return { items: data.slice(at, end), next: end < data.length ? String(end) : null };
    };

    const byOffset = await list(offset, serveOffset, 2);
    const byCursor = await list(cursor, serveCursor, 2);

    expect(byOffset.items).toEqual(data);
    expect(byOffset.urls.map((url) => url.searchParams.get('offset'))).toEqual(['0', '2', '4', '6']);
    expect(byCursor.items).toEqual(data);
    expect(byCursor.urls.map((url) => url.searchParams.get('limit'))).toEqual(['2', '2', '2', '2']);
  });

  it("keeps the shape's size when none is asked for", async () => {
    const pagination: Pagination = {
      style: 'offset',
      offsetParam: 'offset',
      limitParam: 'limit',
      limit: 3,
      totalItemsPath: null,
    };
    const serve = (url: URL) => {
      const at = Number(url.searchParams.get('offset'));
      return { items: data.slice(at, at + Number(url.searchParams.get('limit'))) };
    };

    const { urls } = await list(pagination, serve);

    expect(urls.map((url) => url.searchParams.get('limit'))).toEqual(['3', '3', '3']);
  });
});

describe('paginate, the page size the service actually uses', () => {
  const noTotals: Pagination = {
    style: 'page',
    pageParam: 'page',
    pageSizeParam: 'pageSize',
    pageSize: 2,
    firstPage: 1,
    totalItemsPath: null,
    totalPagesPath: null,
  };
  const offsetsNoTotal: Pagination = {
    style: 'offset',
    offsetParam: 'offset',
    limitParam: 'limit',
    limit: 5,
    totalItemsPath: null,
  };
  /** Page `page` of `size` items, whatever the request asks (a service with its own page size). */
  const byNumber = (url: URL, size: number) => {
    const page = Number(url.searchParams.get('page'));
    return { items: data.slice((page - 1) * size, page * size) };
  };
  const asked = (urls: URL[], name: string) => urls.map((url) => url.searchParams.get(name));

  it('numbers the pages after a page longer than asked by the size the service sent, and asks that size', async () => {
    const { items, urls } = await list(noTotals, (url) => byNumber(url, 3));

    expect(items).toEqual(data);
    expect(urls.map((url) => [url.searchParams.get('page'), url.searchParams.get('pageSize')])).toEqual([
      ['1', '2'],
      ['2', '3'],
      ['3', '3'],
    ]);
  });

  it('goes on after a first page shorter than asked, at that size, when the service caps its pages (page numbers)', async () => {
    // Asked 5, the service sends at most 3, numbering pages of the size it sends.
    const capped = (url: URL) => byNumber(url, Math.min(3, Number(url.searchParams.get('pageSize'))));

    const { items, urls } = await list({ ...noTotals, pageSize: 5 }, capped);

    expect(items).toEqual(data);
    expect(asked(urls, 'pageSize')).toEqual(['5', '3', '3']);
  });

  it('goes on after a first page shorter than asked when the service caps its pages (offsets)', async () => {
    const capped = (url: URL) => {
      const at = Number(url.searchParams.get('offset'));
      return { items: data.slice(at, at + Math.min(3, Number(url.searchParams.get('limit')))) };
    };

    const { items, urls } = await list(offsetsNoTotal, capped);

    expect(items).toEqual(data);
    expect(asked(urls, 'offset')).toEqual(['0', '3', '6']);
  });

  it('asks once more after a first page shorter than asked, and ends on the empty page that follows', async () => {
    const four = (url: URL) => {
      const at = Number(url.searchParams.get('offset'));
      return { items: data.slice(0, 4).slice(at, at + Number(url.searchParams.get('limit'))) };
    };

    const { items, urls } = await list(offsetsNoTotal, four);

    expect(items).toEqual(data.slice(0, 4));
    expect(asked(urls, 'offset')).toEqual(['0', '4']);
  });

  it(`ends on a first page of fewer than ${SMALLEST_PAGE_CAP} items without asking for another`, async () => {
    const two = (url: URL) => {
      const at = Number(url.searchParams.get('offset'));
      return { items: data.slice(0, 2).slice(at, at + Number(url.searchParams.get('limit'))) };
    };

    const { items, urls } = await list(offsetsNoTotal, two);

    expect(items).toEqual(data.slice(0, 2));
    expect(urls).toHaveLength(1);
  });

  it('throws PbsListingError when a page-number listing sends a page longer than the ones before it', async () => {
    // Two a page, then three: the items fetched no longer line up with the page numbers.
    const growing = (url: URL) => byNumber(url, url.searchParams.get('page') === '1' ? 2 : 3);

    await expect(list(noTotals, growing)).rejects.toThrow(PbsListingError);
  });
});
