import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pLimit from 'p-limit';
import { PbsExportError } from '../../errors.ts';
import type { Page, Pagination, RawTransaction, SortOrder, TransactionQuery } from '../../pbs/index.ts';
import {
  createReadAheadBudget,
  getPath,
  type PageRequestOptions,
  PbsListingError,
  type RequestScheduler,
} from '../../pbs/index.ts';
import { retry } from '../../retry.ts';
import { settleable } from '../../settleable.ts';
import { type PartLineFields, partLineJson, partLineKey, partLinePrefix } from '../snapshot/part-line.ts';
import { createPartWriter, type PartStore } from '../snapshot/part-store.ts';
import { createNdjsonWriter } from '../snapshot/snapshot.ts';
import { type Boundary, type Edge, type ListingPlan, type ListingTrail, recordTrail } from './coverage.ts';
import { confirmedBy, type Proof, planAfter, servicePagingOf } from './proof.ts';

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
  /**
   * The wire shape's pagination, when the source honours `requests.pageSize` (the service client
   * does): a listing that confirms one without a total may then page with another size.
   */
  readonly shape?: { readonly pagination: Pagination };
}

/** One unit of fetching: a date window, optionally narrowed to one protocol. */
export interface FetchShard {
  id: string;
  window: { index: number; start: Date; end: Date };
  protocol: string | null;
  /**
   * With `protocol: null`: keep only the transactions whose protocol is none of these (the rest of
   * a window searched protocol by protocol, `p` taking one name), read from the unfiltered search.
   */
  otherThan?: readonly string[];
}

/**
 * How a shard's listing was shown to be complete: the service's reported total matched the items
 * (`total`), or, for a wire shape that reports no total, other listings gave the very same ids
 * with every page boundary of the listing inside one of their pages (`second-listing`, about twice
 * the requests; see `coverage.ts`): another page size the service honours, or newest first.
 */
export type Completeness = 'total' | 'second-listing';

/** Filters applied to every shard's search besides its window and protocol. */
export interface FetchFilters {
  tokens?: readonly string[];
  category?: string;
  hash?: string;
}

/** A shard fetched in full to its part file. */
export interface FetchedShard {
  shard: FetchShard;
  /** NDJSON file of the raw transactions, in the order the service sent them (gzip unless `compressParts` is false). */
  partFile: string;
  /** Where the part's lines are while they fit in memory (`FetchOptions.partStore`): read them with `readPartLineBytes`. */
  partStore?: PartStore;
  /**
   * Transactions the window's own assembly dropped before this part was made of its snapshot
   * member (a Lambda shard's piece read back as a part, `piece-part.ts`): the run counts them too.
   */
  droppedBefore?: { duplicates: number; outsideWindow: number };
  rows: number;
  /** The total the service reported, when it reports one. */
  totalReported: number | null;
  /** Listings made: one per attempt, a second one to confirm a listing without a total. */
  attempts: number;
  completeness: Completeness;
  /**
   * For `second-listing`: the page size asked by each listing that showed it complete, the
   * accepted one last (e.g. `[500, 499]`). Absent when the source's page size is unknown or cannot
   * be chosen (a cursor shape without a limit parameter).
   */
  pageSizes?: readonly number[];
  /** With `pageSizes`, when one of those listings was newest first: each one's order. */
  orders?: readonly SortOrder[];
  /**
   * Transactions the search listed, when some were not kept (a shard with `otherThan`: the
   * unfiltered search lists every transaction of the window, `rows` those of no searched protocol).
   */
  listed?: number;
  /**
   * True when the part file's lines (written with `fields`) came in order of their instants and
   * no id came twice: the assembly can then stream the shard's window instead of holding it.
   * Absent means unknown (treated as false).
   */
  inOrder?: boolean;
  /**
   * Earliest and latest instant in the part file (written with `fields`; absent when it is empty
   * or unknown): the assembly reads a part for another window's transactions only when its span
   * reaches into that window.
   */
  span?: { first: number; last: number };
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
   * order (the service's own duplicates, which the snapshot drops and counts). A listing without a
   * reported total is complete only when later listings gave the very same ids with each of its
   * page boundaries inside one of their pages (see `coverage.ts`).
   */
  idField?: string;
  /** Dotted path of the protocol, for shards with `otherThan`. Default `protocol`. */
  protocolField?: string;
  /**
   * Where each transaction's id and date are: when given, each part line carries them ahead of
   * the JSON (see `encodePartLine`), so the assembly orders lines without parsing them; the ids
   * are checked for repeats as with `idField` (which, when given too, wins for that check).
   */
  fields?: PartLineFields;
  /**
   * False writes the part files as plain NDJSON: for a run that reads them back on the same
   * machine (the CLI), where deflating and inflating every transaction cost more CPU than the
   * larger scratch file costs to write. Default true: part files that travel (the Lambda workers
   * upload them to S3) stay compressed.
   */
  compressParts?: boolean;
  /**
   * Keeps the part files in memory while they fit this store's budget, spilled to their files only
   * past it (`snapshot/part-store.ts`): for a run that reads its parts back in this process (the
   * CLI). The parts are plain NDJSON then, as with `compressParts: false`. Default: files only.
   */
  partStore?: PartStore;
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

/**
 * A window searched protocol by protocol does not add up: the unfiltered search of its rest shard
 * listed a different number of transactions than the protocol searches and the rest together.
 */
export class IncompleteWindowError extends PbsExportError {
  readonly windowIndex: number;

  constructor(windowIndex: number, listed: number, covered: number, detail: string) {
    super(
      'incomplete_window',
      `window ${windowIndex}: the unfiltered search listed ${listed} transactions, but ${detail} add up to ${covered}`,
    );
    this.windowIndex = windowIndex;
  }
}

/**
 * Checks that a window searched protocol by protocol (a rest shard among `parts`) is covered: the
 * rest shard's unfiltered search listed exactly the transactions the protocol searches returned
 * plus those it kept. Throws {@link IncompleteWindowError}; does nothing for other windows.
 */
export function checkWindowCoverage(parts: readonly FetchedShard[]): void {
  const rest = parts.find((part) => part.shard.otherThan !== undefined);
  if (rest === undefined || rest.listed === undefined) return;
  const searched = parts.filter((part) => part !== rest);
  const byProtocol = searched.reduce((total, part) => total + part.rows, 0);
  if (byProtocol + rest.rows === rest.listed) return;
  throw new IncompleteWindowError(
    rest.shard.window.index,
    rest.listed,
    byProtocol + rest.rows,
    `the ${searched.length} protocol searches (${byProtocol}) and the transactions of no searched protocol (${rest.rows})`,
  );
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
  // Each item's text as sent goes into its part line, instead of the parsed item written out again;
  // of the parsed item only the fields read here are kept (the page's parsed items die at once).
  if (options.fields !== undefined) {
    requests.itemTexts = true;
    requests.itemFields = partLineItemFields(options);
  }
  // rejectOnClear: cleared tasks must settle, or waiting for them below would never end.
  const limit = pLimit({ concurrency, rejectOnClear: true });
  const settlers = shards.map(() => settleable<FetchedShard>());
  const tasks = shards.map((shard, index) =>
    limit(() =>
      fetchShardWithRetry({
        client,
        shard,
        filters,
        partFile: join(
          options.workDir,
          options.compressParts === false ? `part-${index}.ndjson` : `part-${index}.ndjson.gz`,
        ),
        options,
        requests,
      }),
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

/**
 * Attempts in a row that must list the very same ids, duplicates included, before duplicates are
 * taken as the service's own data. Two are not enough: a page shifted the same way on two
 * attempts by chance would publish a listing that skipped items.
 */
export const DUPLICATES_CONFIRMED_BY = 3;

/**
 * Two listings of a shard without a reported total disagreed: the data moved while it was paged,
 * or the service loses rows between its pages, not the same ones in each listing.
 */
export class UnconfirmedShardError extends PbsExportError {
  readonly shardId: string;

  constructor(shardId: string, previousRows: number, rows: number) {
    super(
      'unconfirmed_fetch',
      `shard ${shardId}: the service reports no total, and two listings disagree ` +
        `(${previousRows} then ${rows} transactions, or other ids): the data changed while it was paged, ` +
        'or the service loses rows between its pages',
    );
    this.shardId = shardId;
  }
}

/** One listing of a shard, written to its part file. */
interface Listing {
  /** Transactions kept (all of them, unless the shard has `otherThan`). */
  rows: number;
  /** Transactions the search listed. */
  listed: number;
  totalReported: number | null;
  duplicates: number;
  /** sha256 of the listed ids in order, repeats included: equal digests, same listing. */
  idsInOrder: string;
  /** The kept transactions came in order of their instants (only known with part-line `fields`). */
  instantsInOrder: boolean;
  /**
   * sha256 of the set of listed ids, in code-unit order: equal digests, the same transactions,
   * whatever order the service gave rows of the same date in.
   */
  idSet: string;
  /** Earliest and latest instant of the kept transactions (only known with part-line `fields`). */
  span?: { first: number; last: number };
  /** How it was asked for. */
  plan: ListingPlan;
  /** Where its page boundaries fell. */
  trail: ListingTrail;
  /** The boundaries of the listing it was checked against that it covers (see `coverage.ts`). */
  covered: ReadonlySet<Boundary>;
}

/** Listings in a row that gave the very same ids in the same order. */
interface Agreement {
  sameOrder: number;
}

function agreementAfter(previous: Listing | null, listing: Listing, agreement: Agreement): Agreement {
  return { sameOrder: listing.idsInOrder === previous?.idsInOrder ? agreement.sameOrder + 1 : 1 };
}

/**
 * True when a listing with a total or with ids repeated is shown complete (see
 * {@link fetchShardWithRetry}); one without either is shown complete by the listings after it.
 */
function confirmed(listing: Listing, agreement: Agreement): boolean {
  if (listing.duplicates > 0) return agreement.sameOrder >= DUPLICATES_CONFIRMED_BY;
  return listing.totalReported !== null;
}

function isInconsistentListing(error: unknown): boolean {
  return (
    error instanceof IncompleteShardError ||
    error instanceof InconsistentShardError ||
    error instanceof UnconfirmedShardError ||
    error instanceof PbsListingError
  );
}

/** One shard to list: where from, with which filters and page requests, into which part file. */
interface ShardTask {
  client: TransactionPageSource;
  shard: FetchShard;
  filters: FetchFilters;
  partFile: string;
  options: FetchOptions;
  requests: PageRequestOptions;
}

/**
 * Lists a shard until it is shown complete: a reported total that matches, or (ids repeated) the
 * same ids in the same order {@link DUPLICATES_CONFIRMED_BY} times, or (no total) listings of the
 * very same ids that hold each page boundary of the first inside one of their pages: another page
 * size the service honours, or newest first (see `coverage.ts`). A listing that disagrees with the
 * one before counts against `shardAttempts` (the project's {@link retry}, no pause: the data
 * moved, the service is not failing) and becomes the one to show complete; confirming listings
 * that agree do not count. {@link UnprovableShardError} (no listing could cover a boundary) is not
 * retried.
 */
async function fetchShardWithRetry(task: ShardTask): Promise<FetchedShard> {
  const { shard, partFile, options } = task;
  const paging = servicePagingOf(task.client.shape?.pagination, options.fields !== undefined);
  let previous: Listing | null = null;
  let agreement: Agreement = { sameOrder: 0 };
  let proof: Proof<Listing> | null = null;
  let listings = 0;
  /** Lists the shard once more as `plan`, checked against the listing being shown complete. */
  const list = async (plan: ListingPlan): Promise<Listing> => {
    listings += 1;
    const listing = await fetchShardOnce(task, plan, proof?.target.trail ?? null);
    agreement = agreementAfter(previous, listing, agreement);
    previous = listing;
    paging.longest = Math.max(paging.longest, listing.trail.longest);
    paging.ignoresSize ||= listing.trail.ignoredSize;
    return listing;
  };
  const fetched = await retry(
    async (): Promise<{ listing: Listing; shownBy: readonly Listing[] }> => {
      for (;;) {
        const listing = await list(planAfter(proof, paging, shard.id));
        if (listing.totalReported !== null || listing.duplicates > 0) {
          if (confirmed(listing, agreement)) return { listing, shownBy: [] };
          throw new InconsistentShardError(shard.id, listing.duplicates);
        }
        if (proof === null || proof.target.idSet !== listing.idSet) {
          const before: Listing | null = proof?.target ?? null;
          const open = [...listing.trail.boundaries];
          proof = { target: listing, open, tried: [listing.plan], agreeing: [] };
          // The first listing waits for the ones that confirm it: not a failure.
          if (before !== null) throw new UnconfirmedShardError(shard.id, before.listed, listing.listed);
          continue;
        }
        proof.tried.push(listing.plan);
        proof.agreeing.push(listing);
        proof.open = proof.open.filter((boundary) => !listing.covered.has(boundary));
        if (proof.open.length === 0) return { listing, shownBy: [proof.target, ...proof.agreeing] };
      }
    },
    { attempts: options.shardAttempts, retryable: isInconsistentListing },
  );
  const { listing: accepted, shownBy } = fetched;
  const done: FetchedShard = {
    shard,
    partFile,
    ...(options.partStore !== undefined ? { partStore: options.partStore } : {}),
    rows: accepted.rows,
    totalReported: accepted.totalReported,
    attempts: listings,
    completeness: accepted.totalReported === null ? 'second-listing' : 'total',
    ...confirmedBy(shownBy),
    ...(shard.otherThan !== undefined ? { listed: accepted.listed } : {}),
    ...(accepted.instantsInOrder && accepted.duplicates === 0 ? { inOrder: true } : {}),
    ...(accepted.span !== undefined ? { span: { ...accepted.span } } : {}),
  };
  options.onShardDone?.(done);
  return done;
}

/**
 * Lists the shard once as `plan` into its part file, recording where the pages began (for a
 * listing without a total) and which boundaries of `earlier` it covers.
 */
async function fetchShardOnce(
  task: ShardTask,
  plan: ListingPlan,
  earlier: ListingTrail | null,
): Promise<Listing> {
  const { client, shard, filters, partFile, options } = task;
  const { pageSize } = plan;
  const requests = pageSize === null ? task.requests : { ...task.requests, pageSize };
  const trail = recordTrail(plan, pageSize, earlier);
  // Part files are scratch: fast compression or none, the snapshot is compressed properly.
  const writer =
    options.partStore === undefined
      ? createNdjsonWriter(partFile, {
          level: 1,
          bufferedChunks: 1,
          compress: options.compressParts !== false,
        })
      : createPartWriter(partFile, options.partStore);
  const listing: Omit<Listing, 'trail' | 'covered'> = {
    rows: 0,
    listed: 0,
    totalReported: null,
    duplicates: 0,
    idsInOrder: '',
    idSet: '',
    instantsInOrder: options.fields !== undefined,
    plan,
  };
  let lastInstant = Number.NEGATIVE_INFINITY;
  const seen = new Set<string>();
  const digest = createHash('sha256');
  const idField = options.idField ?? options.fields?.id;
  const keep = keepFilter(shard, options.protocolField ?? 'protocol');
  try {
    const query = { ...shardQuery(shard, filters), order: plan.order };
    for await (const page of client.transactionPages(query, requests)) {
      if (page.totalItems !== null) {
        if (listing.totalReported !== null && listing.totalReported !== page.totalItems) {
          throw new IncompleteShardError(shard.id, listing.listed, page.totalItems);
        }
        listing.totalReported = page.totalItems;
      }
      // The page's ids go into the digest at once: one call per page, not per id (same digest).
      let pageIds = '';
      // Where the page's rows are, for a listing without a total (see `coverage.ts`).
      const edges: Edge[] | null = page.totalItems === null ? [] : null;
      for (const [position, item] of page.items.entries()) {
        const id = idField === undefined ? null : idOf(item, idField);
        if (id !== null) {
          if (seen.has(id)) listing.duplicates += 1;
          else seen.add(id);
          pageIds += `${id}\n`;
        }
        if (keep !== null && !keep(item)) {
          edges?.push({ id: id ?? '', at: instantOf(item, options.fields) });
          continue;
        }
        listing.rows += 1;
        if (options.fields === undefined) {
          edges?.push({ id: id ?? '', at: Number.NaN });
          await writer.write(item);
          continue;
        }
        const key = partLineKey(item, options.fields);
        edges?.push({ id: id ?? '', at: key.at });
        if (key.at < lastInstant) listing.instantsInOrder = false;
        listing.span = widen(listing.span, key.at);
        lastInstant = key.at;
        // The line's two pieces are encoded into the part file's chunk one after the other.
        const exact = page.exactNumbers === true;
        const json = partLineJson(item, exact, page.itemTexts?.[position]);
        const written = writer.writeJson(json, partLinePrefix(key, exact));
        if (written) await written;
      }
      digest.update(pageIds);
      if (edges !== null) trail.page(edges);
      listing.listed += page.items.length;
      options.onPage?.({ shard: shard.id, page: page.index, rows: page.items.length });
    }
    await writer.close();
  } catch (error) {
    writer.destroy();
    throw error;
  }
  if (listing.totalReported !== null && listing.listed !== listing.totalReported) {
    throw new IncompleteShardError(shard.id, listing.listed, listing.totalReported);
  }
  listing.idsInOrder = digest.digest('hex');
  listing.idSet = setDigest(seen);
  return { ...listing, ...trail.finish() };
}

/** The instant of a transaction the listing does not keep, NaN when unknown or unreadable. */
function instantOf(item: RawTransaction, fields: PartLineFields | undefined): number {
  if (fields === undefined) return Number.NaN;
  try {
    return partLineKey(item, fields).at;
  } catch {
    return Number.NaN;
  }
}

/**
 * The fields of each item the fetch reads besides its text (`PageRequestOptions.itemFields`): the
 * id (the part line's and the duplicate check's), the date and the protocol (a rest shard's filter).
 * An item that comes with its text is written from the text alone (see `partLineJson`).
 */
function partLineItemFields(options: FetchOptions): string[] {
  const fields = options.fields as PartLineFields;
  const read = [fields.id, fields.date, options.protocolField ?? 'protocol'];
  if (options.idField !== undefined) read.push(options.idField);
  return [...new Set(read)];
}

function widen(span: Listing['span'], at: number): NonNullable<Listing['span']> {
  if (span === undefined) return { first: at, last: at };
  if (at < span.first) span.first = at;
  if (at > span.last) span.last = at;
  return span;
}

function setDigest(ids: ReadonlySet<string>): string {
  // One update of the joined text, not one per id (same digest): a call per id cost as much as the rest.
  const sorted = [...ids].sort();
  return createHash('sha256')
    .update(sorted.length === 0 ? '' : `${sorted.join('\n')}\n`)
    .digest('hex');
}

/** For a shard with `otherThan`: keeps the items whose protocol is none of those; else null. */
function keepFilter(shard: FetchShard, protocolField: string): ((item: RawTransaction) => boolean) | null {
  if (shard.otherThan === undefined) return null;
  const searched = new Set(shard.otherThan);
  return (item) => {
    const protocol = getPath(item, protocolField);
    return typeof protocol !== 'string' || !searched.has(protocol);
  };
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
