import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { CREDENTIALS, fakeFetch, json, type RecordedRequest } from '../../test/pbs/support.ts';
import { PbsListingError, PbsResponseError } from './errors.ts';
import type { Page } from './model.ts';
import {
  createReadAheadBudget,
  linkTarget,
  type PageRequestOptions,
  paginate,
  parseNextLink,
} from './pagination.ts';
import { type Pagination, resolveShape, type ServiceShapeOverrides } from './shape.ts';
import { signRequest } from './signing.ts';
import { sendSigned } from './transport.ts';

const base = { baseUrl: 'http://host.test/api', origin: 'http://host.test', basePathname: '/api' };
const ids = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `a${i}` }));

async function collect(
  overrides: ServiceShapeOverrides,
  handler: (request: RecordedRequest, index: number) => Response | Promise<Response>,
  requests: PageRequestOptions = {},
): Promise<{ pages: Page<unknown>[]; requests: RecordedRequest[] }> {
  const fake = fakeFetch(handler);
  const pages: Page<unknown>[] = [];
  const iterable = paginate({
    shape: resolveShape(overrides),
    base,
    signedPath: '/v2/accounts',
    params: [['t', 'ETH']],
    fetchJson: (target) =>
      sendSigned(target, {
        fetch: fake.fetch,
        credentials: CREDENTIALS,
        timeoutMs: 1000,
        maxResponseBytes: 1 << 20,
        timestamp: 1,
        nowMs: 1,
      }),
    validate: (items) => items,
    ...requests,
  });
  for await (const page of iterable) pages.push(page);
  return { pages, requests: fake.requests };
}

const param = (request: RecordedRequest | undefined, name: string) => request?.url.searchParams.get(name);
const allItems = (pages: Page<unknown>[]) => pages.flatMap((p) => p.items);

describe('paginate, page numbers', () => {
  const data = ids(5);
  const serve =
    (totals: boolean) =>
    ({ url }: RecordedRequest) => {
      const page = Number(url.searchParams.get('page'));
      const size = Number(url.searchParams.get('pageSize'));
      const items = data.slice((page - 1) * size, page * size);
      return json(totals ? { items, totalItems: 5, totalPages: Math.ceil(5 / size) } : { items });
    };
  const pagination: Pagination = {
    style: 'page',
    pageParam: 'page',
    pageSizeParam: 'pageSize',
    pageSize: 2,
    firstPage: 1,
    totalItemsPath: 'totalItems',
    totalPagesPath: 'totalPages',
  };

  it('returns every item and stops at totalPages', async () => {
    const { pages, requests } = await collect({ pagination }, serve(true));

    expect(allItems(pages)).toEqual(data);
    expect(requests.map((r) => param(r, 'page'))).toEqual(['1', '2', '3']);
  });

  it('returns the total item count on every page', async () => {
    const { pages } = await collect({ pagination }, serve(true));

    expect(pages.map((p) => [p.index, p.totalItems])).toEqual([
      [0, 5],
      [1, 5],
      [2, 5],
    ]);
  });

  it('returns every item and stops on a short page without totals', async () => {
    const noTotals = { ...pagination, totalItemsPath: null, totalPagesPath: null };

    const { pages, requests } = await collect({ pagination: noTotals }, serve(false));

    expect(allItems(pages)).toEqual(data);
    expect(requests).toHaveLength(3);
  });

  it('returns after an empty page when the last full page ends the data without totals', async () => {
    const noTotals = { ...pagination, pageSize: 5, totalItemsPath: null, totalPagesPath: null };

    const { pages, requests } = await collect({ pagination: noTotals }, serve(false));

    expect(allItems(pages)).toEqual(data);
    expect(requests).toHaveLength(2);
  });

  it('sends the endpoint parameters before the page parameters', async () => {
    const { requests } = await collect({ pagination }, serve(true));

    expect([...(requests[0]?.url.searchParams.keys() ?? [])]).toEqual([
      't',
      'page',
      'pageSize',
      'timestamp',
      'signature',
    ]);
  });

  it('throws PbsListingError (a PbsResponseError) when the service returns the same page again', async () => {
    const noTotals = { ...pagination, totalItemsPath: null, totalPagesPath: null };

    const failure = collect({ pagination: noTotals }, () => json({ items: ids(2) }));

    await expect(failure).rejects.toThrow(PbsListingError);
    await expect(failure).rejects.toThrow(PbsResponseError);
  });

  it('asks for the page after a full last page to confirm the total, and returns its items when it has some', async () => {
    // The first page claims 2 items in 1 page, but a third item follows.
    const three = ids(3);
    const { pages, requests } = await collect({ pagination }, ({ url }) => {
      const page = Number(url.searchParams.get('page'));
      const items = three.slice((page - 1) * 2, page * 2);
      return json(
        page === 1 ? { items, totalItems: 2, totalPages: 1 } : { items, totalItems: 3, totalPages: 2 },
      );
    });

    expect(allItems(pages)).toEqual(three);
    expect(pages.map((p) => p.totalItems)).toEqual([2, 3]);
    expect(requests).toHaveLength(2);
  });

  it('returns after the empty page that confirms a total ending on a full page', async () => {
    const four = ids(4);
    const { pages, requests } = await collect({ pagination }, ({ url }) => {
      const page = Number(url.searchParams.get('page'));
      return json({ items: four.slice((page - 1) * 2, page * 2), totalItems: 4, totalPages: 2 });
    });

    expect(allItems(pages)).toEqual(four);
    expect(requests.map((r) => param(r, 'page'))).toEqual(['1', '2', '3']);
  });

  it('returns items of a bare JSON array when itemsPath is null', async () => {
    const noTotals = { ...pagination, totalItemsPath: null, totalPagesPath: null };

    const { pages } = await collect({ pagination: noTotals, itemsPath: null }, ({ url }) => {
      const page = Number(url.searchParams.get('page'));
      return json(data.slice((page - 1) * 2, page * 2));
    });

    expect(allItems(pages)).toEqual(data);
  });

  it('returns items at a nested itemsPath', async () => {
    const { pages } = await collect({ pagination, itemsPath: 'data.rows' }, ({ url }) => {
      const page = Number(url.searchParams.get('page'));
      return json({ data: { rows: data.slice((page - 1) * 2, page * 2) }, totalPages: 3 });
    });

    expect(allItems(pages)).toEqual(data);
  });

  it('throws PbsResponseError naming itemsPath when it holds no array', async () => {
    await expect(collect({ pagination }, () => json({ rows: [] }))).rejects.toMatchObject({
      name: 'PbsResponseError',
      field: 'items',
    });
  });
});

describe('paginate, offset/limit', () => {
  const data = ids(7);
  const serve = (totals: boolean) => (request: RecordedRequest) => {
    const offset = Number(param(request, 'skip'));
    const limit = Number(param(request, 'take'));
    const items = data.slice(offset, offset + limit);
    return json(totals ? { items, count: data.length } : { items });
  };

  it('returns every item and stops at the total', async () => {
    const pagination: Pagination = {
      style: 'offset',
      offsetParam: 'skip',
      limitParam: 'take',
      limit: 3,
      totalItemsPath: 'count',
    };

    const { pages, requests } = await collect({ pagination }, serve(true));

    expect(allItems(pages)).toEqual(data);
    expect(requests.map((r) => param(r, 'skip'))).toEqual(['0', '3', '6']);
    expect(pages[0]?.totalItems).toBe(7);
  });

  it('returns every item and stops on a short page without a total', async () => {
    const pagination: Pagination = {
      style: 'offset',
      offsetParam: 'skip',
      limitParam: 'take',
      limit: 3,
      totalItemsPath: null,
    };

    const { pages } = await collect({ pagination }, serve(false));

    expect(allItems(pages)).toEqual(data);
    expect(pages[0]?.totalItems).toBeNull();
  });

  it('asks for the offset after a full last page to confirm the total', async () => {
    const pagination: Pagination = {
      style: 'offset',
      offsetParam: 'skip',
      limitParam: 'take',
      limit: 7,
      totalItemsPath: 'count',
    };

    const { pages, requests } = await collect({ pagination }, serve(true));

    expect(allItems(pages)).toEqual(data);
    expect(requests.map((r) => param(r, 'skip'))).toEqual(['0', '7']);
  });
});

describe('paginate, read-ahead', () => {
  const data = ids(11);
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  };
  /** Serves `data` by page number or offset; later pages answer first; counts requests in flight. */
  function service(shapeOf: (items: unknown[], request: RecordedRequest) => unknown) {
    const state = { inFlight: 0, maxInFlight: 0 };
    const handler = async (request: RecordedRequest) => {
      state.inFlight += 1;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      const page = Number(param(request, 'page') ?? 0);
      await turns(12 - Math.min(page, 11));
      state.inFlight -= 1;
      const offset = request.url.searchParams.has('skip') ? Number(param(request, 'skip')) : (page - 1) * 2;
      return json(shapeOf(data.slice(offset, offset + 2), request));
    };
    return { state, handler };
  }
  const pages: Pagination = {
    style: 'page',
    pageParam: 'page',
    pageSizeParam: 'pageSize',
    pageSize: 2,
    firstPage: 1,
    totalItemsPath: 'totalItems',
    totalPagesPath: null,
  };

  it('requests the pages a total promises at once through the scheduler, and yields them in order', async () => {
    const { state, handler } = service((items) => ({ items, totalItems: 11 }));

    const { pages: got, requests } = await collect({ pagination: pages }, handler, {
      schedule: pLimit(3),
      readAhead: 4,
    });

    expect(allItems(got)).toEqual(data);
    expect(got.map((p) => p.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(requests.map((r) => param(r, 'page'))).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(state.maxInFlight).toBe(3);
  });

  it('requests no page ahead with an empty budget', async () => {
    const { state, handler } = service((items) => ({ items, totalItems: 11 }));

    const { pages: got } = await collect({ pagination: pages }, handler, {
      schedule: pLimit(3),
      readAhead: 4,
      readAheadBudget: createReadAheadBudget(0),
    });

    expect(allItems(got)).toEqual(data);
    expect(state.maxInFlight).toBe(1);
  });

  it('requests one page at a time without a total', async () => {
    const { state, handler } = service((items) => ({ items }));

    const { pages: got } = await collect({ pagination: { ...pages, totalItemsPath: null } }, handler, {
      schedule: pLimit(3),
      readAhead: 4,
    });

    expect(allItems(got)).toEqual(data);
    expect(state.maxInFlight).toBe(1);
  });

  it('still throws PbsListingError when the service returns the same page again', async () => {
    const { handler } = service(() => ({ items: ids(2), totalItems: 11 }));

    await expect(
      collect({ pagination: pages }, handler, { schedule: pLimit(3), readAhead: 4 }),
    ).rejects.toThrow(PbsListingError);
  });

  it('requests the offset a short page leads to when it differs from the one requested ahead', async () => {
    const offsets: Pagination = {
      style: 'offset',
      offsetParam: 'skip',
      limitParam: 'take',
      limit: 2,
      totalItemsPath: 'count',
    };
    // The page at offset 2 comes back with one item: the listing continues at 3, not 4.
    const { handler } = service((items, request) => ({
      items: param(request, 'skip') === '2' ? items.slice(0, 1) : items,
      count: 11,
    }));

    const sequential = await collect({ pagination: offsets }, handler);
    const ahead = await collect({ pagination: offsets }, handler, { schedule: pLimit(3), readAhead: 3 });

    expect(allItems(ahead.pages)).toEqual(allItems(sequential.pages));
    expect(ahead.pages.map((p) => p.index)).toEqual(sequential.pages.map((p) => p.index));
    const skips = (r: RecordedRequest[]) => r.map((x) => param(x, 'skip'));
    expect(skips(ahead.requests)).toEqual(expect.arrayContaining(skips(sequential.requests)));
    expect(skips(ahead.requests)).toContain('4');
    expect(skips(sequential.requests)).not.toContain('4');
  });
});

describe('paginate, cursor', () => {
  const data = ids(5);
  const fieldCursor: Pagination = {
    style: 'cursor',
    cursorParam: 'cursor',
    limitParam: 'limit',
    limit: 2,
    next: { from: 'field', path: 'paging.next' },
    totalItemsPath: null,
  };

  it('returns every item following the cursor field until it is null', async () => {
    const { pages, requests } = await collect({ pagination: fieldCursor }, (request) => {
      const start = Number(param(request, 'cursor') ?? '0');
      const next = start + 2 < data.length ? String(start + 2) : null;
      return json({ items: data.slice(start, start + 2), paging: { next } });
    });

    expect(allItems(pages)).toEqual(data);
    expect(requests.map((r) => param(r, 'cursor'))).toEqual([null, '2', '4']);
  });

  it('returns at the end when the cursor field is an empty string', async () => {
    const { requests } = await collect({ pagination: fieldCursor }, () =>
      json({ items: ids(1), paging: { next: '' } }),
    );

    expect(requests).toHaveLength(1);
  });

  it('throws PbsListingError when a cursor repeats', async () => {
    await expect(
      collect({ pagination: fieldCursor }, () => json({ items: ids(1), paging: { next: 'same' } })),
    ).rejects.toMatchObject({ name: 'PbsListingError', field: 'paging.next' });
  });

  const linkCursor: Pagination = { ...fieldCursor, next: { from: 'link-header' } };

  it('returns every item following relative Link headers re-signed over the path from /v2', async () => {
    const { pages, requests } = await collect({ pagination: linkCursor }, (request) => {
      const start = Number(param(request, 'cursor') ?? '0');
      const headers: Record<string, string> =
        start + 2 < data.length
          ? { link: `</api/v2/accounts?t=ETH&cursor=${start + 2}&timestamp=9&signature=old>; rel="next"` }
          : {};
      return json({ items: data.slice(start, start + 2) }, 200, headers);
    });

    expect(allItems(pages)).toEqual(data);
    const second = requests[1];
    expect([...(second?.url.searchParams ?? [])]).toEqual([
      ['t', 'ETH'],
      ['cursor', '2'],
      ['timestamp', '1'],
      ['signature', signRequest('/v2/accounts', 1, CREDENTIALS.apiSecret)],
    ]);
  });

  it('returns the next link of a bare-array response in field-cursor mode', async () => {
    const { pages } = await collect({ pagination: fieldCursor, itemsPath: null }, (request) => {
      const first = param(request, 'cursor') === null;
      const headers: Record<string, string> = first
        ? { link: '<http://host.test/api/v2/accounts?t=ETH&cursor=c2>; rel="next"' }
        : {};
      return json(first ? data.slice(0, 2) : data.slice(2), 200, headers);
    });

    expect(allItems(pages)).toEqual(data);
  });

  it('throws PbsListingError when the Link URL repeats', async () => {
    await expect(
      collect({ pagination: linkCursor }, () =>
        json({ items: ids(1) }, 200, { link: '</api/v2/accounts?cursor=x>; rel="next"' }),
      ),
    ).rejects.toMatchObject({ name: 'PbsListingError', field: 'Link' });
  });
});

describe('parseNextLink', () => {
  it('returns the URL of rel="next" among several links', () => {
    expect(parseNextLink('<https://h/v2/a?c=1>; rel="prev", <https://h/v2/a?c=3>; rel="next"')).toBe(
      'https://h/v2/a?c=3',
    );
  });

  it('returns the URL of an unquoted rel=next', () => {
    expect(parseNextLink('</v2/a?c=3>; rel=next')).toBe('/v2/a?c=3');
  });

  it('returns null without a next link', () => {
    expect([parseNextLink(null), parseNextLink('</v2/a>; rel="prev"')]).toEqual([null, null]);
  });
});

describe('paginate, items cut down to the fields read (itemFields)', () => {
  const shape = resolveShape({});
  const item = (n: number) => ({ id: `t${n}`, date: '2025-01-05T10:00:00.000Z', memo: 'x'.repeat(n), n });
  const listing = (handler: (request: RecordedRequest) => Response) => {
    const fake = fakeFetch(handler);
    return paginate({
      shape,
      base,
      signedPath: '/v2/transactions',
      params: [],
      fetchJson: (target, parse) =>
        sendSigned(target, {
          fetch: fake.fetch,
          credentials: CREDENTIALS,
          timeoutMs: 1000,
          maxResponseBytes: 1 << 20,
          timestamp: 1,
          nowMs: 1,
          ...(parse ? { parse } : {}),
        }),
      validate: (items) => items,
      itemTexts: true,
      itemFields: ['id', 'date'],
    });
  };

  it('yields items holding only those fields, with the texts of the whole items', async () => {
    const pages: Page<unknown>[] = [];
    for await (const page of listing(() => json({ items: [item(1), item(2)], totalItems: 2 })))
      pages.push(page);

    expect(pages.map((page) => page.items)).toEqual([
      [
        { id: 't1', date: '2025-01-05T10:00:00.000Z' },
        { id: 't2', date: '2025-01-05T10:00:00.000Z' },
      ],
    ]);
    expect(pages[0]?.itemTexts).toEqual([JSON.stringify(item(1)), JSON.stringify(item(2))]);
  });

  it('still refuses a page served twice, told by its texts: pages whose cut-down items are alike are not', async () => {
    const size = shape.pagination.style === 'page' ? shape.pagination.pageSize : 0;
    const full = (memo: string) =>
      Array.from({ length: size }, (_, i) => ({ ...item(1), id: `t${i}`, memo }));
    const repeated = async () => {
      for await (const _page of listing(() => json({ items: full('same'), totalItems: 3 * size })));
    };
    await expect(repeated()).rejects.toThrow(PbsListingError);

    // The same ids and dates on two pages, other content: not the same page served twice (the
    // ids twice are the fetch's to judge).
    let served = 0;
    const pages: Page<unknown>[] = [];
    for await (const page of listing(() => {
      served += 1;
      const items = served === 1 ? full('first') : served === 2 ? full('second') : [];
      return json({ items, totalItems: 2 * size });
    }))
      pages.push(page);
    expect(pages.map((page) => page.items.length)).toEqual([size, size, 0]);
  });
});

describe('linkTarget', () => {
  it('returns the signed path without the base prefix and the query without timestamp and signature', () => {
    const target = linkTarget(
      'http://host.test/api/v2/accounts?timestamp=1&a=b+c&signature=zz&cursor=x',
      'http://host.test/api/v2/accounts',
      base,
      '/api/v2/accounts',
    );

    expect(target).toEqual({
      endpoint: 'http://host.test/api/v2/accounts',
      query: 'a=b+c&cursor=x',
      signedPath: '/v2/accounts',
      path: '/api/v2/accounts',
    });
  });

  it('throws PbsResponseError for a link to another origin', () => {
    expect(() =>
      linkTarget('https://evil.test/api/v2/accounts', 'http://host.test/api/v2/accounts', base, '/x'),
    ).toThrow(PbsResponseError);
  });

  it('throws PbsResponseError for a link outside the base path', () => {
    expect(() => linkTarget('/v1/accounts', 'http://host.test/api/v2/accounts', base, '/x')).toThrow(
      PbsResponseError,
    );
  });
});

describe('createReadAheadBudget', () => {
  it('lets pages ahead while their items fit the budget, and again once given back', () => {
    const budget = createReadAheadBudget(10);
    expect([budget.tryTake(4), budget.tryTake(4), budget.tryTake(4)]).toEqual([true, true, false]);
    budget.giveBack(4);
    expect(budget.tryTake(4)).toBe(true);
  });

  it('lets one page ahead that holds more items than the whole budget, but not two', () => {
    const budget = createReadAheadBudget(1);
    expect([budget.tryTake(1000), budget.tryTake(1000)]).toEqual([true, false]);
  });

  it('lets no page ahead when empty', () => {
    expect(createReadAheadBudget(0).tryTake(1)).toBe(false);
  });
});
