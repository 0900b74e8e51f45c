import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PbsListingError } from '../pbs/errors.ts';
import type { Page, RawTransaction, TransactionQuery } from '../pbs/model.ts';
import {
  type FetchShard,
  fetchShards,
  IncompleteShardError,
  InconsistentShardError,
  shardQuery,
} from './fetch.ts';
import { readNdjson } from './snapshot.ts';

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

  it('accepts a shard without a reported total by its fetched count', async () => {
    const source = scriptedSource([[page(['a', 'b'], null)]]);
    const [fetched] = await fetchShards(
      source,
      [shard('s1')],
      {},
      { workDir, concurrency: 1, shardAttempts: 1 },
    );
    expect(fetched).toMatchObject({ rows: 2, totalReported: null });
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
