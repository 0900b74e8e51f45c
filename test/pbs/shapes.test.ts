import { beforeAll, describe, expect, it } from 'vitest';
import type { RawTransaction } from '../../lib/pbs/model.ts';
import { getPath } from '../../lib/pbs/path.ts';
import { resolveShape, type ServiceShapeOverrides } from '../../lib/pbs/shape.ts';
import { closeSimulatorsAfterEach, drain, idsOf, startHarness } from './harness.ts';

closeSimulatorsAfterEach();

interface Snapshot {
  accounts: unknown[];
  ledgers: unknown[];
  transactions: unknown[];
  timeline: unknown[];
  deleted: unknown[];
  pages: number;
}

const SINCE = new Date('2020-01-01T00:00:00.000Z');

/** Reads every listing through a client configured with `shape` from a simulator serving it. */
async function snapshot(shape: ServiceShapeOverrides): Promise<Snapshot> {
  const h = await startHarness({ shape });
  const client = h.client();
  const fields = resolveShape(shape).fields;
  const idOf = (tx: RawTransaction) => getPath(tx, fields.id);
  const pages = await drain(client.transactionPages());
  const timeline = await drain(client.timeline({ lastModifiedDate: SINCE }));
  return {
    accounts: (await drain(client.accounts())).map((a) => a.id),
    ledgers: (await drain(client.ledgers())).map((l) => l.id),
    transactions: pages.flatMap((p) => p.items).map(idOf),
    timeline: timeline.map(idOf),
    deleted: timeline.filter((tx) => getPath(tx, fields.deleted) === true).map(idOf),
    pages: pages.length,
  };
}

describe('PbsClient with each wire shape of GAPS.md', () => {
  let reference: Snapshot;

  beforeAll(async () => {
    reference = await snapshot({});
  });

  it('returns a reference with deleted timeline items', () => {
    expect(reference.transactions.length).toBeGreaterThan(300);
    expect(reference.deleted.length).toBeGreaterThan(0);
  });

  it.each<[string, ServiceShapeOverrides]>([
    [
      'page numbers with totals and small pages',
      {
        pagination: {
          style: 'page',
          pageParam: 'page',
          pageSizeParam: 'pageSize',
          pageSize: 37,
          firstPage: 1,
          totalItemsPath: 'totalItems',
          totalPagesPath: 'totalPages',
        },
      },
    ],
    [
      'page numbers from 0 without totals',
      {
        pagination: {
          style: 'page',
          pageParam: 'p_no',
          pageSizeParam: 'size',
          pageSize: 50,
          firstPage: 0,
          totalItemsPath: null,
          totalPagesPath: null,
        },
      },
    ],
    [
      'offset/limit with a total',
      {
        pagination: {
          style: 'offset',
          offsetParam: 'offset',
          limitParam: 'limit',
          limit: 40,
          totalItemsPath: 'total',
        },
      },
    ],
    [
      'offset/limit without a total',
      {
        pagination: {
          style: 'offset',
          offsetParam: 'skip',
          limitParam: 'take',
          limit: 39,
          totalItemsPath: null,
        },
      },
    ],
    [
      'a cursor in a nested response field',
      {
        pagination: {
          style: 'cursor',
          cursorParam: 'cursor',
          limitParam: 'limit',
          limit: 45,
          next: { from: 'field', path: 'paging.next' },
          totalItemsPath: 'paging.total',
        },
      },
    ],
    [
      'a cursor in a Link header',
      {
        pagination: {
          style: 'cursor',
          cursorParam: 'after',
          limitParam: 'limit',
          limit: 60,
          next: { from: 'link-header' },
          totalItemsPath: null,
        },
      },
    ],
    [
      'a cursor without a limit parameter, items in a bare array',
      {
        itemsPath: null,
        pagination: {
          style: 'cursor',
          cursorParam: 'c',
          limitParam: null,
          limit: 100,
          next: { from: 'link-header' },
          totalItemsPath: null,
        },
      },
    ],
    [
      'items in a bare array with offset paging',
      {
        itemsPath: null,
        pagination: {
          style: 'offset',
          offsetParam: 'offset',
          limitParam: 'limit',
          limit: 50,
          totalItemsPath: null,
        },
      },
    ],
    ['items at a nested path', { itemsPath: 'data.records' }],
    ['another timeline path', { timeline: { path: '/v2/timeline' } }],
    ['lastModifiedDate as an ISO date', { timeline: { lastModifiedDateFormat: 'iso-date' } }],
    ['lastModifiedDate as epoch milliseconds', { timeline: { lastModifiedDateFormat: 'epoch-millis' } }],
    [
      'a field mapping with nested and renamed fields',
      {
        fields: {
          id: 'ref.txId',
          date: 'when.at',
          deleted: 'isDeleted',
          sourceGuid: 'origin.guid',
          subType: 'kind',
        },
      },
    ],
  ])('returns the same data as the default shape with %s', async (_name, shape) => {
    const result = await snapshot(shape);

    expect({ ...result, pages: 0 }).toEqual({ ...reference, pages: 0 });
  });

  it('returns several pages when the page size is smaller than the data', async () => {
    const result = await snapshot({
      pagination: {
        style: 'offset',
        offsetParam: 'offset',
        limitParam: 'limit',
        limit: 40,
        totalItemsPath: null,
      },
    });

    expect(result.pages).toBe(Math.floor(reference.transactions.length / 40) + 1);
  });
});

describe('PbsClient date window formats', () => {
  const start = new Date('2024-03-10T12:00:00.000Z');
  const end = new Date('2024-09-20T06:30:00.000Z');
  type Dated = { id: string; date: string };
  const inWindow = (items: Dated[]) =>
    items.filter((tx) => tx.date >= start.toISOString() && tx.date < end.toISOString());

  /** Reads the window through the default shape and through `window`; returns both. */
  async function readWindow(window: ServiceShapeOverrides['window']) {
    const reference = await startHarness();
    const all = (await drain(reference.client().transactions())) as Dated[];
    const h = await startHarness({ shape: { window } });
    const result = (await drain(h.client().transactions({ window: { start, end } }))) as Dated[];
    return { expected: inWindow(all), result, query: h.sim.requestLog.at(-1)?.query ?? [] };
  }

  it.each([
    ['iso-instant', 'from', 'to'],
    ['epoch-millis', 'since', 'until'],
  ] as const)(
    'returns exactly the [start, end) window for %s under other parameter names',
    async (format, startParam, endParam) => {
      const { expected, result, query } = await readWindow({ startParam, endParam, dateFormat: format });

      expect(idsOf(result)).toEqual(idsOf(expected));
      expect(query.map(([k]) => k)).toEqual(expect.arrayContaining([startParam, endParam]));
    },
  );

  it('returns a day-granular superset of the window for iso-date, exact once filtered by date', async () => {
    const { expected, result, query } = await readWindow({ dateFormat: 'iso-date' });

    expect(query).toEqual(
      expect.arrayContaining([
        ['startDate', '2024-03-10'],
        ['endDate', '2024-09-20'],
      ]),
    );
    expect(result.length).toBeGreaterThan(expected.length);
    expect(idsOf(inWindow(result))).toEqual(idsOf(expected));
  });
});

describe('PbsClient metadata and date-bounds layouts', () => {
  it('returns protocols from a bare array and bounds from other field names', async () => {
    const reference = await startHarness();
    const expectedBounds = await reference.client().dateBounds();
    const expectedProtocols = await reference.client().defiProtocols();
    const h = await startHarness({
      shape: {
        metadata: { protocolsPath: null },
        dateBounds: { earliestPath: 'range.first', latestPath: 'range.last' },
      },
    });

    expect(await h.client().dateBounds()).toEqual(expectedBounds);
    expect(await h.client().defiProtocols()).toEqual(expectedProtocols);
  });

  it('returns protocols from another field name', async () => {
    const h = await startHarness({ shape: { metadata: { protocolsPath: 'meta.protocols' } } });

    expect((await h.client().defiProtocols()).length).toBeGreaterThan(0);
  });
});
