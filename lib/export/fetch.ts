import { join } from 'node:path';
import pLimit from 'p-limit';
import { PbsExportError } from '../errors.ts';
import type { Page, RawTransaction, TransactionQuery } from '../pbs/model.ts';
import { createNdjsonWriter } from './snapshot.ts';

/** What the fetch stage needs of the service client. */
export interface TransactionPageSource {
  transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>>;
}

/** One unit of fetching: a date window, optionally narrowed to one protocol. */
export interface FetchShard {
  id: string;
  window: { index: number; start: Date; end: Date };
  protocol: string | null;
}

/** Filters applied to every shard's search besides its window and protocol. */
export interface FetchFilters {
  tokens?: readonly string[];
  category?: string;
  hash?: string;
}

/** A shard fetched in full to its part file. */
export interface FetchedShard {
  shard: FetchShard;
  /** Gzip NDJSON file of the raw transactions, in the order the service sent them. */
  partFile: string;
  rows: number;
  /** The total the service reported, when it reports one. */
  totalReported: number | null;
  attempts: number;
}

export interface FetchProgress {
  shard: string;
  page: number;
  rows: number;
}

export interface FetchOptions {
  /** Folder for the part files; one file per shard. */
  workDir: string;
  /** Shards fetched at once. The client's rate limit still bounds requests per second. */
  concurrency: number;
  /** Whole-shard attempts when the fetched count disagrees with the service's total. */
  shardAttempts: number;
  onPage?: (progress: FetchProgress) => void;
  onShardDone?: (shard: FetchedShard) => void;
}

/** The service's reported total and the items it actually returned disagree. */
export class IncompleteShardError extends PbsExportError {
  readonly shardId: string;
  readonly fetched: number;
  readonly reported: number;

  constructor(shardId: string, fetched: number, reported: number) {
    super(
      'incomplete_fetch',
      `shard ${shardId}: fetched ${fetched} transactions but the service reported ${reported}`,
    );
    this.shardId = shardId;
    this.fetched = fetched;
    this.reported = reported;
  }
}

/**
 * Fetches every shard with bounded concurrency, each to its own part file. A shard whose
 * fetched count disagrees with the service's reported total is fetched again, up to
 * `shardAttempts` times; the first shard that still fails stops the remaining ones and rejects.
 * Results come back in shard order, whatever order they finished in.
 */
export async function fetchShards(
  client: TransactionPageSource,
  shards: readonly FetchShard[],
  filters: FetchFilters,
  options: FetchOptions,
): Promise<FetchedShard[]> {
  const limit = pLimit(Math.max(1, options.concurrency));
  const tasks = shards.map((shard, index) =>
    limit(() =>
      fetchShardWithRetry(client, shard, filters, join(options.workDir, `part-${index}.ndjson.gz`), options),
    ),
  );
  try {
    return await Promise.all(tasks);
  } catch (error) {
    limit.clearQueue();
    await Promise.allSettled(tasks);
    throw error;
  }
}

async function fetchShardWithRetry(
  client: TransactionPageSource,
  shard: FetchShard,
  filters: FetchFilters,
  partFile: string,
  options: FetchOptions,
): Promise<FetchedShard> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      const { rows, totalReported } = await fetchShardOnce(client, shard, filters, partFile, options);
      const fetched = { shard, partFile, rows, totalReported, attempts: attempt };
      options.onShardDone?.(fetched);
      return fetched;
    } catch (error) {
      if (!(error instanceof IncompleteShardError) || attempt >= options.shardAttempts) throw error;
    }
  }
}

async function fetchShardOnce(
  client: TransactionPageSource,
  shard: FetchShard,
  filters: FetchFilters,
  partFile: string,
  options: FetchOptions,
): Promise<{ rows: number; totalReported: number | null }> {
  // Part files are scratch: fast compression, the snapshot is compressed properly.
  const writer = createNdjsonWriter(partFile, { level: 1 });
  let rows = 0;
  let totalReported: number | null = null;
  try {
    for await (const page of client.transactionPages(shardQuery(shard, filters))) {
      if (page.totalItems !== null) {
        if (totalReported !== null && totalReported !== page.totalItems) {
          throw new IncompleteShardError(shard.id, rows, page.totalItems);
        }
        totalReported = page.totalItems;
      }
      for (const item of page.items) await writer.write(item);
      rows += page.items.length;
      options.onPage?.({ shard: shard.id, page: page.index, rows: page.items.length });
    }
    await writer.close();
  } catch (error) {
    writer.destroy();
    throw error;
  }
  if (totalReported !== null && rows !== totalReported) {
    throw new IncompleteShardError(shard.id, rows, totalReported);
  }
  return { rows, totalReported };
}

/** The search of one shard: its window and protocol plus the request's filters, sorted by date. */
export function shardQuery(shard: FetchShard, filters: FetchFilters): TransactionQuery {
  if (filters.hash !== undefined) {
    return { hash: filters.hash, sort: 'date', order: 'asc' };
  }
  return {
    window: { start: shard.window.start, end: shard.window.end },
    ...(filters.tokens?.length ? { tokens: filters.tokens } : {}),
    ...(filters.category !== undefined ? { category: filters.category } : {}),
    ...(shard.protocol !== null ? { protocol: shard.protocol } : {}),
    sort: 'date',
    order: 'asc',
  };
}
