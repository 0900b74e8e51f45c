import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PbsListingError } from '../../pbs/errors.ts';
import type { Page, RawTransaction, TransactionQuery } from '../../pbs/model.ts';
import { type PageRequestOptions, paginate } from '../../pbs/pagination.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../../pbs/shape.ts';
import { readNdjson, readNdjsonLines } from '../snapshot/snapshot.ts';
import {
  checkWindowCoverage,
  type FetchShard,
  fetchShards,
  IncompleteShardError,
  IncompleteWindowError,
  InconsistentShardError,
  shardQuery,
  startFetch,
  UnconfirmedShardError,
} from './fetch.ts';

const window = {
  index: 0,
  start: new Date('2025-01-01T00:00:00.000Z'),
  end: new Date('2025-02-01T00:00:00.000Z'),
};
const shard = (id: string, protocol: string | null = null): FetchShard => ({ id, window, protocol });

/** A page source that answers each call with the next scripted listing. */
function scriptedSource(listings: Page<RawTransaction>[][]) {
  const queries: TransactionQuery[] = [];
  return {
    queries,
    async *transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>> {
      queries.push(query);
      const listing = listings.shift() ?? [];
      for (const page of listing) yield page;
    },
  };
}

const page = (ids: string[], totalItems: number | null, index = 0): Page<RawTransaction> => ({
  items: ids.map((id) => ({ id, date: '2025-01-02T00:00:00.000Z' })),
  totalItems,
  index,
});

const PAGE_SIZE = 2;
const BASE = { baseUrl: 'http://host.test', origin: 'http://host.test', basePathname: '' };
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise<void>((resolve) => setImmediate(resolve));
};

interface ServedPage {
  protocol: string;
  page: number;
}

/**
 * A source that schedules its requests, paging through the client's own `paginate` (page numbers
 * with totals, PAGE_SIZE per page) over an in-memory service: each protocol has `sizes[protocol]`
 * items `<protocol>-<n>`. Requests in flight are counted, overall and per protocol; `respond`
 * may hold a request back before it answers (by default later pages answer first).
 */
function pagedSource(
  sizes: Record<string, number>,
  options: {
    respond?: (request: ServedPage) => Promise<void>;
    totalOf?: (request: ServedPage & { attempt: number }) => number;
  } = {},
) {
  const state = {
    inFlight: 0,
    maxInFlight: 0,
    maxInFlightOf: {} as Record<string, number>,
    requests: [] as ServedPage[],
    listings: 0,
  };
  const inFlightOf: Record<string, number> = {};
  const respond = options.respond ?? (({ page }) => turns(10 - Math.min(page, 9)));
  return {
    state,
    schedulesRequests: true as const,
    transactionPages(
      query: TransactionQuery,
      requests?: PageRequestOptions,
    ): AsyncIterable<Page<RawTransaction>> {
      const protocol = query.protocol ?? '';
      state.listings += 1;
      const attempt = state.listings;
      return paginate<RawTransaction>({
        shape: {
          ...DEFAULT_SHAPE,
          pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: PAGE_SIZE },
        },
        base: BASE,
        signedPath: '/v2/transactions',
        params: [['p', protocol]],
        validate: (items) => items as RawTransaction[],
        ...requests,
        fetchJson: async (target) => {
          const page = Number(new URLSearchParams(target.query).get('page'));
          const request = { protocol, page };
          state.requests.push(request);
          state.inFlight += 1;
          inFlightOf[protocol] = (inFlightOf[protocol] ?? 0) + 1;
          state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
          state.maxInFlightOf[protocol] = Math.max(
            state.maxInFlightOf[protocol] ?? 0,
            inFlightOf[protocol] ?? 0,
          );
          try {
            await respond(request);
          } finally {
            state.inFlight -= 1;
            inFlightOf[protocol] = (inFlightOf[protocol] ?? 0) - 1;
          }
          const size = sizes[protocol] ?? 0;
          const totalItems = options.totalOf?.({ ...request, attempt }) ?? size;
          const ids = Array.from({ length: size }, (_, n) => `${protocol}-${n}`);
          const items = ids
            .slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE)
            .map((id) => ({ id, date: '2025-01-02T00:00:00.000Z' }));
          const body = { items, totalItems, totalPages: Math.ceil(totalItems / PAGE_SIZE) };
          return { body, headers: new Headers(), unsignedUrl: `${target.endpoint}?${target.query}` };
        },
      });
    },
  };
}

const idsOf = (protocol: string, count: number) =>
  Array.from({ length: count }, (_, n) => `${protocol}-${n}`);

async function readIds(file: string): Promise<string[]> {
  const ids: string[] = [];
  for await (const record of readNdjson(file)) ids.push((record as { id: string }).id);
  return ids;
}

describe('fetchShards', () => {
  let workDir: string;
  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'pbs-fetch-'));
  });
  afterEach(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('writes every page of a shard to its part file in service order', async () => {
    const source = scriptedSource([[page(['a', 'b'], 3, 0), page(['c'], 3, 1)]]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 2, shardAttempts: 1 },
    );
    expect(fetched?.rows).toBe(3);
    expect(await readIds(fetched?.partFile ?? '')).toEqual(['a', 'b', 'c']);
  });

  it('writes plain NDJSON part files with compressParts false, the same lines as the gzip ones', async () => {
    const fields = { id: 'id', date: 'date' };
    const fetchTo = async (compressParts: boolean) => {
      const source = scriptedSource([[page(['a', 'b'], 3, 0), page(['c'], 3, 1)]]);
      const [fetched] = await fetchShards(
        source,
        [shard('s1')],
        {},
        { workDir, concurrency: 1, shardAttempts: 1, fields, compressParts },
      );
      return fetched?.partFile ?? '';
    };
    const gzipped = await fetchTo(true);
    const plain = await fetchTo(false);
    expect(plain).not.toBe(gzipped);
    const plainText = await readFile(plain, 'utf8');
    // Each line: the instant, the id, then the JSON marked plain (`p`), as `encodePartLine` writes it.
    const at = Date.parse('2025-01-02T00:00:00.000Z');
    expect(plainText).toBe(
      ['a', 'b', 'c']
        .map((id) => `${at}\t"${id}"\tp{"id":"${id}","date":"2025-01-02T00:00:00.000Z"}\n`)
        .join(''),
    );
    expect((await readFile(gzipped)).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
    const lines = async (file: string) => {
      const read: string[] = [];
      for await (const line of readNdjsonLines(file)) read.push(line);
      return read;
    };
    expect(await lines(gzipped)).toEqual(await lines(plain));
  });

  it('says a shard is in order only when its lines came by instant and no id came twice', async () => {
    const fields = { id: 'id', date: 'date' };
    const dated = (pairs: [string, string][], totalItems: number, index = 0): Page<RawTransaction> => ({
      items: pairs.map(([id, day]) => ({ id, date: `2025-01-${day}T00:00:00.000Z` })),
      totalItems,
      index,
    });
    const inOrderOf = async (listings: Page<RawTransaction>[][]) => {
      const [fetched] = await fetchShards(
        scriptedSource(listings),
        [shard('s1')],
        {},
        { workDir, concurrency: 1, shardAttempts: 3, fields, compressParts: false },
      );
      return fetched?.inOrder;
    };
    // Equal instants may come in any id order; a later page may not go back in time.
    const ordered = [
      dated(
        [
          ['b', '02'],
          ['a', '02'],
        ],
        3,
        0,
      ),
      dated([['c', '03']], 3, 1),
    ];
    expect(await inOrderOf([ordered])).toBe(true);
    const backwards = [
      dated(
        [
          ['b', '03'],
          ['a', '02'],
        ],
        3,
        0,
      ),
      dated([['c', '04']], 3, 1),
    ];
    expect(await inOrderOf([backwards])).toBeUndefined();
    // The service's own duplicates, confirmed by three identical listings: in date order, but not "in order".
    const twice = [
      dated(
        [
          ['a', '02'],
          ['a', '02'],
        ],
        2,
        0,
      ),
    ];
    expect(await inOrderOf([twice, twice, twice])).toBeUndefined();
  });

  it('refetches a shard whose fetched count disagrees with the reported total', async () => {
    const source = scriptedSource([[page(['a'], 2)], [page(['a', 'b'], 2)]]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 3 },
    );
    expect(fetched?.attempts).toBe(2);
    expect(await readIds(fetched?.partFile ?? '')).toEqual(['a', 'b']);
  });

  it('rejects with IncompleteShardError when every attempt comes back short', async () => {
    const source = scriptedSource([[page(['a'], 2)], [page(['a'], 2)]]);
    await expect(
      fetchShards(source, [shard('s1')], {}, { workDir, concurrency: 1, shardAttempts: 2 }),
    ).rejects.toBeInstanceOf(IncompleteShardError);
  });

  it('returns results in shard order whatever order the shards finish in', async () => {
    const source = scriptedSource([[page(['x'], 1)], [page(['y'], 1)], [page(['z'], 1)]]);
    const shards = [shard('s1', 'A'), shard('s2', 'B'), shard('s3', 'C')];
    const fetched = await fetchShards(source, shards, {}, { workDir, concurrency: 3, shardAttempts: 1 });
    expect(fetched.map((f) => f.shard.id)).toEqual(['s1', 's2', 's3']);
  });

  it('refetches a shard whose listing repeats an id with a matching count, as when data shifts between pages', async () => {
    // Page 2 repeats "b" and misses "c": the count still matches the total.
    const source = scriptedSource([
      [page(['a', 'b'], 4, 0), page(['b', 'd'], 4, 1)],
      [page(['a', 'b'], 4, 0), page(['c', 'd'], 4, 1)],
    ]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 3, idField: 'id' },
    );
    expect(fetched?.attempts).toBe(2);
    expect(await readIds(fetched?.partFile ?? '')).toEqual(['a', 'b', 'c', 'd']);
  });

  it('rejects with InconsistentShardError when the repeated ids differ on every attempt', async () => {
    const source = scriptedSource([[page(['a', 'a'], 2)], [page(['b', 'b'], 2)]]);
    await expect(
      fetchShards(source, [shard('s1')], {}, { workDir, concurrency: 1, shardAttempts: 2, idField: 'id' }),
    ).rejects.toBeInstanceOf(InconsistentShardError);
  });

  it('accepts duplicates the service returns the same way on three attempts in a row', async () => {
    const same = () => [page(['a', 'a', 'b'], 3)];
    const source = scriptedSource([same(), same(), same()]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 3, idField: 'id' },
    );
    expect(fetched).toMatchObject({ rows: 3, attempts: 3 });
  });

  it('refuses duplicates listed the same way on only two attempts in a row', async () => {
    const source = scriptedSource([[page(['a', 'a', 'b'], 3)], [page(['a', 'a', 'b'], 3)]]);
    await expect(
      fetchShards(source, [shard('s1')], {}, { workDir, concurrency: 1, shardAttempts: 2, idField: 'id' }),
    ).rejects.toBeInstanceOf(InconsistentShardError);
  });

  it('refetches a shard whose listing repeated a page', async () => {
    let calls = 0;
    const source = {
      async *transactionPages(): AsyncIterable<Page<RawTransaction>> {
        calls += 1;
        if (calls === 1) throw new PbsListingError('/v2/transactions', '(page)', 'same page twice');
        yield page(['a'], 1);
      },
    };
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 2 },
    );
    expect(fetched?.attempts).toBe(2);
  });

  it('rejects, without hanging, when a shard fails while others wait in the queue', async () => {
    const source = {
      async *transactionPages(): AsyncIterable<Page<RawTransaction>> {
        yield* [];
        throw new Error('service down');
      },
    };
    const shards = [shard('s1', 'A'), shard('s2', 'B'), shard('s3', 'C'), shard('s4', 'D')];
    await expect(
      fetchShards(source, shards, {}, { workDir, concurrency: 1, shardAttempts: 1 }),
    ).rejects.toThrow('service down');
  });

  it('accepts a shard without a reported total once a second listing gives the same ids', async () => {
    const source = scriptedSource([[page(['a', 'b'], null)], [page(['a', 'b'], null)]]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 1, idField: 'id' },
    );
    expect(fetched).toMatchObject({
      rows: 2,
      totalReported: null,
      attempts: 2,
      completeness: 'second-listing',
    });
    expect(source.queries).toHaveLength(2);
  });

  it('takes rows of one date in another order on the second listing as the same listing', async () => {
    const source = scriptedSource([[page(['a', 'b', 'c'], null)], [page(['c', 'a', 'b'], null)]]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 1, idField: 'id' },
    );
    expect(fetched).toMatchObject({ rows: 3, completeness: 'second-listing' });
  });

  it('lists a shard without a total again when two listings disagree, keeping the one confirmed', async () => {
    // The first listing lost `b` (a row moved between two page requests); the third, in one page,
    // holds the second's page boundary (between `b` and `c`) inside a page.
    const source = scriptedSource([
      [page(['a'], null, 0), page(['c'], null, 1)],
      [page(['a', 'b'], null, 0), page(['c'], null, 1)],
      [page(['a', 'b', 'c'], null, 0)],
    ]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 3, idField: 'id' },
    );
    expect(fetched).toMatchObject({ rows: 3, attempts: 3, completeness: 'second-listing' });
    expect(await readIds(fetched?.partFile as string)).toEqual(['a', 'b', 'c']);
  });

  it('keeps only the transactions of no searched protocol in a rest shard, counting every one listed', async () => {
    const items = [
      { id: 'a', date: '2025-01-02T00:00:00.000Z', protocol: 'Aave V3' },
      { id: 'b', date: '2025-01-02T00:00:00.000Z', protocol: null },
      { id: 'c', date: '2025-01-02T00:00:00.000Z' },
      { id: 'd', date: '2025-01-02T00:00:00.000Z', protocol: 'Unlisted' },
    ];
    const source = scriptedSource([[{ items, totalItems: 4, index: 0 }]]);
    const rest = { ...shard('2025-01~none'), otherThan: ['Aave V3'] };
    const [fetched] = await fetchShards(source, [rest], {}, { workDir, concurrency: 1, shardAttempts: 1 });
    expect(fetched).toMatchObject({ rows: 3, listed: 4, completeness: 'total' });
    expect(await readIds(fetched?.partFile as string)).toEqual(['b', 'c', 'd']);
    expect(source.queries[0]?.protocol).toBeUndefined();
  });

  it('fails with UnconfirmedShardError when listings without a total keep disagreeing', async () => {
    const source = scriptedSource([
      [page(['a'], null)],
      [page(['a', 'b'], null)],
      [page(['b'], null)],
      [page(['a', 'b', 'c'], null)],
    ]);
    const run = fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 3, idField: 'id' },
    );
    await expect(run).rejects.toBeInstanceOf(UnconfirmedShardError);
    // The last two listings are the ones named: 1 id, then 3.
    await expect(run).rejects.toThrow('(1 then 3 transactions');
    expect(source.queries).toHaveLength(4);
  });
});

describe('startFetch with a source that schedules its requests', () => {
  let workDir: string;
  beforeEach(async () => {
    workDir = await mkdtemp(join(tmpdir(), 'pbs-fetch-'));
  });
  afterEach(async () => {
    await rm(workDir, { recursive: true, force: true });
  });

  it('requests the pages of one shard at once, never more than concurrency, and writes them in page order', async () => {
    // 7 pages; later pages answer first.
    const source = pagedSource({ A: 13 });
    const [fetched] = await fetchShards(
      source,
      [shard('s1', 'A')],
      {},
      { workDir, concurrency: 3, shardAttempts: 1, idField: 'id' },
    );

    expect(source.state.maxInFlight).toBe(3);
    expect(source.state.requests.map((r) => r.page)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(fetched).toMatchObject({ rows: 13, totalReported: 13, attempts: 1 });
    expect(await readIds(fetched?.partFile ?? '')).toEqual(idsOf('A', 13));
  });

  it('keeps at most concurrency requests in flight over every shard of the run', async () => {
    const sizes = { A: 9, B: 1, C: 12, D: 7, E: 0, F: 10 };
    const source = pagedSource(sizes);
    const shards = Object.keys(sizes).map((protocol, i) => shard(`s${i}`, protocol));

    const fetched = await fetchShards(source, shards, {}, { workDir, concurrency: 4, shardAttempts: 1 });

    expect(source.state.maxInFlight).toBe(4);
    expect(Math.max(...Object.values(source.state.maxInFlightOf))).toBeGreaterThan(1);
    expect(fetched.map((f) => f.shard.id)).toEqual(shards.map((s) => s.id));
    for (const [i, protocol] of Object.keys(sizes).entries()) {
      const count = sizes[protocol as keyof typeof sizes];
      expect(fetched[i]?.rows).toBe(count);
      expect(await readIds(fetched[i]?.partFile ?? '')).toEqual(idsOf(protocol, count));
    }
  });

  it('fetches a shard again when its total changes between pages requested at once', async () => {
    // The first listing's fourth page reports one item more than its first page did.
    const source = pagedSource(
      { A: 9 },
      { totalOf: ({ attempt, page }) => (attempt === 1 && page === 4 ? 10 : 9) },
    );
    const [fetched] = await fetchShards(
      source,
      [shard('s1', 'A')],
      {},
      { workDir, concurrency: 3, shardAttempts: 2 },
    );

    expect(fetched).toMatchObject({ rows: 9, attempts: 2 });
    expect(await readIds(fetched?.partFile ?? '')).toEqual(idsOf('A', 9));
  });

  it('resolves an early shard while a later one is still being fetched', async () => {
    let openGate: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      openGate = resolve;
    });
    // Shard B's first page waits until the test has shard A in hand.
    const source = pagedSource({ A: 5, B: 3 }, { respond: (r) => (r.protocol === 'B' ? gate : turns(1)) });
    const run = startFetch(
      source,
      [shard('s1', 'A'), shard('s2', 'B')],
      {},
      { workDir, concurrency: 2, shardAttempts: 1 },
    );

    const first = await run.shard(0);
    expect(first).toMatchObject({ rows: 5 });
    expect(source.state.inFlight).toBe(1);
    openGate();
    const all = await run.done;
    expect(all[0]).toBe(first);
    expect(await run.shard(1)).toBe(all[1]);
  });

  it('rejects every unfinished shard with the run error once the run settles, with no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const failing = {
        schedulesRequests: true as const,
        async *transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>> {
          await turns(1);
          if (query.protocol === 'A') throw new Error('service down');
          yield page(['x'], 1);
        },
      };
      const shards = ['A', 'B', 'C', 'D', 'E', 'F'].map((p, i) => shard(`s${i}`, p));
      // A fails; the shard started in its place may finish, the last ones never start.
      const run = startFetch(failing, shards, {}, { workDir, concurrency: 1, shardAttempts: 1 });

      await expect(run.done).rejects.toThrow('service down');
      await turns(3);
      expect(unhandled).toEqual([]);
      const error = await run.done.catch((e: unknown) => e);
      const outcomes = await Promise.allSettled(shards.map((_, i) => run.shard(i)));
      for (const outcome of outcomes) {
        if (outcome.status === 'rejected') expect(outcome.reason).toBe(error);
      }
      expect(outcomes[0]).toEqual({ status: 'rejected', reason: error });
      expect(outcomes[5]).toEqual({ status: 'rejected', reason: error });
      await expect(run.shard(6)).rejects.toBeInstanceOf(RangeError);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });

  it('starts no further shard once stopped, lets the running one finish, and then rejects', async () => {
    const started: string[] = [];
    const source = {
      async *transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>> {
        started.push(String(query.protocol));
        await turns(2);
        yield page([`${query.protocol}-1`], 1);
      },
    };
    const shards = ['A', 'B', 'C', 'D'].map((p, i) => shard(`s${i}`, p));
    const run = startFetch(source, shards, {}, { workDir, concurrency: 1, shardAttempts: 1 });
    await turns(1);
    run.stop();

    await expect(run.done).rejects.toThrow();
    expect(started).toEqual(['A']);
    expect(await run.shard(0)).toMatchObject({ rows: 1 });
    await expect(run.shard(3)).rejects.toThrow();
  });

  it('runs at most concurrency shards at once for a source that does not schedule its requests', async () => {
    let active = 0;
    let maxActive = 0;
    const source = {
      async *transactionPages(): AsyncIterable<Page<RawTransaction>> {
        active += 1;
        maxActive = Math.max(maxActive, active);
        try {
          await turns(2);
          yield page(['a'], 1);
        } finally {
          active -= 1;
        }
      },
    };
    const shards = ['A', 'B', 'C', 'D', 'E'].map((p, i) => shard(`s${i}`, p));

    await fetchShards(source, shards, {}, { workDir, concurrency: 2, shardAttempts: 1 });

    expect(maxActive).toBe(2);
  });
});

describe('shardQuery', () => {
  it('returns the window, protocol and filters of the shard sorted by date', () => {
    expect(shardQuery(shard('s', 'Aave V3'), { tokens: ['ETH'], category: 'trade' })).toEqual({
      window: { start: window.start, end: window.end },
      tokens: ['ETH'],
      category: 'trade',
      protocol: 'Aave V3',
      sort: 'date',
      order: 'asc',
    });
  });

  it('returns the hash alone when a hash is given, because the service ignores other filters', () => {
    expect(shardQuery(shard('s', 'Aave V3'), { tokens: ['ETH'], hash: '0xabc' })).toEqual({
      hash: '0xabc',
      sort: 'date',
      order: 'asc',
    });
  });
});

describe('checkWindowCoverage', () => {
  const fetchedShard = (id: string, rows: number, extra: Partial<FetchShard> = {}, listed?: number) => ({
    shard: { ...shard(id), ...extra },
    partFile: '',
    rows,
    totalReported: null,
    attempts: 1,
    completeness: 'total' as const,
    ...(listed !== undefined ? { listed } : {}),
  });

  it('accepts a window whose protocol searches and rest add up to the unfiltered listing', () => {
    expect(() =>
      checkWindowCoverage([
        fetchedShard('w~aave', 7, { protocol: 'Aave V3' }),
        fetchedShard('w~lido', 3, { protocol: 'Lido' }),
        fetchedShard('w~none', 5, { otherThan: ['Aave V3', 'Lido'] }, 15),
      ]),
    ).not.toThrow();
  });

  it('refuses a window where a protocol search returned fewer than the unfiltered search shows', () => {
    expect(() =>
      checkWindowCoverage([
        fetchedShard('w~aave', 6, { protocol: 'Aave V3' }),
        fetchedShard('w~none', 5, { otherThan: ['Aave V3'] }, 12),
      ]),
    ).toThrow(IncompleteWindowError);
  });
});
