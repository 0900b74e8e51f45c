import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { PbsExportError } from '../errors.ts';
import { PbsListingError } from '../pbs/errors.ts';
import type { Page, RawTransaction, TransactionQuery } from '../pbs/model.ts';
import { createReadAheadBudget, type PageRequestOptions, type RequestScheduler } from '../pbs/pagination.ts';
import { getPath } from '../pbs/path.ts';
import { encodePartLine, type PartLineFields } from './part-line.ts';
import { createNdjsonWriter } from './snapshot.ts';

/** What the fetch stage needs of the service client. */
export interface TransactionPageSource {
  /**
   * One search, page by page in order. A source that declares {@link schedulesRequests} sends
   * every request through `requests.schedule` and may request pages ahead (`requests.readAhead`).
   */
  transactionPages(
    query: TransactionQuery,
    requests?: PageRequestOptions,
  ): AsyncIterable<Page<RawTransaction>>;
  /**
   * True when `transactionPages` sends every request through `requests.schedule`. The fetch then
   * bounds requests, not only shards: one limiter shared by every shard keeps at most
   * `concurrency` requests in flight, and pages a reported total promises are requested ahead.
   * Otherwise (a source that ignores the options) each shard pages one request at a time.
   */
  readonly schedulesRequests?: boolean;
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
  /**
   * Requests in flight at once over all shards, and shards open at once. The client's rate limit
   * still bounds requests per second.
   */
  concurrency: number;
  /**
   * Whole-shard attempts when a listing is inconsistent: the fetched count disagrees with the
   * service's total, the total changes between pages, an id comes twice, or a page repeats.
   */
  shardAttempts: number;
  /**
   * Dotted path of the transaction id (the shape's `fields.id`). When given, an id seen twice in
   * one shard's listing makes the shard be fetched again (the data shifted between two pages),
   * unless {@link DUPLICATES_CONFIRMED_BY} attempts in a row return the very same ids in the same
   * order (the service's own duplicates, which the snapshot drops and counts).
   */
  idField?: string;
  /**
   * Where each transaction's id and date are: when given, each part line carries them ahead of
   * the JSON (see `encodePartLine`), so the assembly orders lines without parsing them; the ids
   * are checked for repeats as with `idField` (which, when given too, wins for that check).
   */
  fields?: PartLineFields;
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

/** One shard's listing repeated an id, as when data shifts between two page requests. */
export class InconsistentShardError extends PbsExportError {
  readonly shardId: string;
  readonly duplicates: number;

  constructor(shardId: string, duplicates: number, options?: { cause?: unknown }) {
    super(
      'inconsistent_fetch',
      `shard ${shardId}: the listing returned ${duplicates} transaction id(s) twice (the data changed while it was paged)`,
      options,
    );
    this.shardId = shardId;
    this.duplicates = duplicates;
  }
}

/** A fetch under way: each shard's result as soon as it is fetched, and all of them. */
export interface FetchRun {
  /**
   * Resolves when shard `index` (position in the `shards` argument) is fetched in full; rejects,
   * with the run's error, once a failed run has settled. Never an unhandled rejection if unused.
   */
  shard(index: number): Promise<FetchedShard>;
  /** Every shard, in shard order (what {@link fetchShards} returns). */
  done: Promise<FetchedShard[]>;
  /**
   * Starts no further shard, as when the consumer failed: the shards already running finish,
   * and `done` then rejects.
   */
  stop(): void;
}

/**
 * Transactions held in pages requested ahead over the whole run, per allowed request. With as
 * many shards open as requests allowed, pages requested ahead keep the shared limiter's queue
 * from running dry; bounding them by items, not pages, keeps large pages (1 000 items, a few MB
 * parsed) from multiplying the memory the fetch holds (at least one page still goes ahead).
 */
const READ_AHEAD_ITEMS_PER_REQUEST = 250;

/**
 * Starts fetching every shard, each to its own part file, and returns at once. For a source that
 * schedules its requests (see {@link TransactionPageSource.schedulesRequests}) at most
 * `concurrency` requests are in flight over the whole run, and a shard whose listing reports a
 * total has its remaining pages requested at once through that shared limiter, written in page
 * order. A shard whose listing is inconsistent (count or total disagreeing, an id twice, a
 * repeated page) is fetched again, up to `shardAttempts` times; the first shard that still fails
 * stops the remaining ones (queued ones never start) and the run rejects once the running ones
 * have settled. Shards start in order; `done` lists them in shard order, whatever order they
 * finished in.
 */
export function startFetch(
  client: TransactionPageSource,
  shards: readonly FetchShard[],
  filters: FetchFilters,
  options: FetchOptions,
): FetchRun {
  const concurrency = Math.max(1, Math.floor(options.concurrency) || 1);
  const scheduled = client.schedulesRequests === true;
  const requests: PageRequestOptions = {};
  if (scheduled) {
    const requestLimit = pLimit(concurrency);
    const schedule: RequestScheduler = (request) => requestLimit(request);
    requests.schedule = schedule;
    requests.readAhead = concurrency;
    // Pages requested ahead wait in memory until their shard reads them: bounded over the run.
    requests.readAheadBudget = createReadAheadBudget(concurrency * READ_AHEAD_ITEMS_PER_REQUEST);
  }
  // rejectOnClear: cleared tasks must settle, or waiting for them below would never end.
  const limit = pLimit({ concurrency, rejectOnClear: true });
  const settlers = shards.map(() => settleable<FetchedShard>());
  const tasks = shards.map((shard, index) =>
    limit(() =>
      fetchShardWithRetry(
        client,
        shard,
        filters,
        join(options.workDir, `part-${index}.ndjson.gz`),
        options,
        requests,
      ),
    ).then((fetched) => {
      settlers[index]?.resolve(fetched);
      return fetched;
    }),
  );
  const done = (async () => {
    try {
      return await Promise.all(tasks);
    } catch (error) {
      limit.clearQueue();
      await Promise.allSettled(tasks);
      throw error;
    }
  })();
  // A failed run rejects every shard still waiting, once it has settled; a consumer that only
  // awaits shards sees the error there (the failed shard's own promise rejects too).
  done.catch((error: unknown) => {
    for (const settler of settlers) settler.reject(error);
  });
  return {
    shard(index) {
      const settler = settlers[index];
      if (settler === undefined) {
        return Promise.reject(new RangeError(`no shard ${index}: the run has ${shards.length}`));
      }
      return settler.promise;
    },
    done,
    stop: () => limit.clearQueue(),
  };
}

/**
 * Fetches every shard (see {@link startFetch}) and resolves with them in shard order; rejects
 * with the first shard's failure once the running shards have settled.
 */
export function fetchShards(
  client: TransactionPageSource,
  shards: readonly FetchShard[],
  filters: FetchFilters,
  options: FetchOptions,
): Promise<FetchedShard[]> {
  return startFetch(client, shards, filters, options).done;
}

/** A promise settled from outside, whose rejection is never unhandled; the first settle wins. */
function settleable<T>(): { promise: Promise<T>; resolve(value: T): void; reject(error: unknown): void } {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => undefined);
  return { promise, resolve, reject };
}

/**
 * Attempts in a row that must list the very same ids, duplicates included, before duplicates are
 * taken as the service's own data. Two are not enough: a page shifted the same way on two
 * attempts by chance would publish a listing that skipped items.
 */
export const DUPLICATES_CONFIRMED_BY = 3;

async function fetchShardWithRetry(
  client: TransactionPageSource,
  shard: FetchShard,
  filters: FetchFilters,
  partFile: string,
  options: FetchOptions,
  requests: PageRequestOptions,
): Promise<FetchedShard> {
  let previousIds: string | null = null;
  let sameIdsInARow = 0;
  for (let attempt = 1; ; attempt += 1) {
    try {
      const once = await fetchShardOnce(client, shard, filters, partFile, options, requests);
      if (once.duplicates > 0) {
        sameIdsInARow = once.idsDigest === previousIds ? sameIdsInARow + 1 : 1;
        previousIds = once.idsDigest;
        if (sameIdsInARow < DUPLICATES_CONFIRMED_BY)
          throw new InconsistentShardError(shard.id, once.duplicates);
      }
      const { rows, totalReported } = once;
      const fetched = { shard, partFile, rows, totalReported, attempts: attempt };
      options.onShardDone?.(fetched);
      return fetched;
    } catch (error) {
      const inconsistent =
        error instanceof IncompleteShardError ||
        error instanceof InconsistentShardError ||
        error instanceof PbsListingError;
      if (!inconsistent || attempt >= options.shardAttempts) throw error;
    }
  }
}

async function fetchShardOnce(
  client: TransactionPageSource,
  shard: FetchShard,
  filters: FetchFilters,
  partFile: string,
  options: FetchOptions,
  requests: PageRequestOptions,
): Promise<{ rows: number; totalReported: number | null; duplicates: number; idsDigest: string }> {
  // Part files are scratch: fast compression, the snapshot is compressed properly.
  const writer = createNdjsonWriter(partFile, { level: 1, bufferedChunks: 1 });
  let rows = 0;
  let totalReported: number | null = null;
  const seen = new Set<string>();
  const digest = createHash('sha256');
  let duplicates = 0;
  const idField = options.idField ?? options.fields?.id;
  try {
    for await (const page of client.transactionPages(shardQuery(shard, filters), requests)) {
      if (page.totalItems !== null) {
        if (totalReported !== null && totalReported !== page.totalItems) {
          throw new IncompleteShardError(shard.id, rows, page.totalItems);
        }
        totalReported = page.totalItems;
      }
      for (const item of page.items) {
        if (idField !== undefined) {
          const id = idOf(item, idField);
          if (id !== null) {
            if (seen.has(id)) duplicates += 1;
            else seen.add(id);
            digest.update(`${id}\n`);
          }
        }
        await (options.fields === undefined
          ? writer.write(item)
          : writer.writeJson(encodePartLine(item, options.fields, page.exactNumbers === true)));
      }
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
  return { rows, totalReported, duplicates, idsDigest: digest.digest('hex') };
}

function idOf(item: RawTransaction, idField: string): string | null {
  const id = getPath(item, idField);
  if (typeof id === 'string') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return null;
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
