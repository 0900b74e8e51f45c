import { describe, expect, it } from 'vitest';
import { CREDENTIALS, fakeFetch, json, type RecordedRequest } from '../../test/pbs/support.ts';
import { paginate } from './pagination.ts';
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
