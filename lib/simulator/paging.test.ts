import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fetchAllItems, type QueryPairs, signedGet, signedJson } from '../../test/support/simulator.ts';
import type { Pagination, ServiceShapeOverrides } from '../pbs/shape.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { startSimulator } from './server.ts';
import type { RunningSimulator, SimulatedProfile } from './types.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
const FILTER: QueryPairs = [['t', 'ETH']];

const STYLES: [string, ServiceShapeOverrides][] = [
  [
    'page with totals',
    {
      pagination: {
        style: 'page',
        pageParam: 'page',
        pageSizeParam: 'pageSize',
        pageSize: 40,
        firstPage: 1,
        totalItemsPath: 'totalItems',
        totalPagesPath: 'totalPages',
      },
    },
  ],
  [
    'page without totals, 0-based',
    {
      pagination: {
        style: 'page',
        pageParam: 'p_no',
        pageSizeParam: 'size',
        pageSize: 33,
        firstPage: 0,
        totalItemsPath: null,
        totalPagesPath: null,
      },
    },
  ],
  [
    'offset/limit',
    {
      pagination: {
        style: 'offset',
        offsetParam: 'offset',
        limitParam: 'limit',
        limit: 25,
        totalItemsPath: 'meta.total',
      },
    },
  ],
  [
    'cursor in a body field',
    {
      pagination: {
        style: 'cursor',
        cursorParam: 'cursor',
        limitParam: 'limit',
        limit: 30,
        next: { from: 'field', path: 'paging.next' },
        totalItemsPath: null,
      },
    },
  ],
  [
    'cursor in a Link header',
    {
      pagination: {
        style: 'cursor',
        cursorParam: 'after',
        limitParam: null,
        limit: 30,
        next: { from: 'link-header' },
        totalItemsPath: null,
      },
    },
  ],
  [
    'bare array',
    {
      itemsPath: null,
      pagination: {
        style: 'page',
        pageParam: 'page',
        pageSizeParam: 'pageSize',
        pageSize: 20,
        firstPage: 1,
        totalItemsPath: null,
        totalPagesPath: null,
      },
    },
  ],
  [
    'nested items path',
    {
      itemsPath: 'data.rows',
      pagination: {
        style: 'page',
        pageParam: 'page',
        pageSizeParam: 'pageSize',
        pageSize: 20,
        firstPage: 1,
        totalItemsPath: 'data.total',
        totalPagesPath: null,
      },
    },
  ],
];

describe('simulator pagination', () => {
  let reference: RunningSimulator;
  let expected: string[];

  beforeAll(async () => {
    reference = await startSimulator({ rateLimitPerSecond: 0 });
    const body = (await signedJson(reference.url, acme, '/v2/transactions', {
      query: [...FILTER, ['pageSize', '1000']],
    })) as { items: { id: string }[] };
    expected = body.items.map((t) => t.id);
  });
  afterAll(() => reference.close());

  for (const [name, shape] of STYLES) {
    it(`returns every matching transaction exactly once when paging to the end (${name})`, async () => {
      const sim = await startSimulator({ rateLimitPerSecond: 0, shape });
      try {
        const items = await fetchAllItems(sim.url, acme, '/v2/transactions', FILTER, shape);
        expect(items.map((t) => t.id)).toEqual(expected);
        expect(sim.requestLog.length).toBeGreaterThan(2);
      } finally {
        await sim.close();
      }
    });
  }

  it('returns the default page envelope with page, pageSize, totalItems and totalPages', async () => {
    const body = (await signedJson(reference.url, acme, '/v2/transactions', {
      query: [['pageSize', '100']],
    })) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual(['items', 'page', 'pageSize', 'totalItems', 'totalPages']);
    expect(body).toMatchObject({
      page: 1,
      pageSize: 100,
      totalPages: Math.ceil((body.totalItems as number) / 100),
    });
  });

  it('returns pageSize 500 when none is given', async () => {
    const body = (await signedJson(
      reference.url,
      DEFAULT_PROFILES[0] as SimulatedProfile,
      '/v2/transactions',
    )) as {
      items: unknown[];
      pageSize: number;
    };
    expect([body.items.length, body.pageSize]).toEqual([500, 500]);
  });

  it('returns 400 naming pageSize above 1000', async () => {
    const response = await signedGet(reference.url, acme, '/v2/transactions', {
      query: [['pageSize', '1001']],
    });
    const body = (await response.json()) as { error: { message: string } };
    expect([response.status, body.error.message.split(':')[0]]).toEqual([400, 'pageSize']);
  });

  it('returns 400 for pageSize 0', async () => {
    const response = await signedGet(reference.url, acme, '/v2/transactions', { query: [['pageSize', '0']] });
    expect(response.status).toBe(400);
  });

  it('returns 400 for page 0 when pages start at 1', async () => {
    const response = await signedGet(reference.url, acme, '/v2/accounts', { query: [['page', '0']] });
    expect(response.status).toBe(400);
  });

  it('returns an empty items array past the last page', async () => {
    const body = (await signedJson(reference.url, acme, '/v2/transactions', { query: [['page', '99']] })) as {
      items: unknown[];
    };
    expect(body.items).toEqual([]);
  });

  it('returns 400 naming the cursor parameter for a cursor of another listing', async () => {
    const shape = STYLES[3]?.[1] as ServiceShapeOverrides;
    const sim = await startSimulator({ rateLimitPerSecond: 0, shape });
    try {
      const first = (await signedJson(sim.url, acme, '/v2/transactions', { query: [['t', 'ETH']] })) as {
        paging: { next: string };
      };
      const response = await signedGet(sim.url, acme, '/v2/transactions', {
        query: [
          ['t', 'BTC'],
          ['cursor', first.paging.next],
        ],
      });
      const body = (await response.json()) as { error: { message: string } };
      expect([response.status, body.error.message.split(':')[0]]).toEqual([400, 'cursor']);
    } finally {
      await sim.close();
    }
  });

  it('returns a Link next URL that keeps the filters and omits timestamp and signature', async () => {
    const shape = STYLES[4]?.[1] as ServiceShapeOverrides;
    const sim = await startSimulator({ rateLimitPerSecond: 0, shape, basePath: '/api' });
    try {
      const response = await signedGet(sim.url, acme, '/v2/transactions', {
        query: FILTER,
        basePath: '/api',
      });
      const link = response.headers.get('link') ?? '';
      const next = new URL(/<([^>]+)>/.exec(link)?.[1] ?? 'http://invalid/');
      expect([next.pathname, next.searchParams.get('t'), next.searchParams.has('timestamp')]).toEqual([
        '/api/v2/transactions',
        'ETH',
        false,
      ]);
    } finally {
      await sim.close();
    }
  });

  it('pages accounts and ledgers with the same items path', async () => {
    const shape: ServiceShapeOverrides = {
      itemsPath: 'data.rows',
      pagination: { ...(STYLES[2]?.[1].pagination as Pagination), limit: 2 } as Pagination,
    };
    const sim = await startSimulator({ rateLimitPerSecond: 0, shape });
    try {
      const accounts = await fetchAllItems(sim.url, acme, '/v2/accounts', [], shape);
      const ledgers = await fetchAllItems(sim.url, acme, '/v2/ledgers', [], shape);
      const plain = (await signedJson(reference.url, acme, '/v2/ledgers')) as { items: unknown[] };
      expect(accounts.length).toBeGreaterThanOrEqual(3);
      expect(ledgers).toEqual(plain.items);
    } finally {
      await sim.close();
    }
  });
});
