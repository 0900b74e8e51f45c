import { PbsListingError, PbsResponseError } from './errors.ts';
import { parseListBody, parseListBodyFields } from './item-texts.ts';
import type { Page } from './model.ts';
import { getPath } from './path.ts';
import type { QueryParams } from './query.ts';
import { extractItems } from './schemas.ts';
import type { ServiceShape } from './shape.ts';
import { type BodyParser, endpointTarget, type JsonResponse, type RequestTarget } from './transport.ts';

/**
 * Sends one request (signed, rate-limited and retried by the caller) and returns its JSON, parsed
 * by `parse` when given (a body it refuses is retried as any unreadable body).
 */
export type FetchJson = (target: RequestTarget, parse?: BodyParser) => Promise<JsonResponse>;

/** Where the client's base URL points. */
export interface BaseLocation {
  /** Base URL without trailing slash. */
  baseUrl: string;
  /** `protocol//host:port`. */
  origin: string;
  /** Path prefix of the base URL without trailing slash (`''` or e.g. `/api`). */
  basePathname: string;
}

/**
 * Runs one request and resolves as it does: a request-level limiter that several listings may
 * share, so that their requests in flight together stay bounded.
 */
export type RequestScheduler = <R>(request: () => Promise<R>) => Promise<R>;

/** How a listing sends its page requests. */
export interface PageRequestOptions {
  /** Every page request goes through it (the client's rate limit still applies inside). */
  schedule?: RequestScheduler;
  /**
   * Pages that may be requested ahead of the one being read, when a page-number or offset listing
   * reports a total (the pages still to come are then known). Pages are still yielded in order,
   * with the same checks; a prediction the listing does not follow is dropped and the page
   * requested as it would be without read-ahead. 0 (the default): one request after another.
   */
  readAhead?: number;
  /** Bounds the items of pages requested ahead over several listings (memory), besides `readAhead` each. */
  readAheadBudget?: ReadAheadBudget;
  /** Give each page's items' JSON texts as sent (`Page.itemTexts`), for a caller that stores them. */
  itemTexts?: boolean;
  /**
   * With `itemTexts`: the fields (dotted paths) the caller reads of each item. Items that come with
   * their texts then hold only those (`item-texts.ts`, {@link parseListBodyFields}): the caller
   * takes everything else from the text. Items whose texts could not be given stay whole.
   */
  itemFields?: readonly string[];
  /**
   * Items a page instead of the shape's page size or limit (a positive integer), for a listing
   * whose page boundaries must fall elsewhere (a confirming listing). A cursor shape without a
   * limit parameter cannot be asked for another size: it keeps the service's.
   */
  pageSize?: number;
}

/** Items that may be held in pages requested ahead at once, shared by several listings. */
export interface ReadAheadBudget {
  /** Takes a page of `items` from the budget; false when it does not fit. */
  tryTake(items: number): boolean;
  /** Gives a page of `items` back: it was read, or dropped. */
  giveBack(items: number): void;
}

/**
 * A {@link ReadAheadBudget} of `items` items. A page larger than the whole budget still fits
 * when nothing else is taken, so large pages are read one ahead rather than none; 0 reads none.
 */
export function createReadAheadBudget(items: number): ReadAheadBudget {
  const size = Math.max(0, Math.floor(items));
  let taken = 0;
  return {
    tryTake(pageItems) {
      if (size === 0) return false;
      if (taken > 0 && taken + pageItems > size) return false;
      taken += pageItems;
      return true;
    },
    giveBack(pageItems) {
      taken = Math.max(0, taken - pageItems);
    },
  };
}

export interface PaginateOptions<T> extends PageRequestOptions {
  shape: ServiceShape;
  base: BaseLocation;
  /** Endpoint path from `/v2`. */
  signedPath: string;
  /** The endpoint's own parameters; pagination parameters are appended. */
  params: QueryParams;
  fetchJson: FetchJson;
  /** Validates one page's items (throws `PbsResponseError`). */
  validate: (items: unknown[], path: string) => T[];
}

/**
 * Pages through a list endpoint to the end, for every pagination style of the shape. Yields each
 * page in order (with `readAhead`, later pages of a listing with a total may be requested before
 * an earlier one is yielded); throws `PbsListingError` when a page or cursor repeats (a service that
 * would otherwise be paged forever). When a reported total ends a page-number or offset listing
 * on a full page, the next page is asked for too, to confirm it is empty: a total that is too low
 * (on a first page, say) would otherwise end the listing early without any count disagreeing.
 * A page-number or offset listing learns the page size the service actually uses (see
 * {@link nextStep}): a short page ends it only when shorter than that size.
 */
export async function* paginate<T>(options: PaginateOptions<T>): AsyncGenerator<Page<T>> {
  const pagination = withPageSize(options.shape.pagination, options.pageSize);
  switch (pagination.style) {
    case 'page':
      yield* steppedPages(options, pageNumbers(pagination));
      return;
    case 'offset':
      yield* steppedPages(options, offsets(pagination));
      return;
    case 'cursor':
      yield* cursors(options, pagination);
      return;
  }
}

/** `pagination` with `pageSize` items a page, when one is asked for. */
function withPageSize(pagination: ServiceShape['pagination'], pageSize: number | undefined) {
  if (pageSize === undefined || !Number.isInteger(pageSize) || pageSize < 1) return pagination;
  return pagination.style === 'page' ? { ...pagination, pageSize } : { ...pagination, limit: pageSize };
}

type PageStyle = Extract<ServiceShape['pagination'], { style: 'page' }>;
type OffsetStyle = Extract<ServiceShape['pagination'], { style: 'offset' }>;
type CursorStyle = Extract<ServiceShape['pagination'], { style: 'cursor' }>;

type Fetched<T> = { response: JsonResponse; items: T[]; itemTexts?: readonly string[] };

async function fetchPage<T>(options: PaginateOptions<T>, target: RequestTarget): Promise<Fetched<T>> {
  const { itemsPath } = options.shape;
  const { itemFields } = options;
  const parse: BodyParser | undefined =
    options.itemTexts !== true
      ? undefined
      : itemFields === undefined
        ? (text) => parseListBody(text, itemsPath)
        : (text) => parseListBodyFields(text, itemsPath, itemFields);
  const response = await (options.schedule === undefined
    ? options.fetchJson(target, parse)
    : options.schedule(() => options.fetchJson(target, parse)));
  const raw = extractItems(response.body, itemsPath, target.path);
  const items = options.validate(raw, target.path);
  const texts = response.itemTexts;
  // The texts go with the items one for one, or not at all.
  return texts !== undefined && texts.length === items.length
    ? { response, items, itemTexts: texts }
    : { response, items };
}

/** The page yielded for `fetched`: its items, and their texts when it has them. */
function pageOf<T>(fetched: Fetched<T>, totalItems: number | null, index: number): Page<T> {
  return {
    items: fetched.items,
    totalItems,
    index,
    exactNumbers: fetched.response.exactNumbers,
    ...(fetched.itemTexts === undefined ? {} : { itemTexts: fetched.itemTexts }),
  };
}

/**
 * The page requests of one listing: those requested ahead, by target, and the one taken next. A
 * page requested ahead that the listing never takes is left to settle on its own (its failure
 * unobserved), still counted by the scheduler while in flight.
 */
function pageRequests<T>(options: PaginateOptions<T>, pageSize: number) {
  const ahead = new Map<string, Promise<Fetched<T>>>();
  const keyOf = (target: RequestTarget) => `${target.endpoint}?${target.query}`;
  const readAhead = Math.max(0, Math.floor(options.readAhead ?? 0));
  const budget = options.readAheadBudget;
  return {
    readAhead,
    /** Requests these targets, in order, unless already requested. */
    prefetch(targets: readonly RequestTarget[]): void {
      for (const target of targets) {
        const key = keyOf(target);
        if (ahead.has(key)) continue;
        if (budget !== undefined && !budget.tryTake(pageSize)) return;
        const request = fetchPage(options, target);
        request.catch(() => undefined);
        ahead.set(key, request);
      }
    },
    /** The page at `target`: the one requested ahead, or a request sent now. */
    take(target: RequestTarget): Promise<Fetched<T>> {
      const key = keyOf(target);
      const request = ahead.get(key);
      if (request === undefined) return fetchPage(options, target);
      ahead.delete(key);
      budget?.giveBack(pageSize);
      return request;
    },
    /** Forgets every page requested ahead (the listing ended or changed course). */
    drop(): void {
      for (let i = 0; i < ahead.size; i++) budget?.giveBack(pageSize);
      ahead.clear();
    },
  };
}

/**
 * Items a first page must hold, when shorter than asked, for a listing without a total to ask for
 * the next page (see {@link nextStep}): a shorter one is the end. No service is taken to cap its
 * pages below this; it also keeps a listing of one or two transactions to a single request.
 */
export const SMALLEST_PAGE_CAP = 3;

/** The page size of a numbered or offset listing: asked for, and as the service turns out to use it. */
interface PageSizes {
  /** Items a page the listing asks for. */
  readonly asked: number;
  /**
   * The service's own page size as its pages show it, null before the first page: a page longer
   * than asked sets it (the service ignores the size asked), a first page as long as asked sets it
   * to that, and a first page shorter than asked sets it to its length until the next page tells
   * whether that was the service's cap or the end of the data.
   */
  served: number | null;
}

/**
 * How a numbered or offset listing moves from page to page: where each page is, and what a page's
 * reported totals tell.
 */
interface Stepping {
  sizes: PageSizes;
  /** True when a page's position follows from the page size (page numbers): it cannot change midway. */
  sizedPositions: boolean;
  totalItemsPath: PageStyle['totalItemsPath'];
  /** Where page `index` is once `fetched` items came before it: its page number's index, or its offset. */
  at(index: number, fetched: number): number;
  /** The query parameters of the page at `at`. */
  params(at: number): QueryParams;
  /**
   * What page `index` tells, `fetched` counting its own items too: up to `readAhead` positions its
   * reported totals still promise, and whether the total is reached.
   */
  read(
    page: { index: number; fetched: number; totalItems: number | null; body: unknown; path: string },
    readAhead: number,
  ): { ahead: number[]; reached: boolean };
}

/** The page size pages are counted in: the service's once known, else the one asked. */
const sizeOf = (sizes: PageSizes) => sizes.served ?? sizes.asked;

/**
 * Pages numbered from `firstPage`. Each page asks for the size the service uses once known (a
 * service that sent 500 items when asked 499 is asked 500 next), so that page `n` of that size
 * starts where the items already fetched end.
 */
function pageNumbers(style: PageStyle): Stepping {
  const sizes: PageSizes = { asked: style.pageSize, served: null };
  return {
    sizes,
    sizedPositions: true,
    totalItemsPath: style.totalItemsPath,
    at: (index) => index,
    params: (index) => [
      [style.pageParam, String(style.firstPage + index)],
      [style.pageSizeParam, String(sizeOf(sizes))],
    ],
    read({ index, fetched, totalItems, body, path }, readAhead) {
      const totalPages = readCount(body, style.totalPagesPath, path);
      const pages = totalPages ?? (totalItems === null ? null : Math.ceil(totalItems / sizeOf(sizes)));
      return {
        ahead: pages === null ? [] : promised(index + 1, pages, 1, readAhead),
        reached: totalPages !== null ? index + 1 >= totalPages : fetched >= (totalItems ?? 0),
      };
    },
  };
}

/** Pages at item offsets, `limit` items asked each: the next offset is the count fetched so far. */
function offsets(style: OffsetStyle): Stepping {
  const sizes: PageSizes = { asked: style.limit, served: null };
  return {
    sizes,
    sizedPositions: false,
    totalItemsPath: style.totalItemsPath,
    at: (_index, fetched) => fetched,
    params: (offset) => [
      [style.offsetParam, String(offset)],
      [style.limitParam, String(style.limit)],
    ],
    // The offsets the reported total still promises if pages stay full.
    read: ({ fetched, totalItems }, readAhead) => ({
      ahead: totalItems === null ? [] : promised(fetched, totalItems, sizeOf(sizes), readAhead),
      reached: fetched >= (totalItems ?? 0),
    }),
  };
}

/** Up to `limit` positions from `from` on, `step` apart, below `end`. */
function promised(from: number, end: number, step: number, limit: number): number[] {
  const positions: number[] = [];
  for (let at = from; at < end && positions.length < limit; at += step) positions.push(at);
  return positions;
}

/**
 * A numbered or offset listing: each page taken (checked against a repeat), what it shows of the
 * service's page size learned, the pages its totals still promise requested ahead, until
 * {@link nextStep} says it ends.
 */
async function* steppedPages<T>(options: PaginateOptions<T>, stepping: Stepping): AsyncGenerator<Page<T>> {
  const { take, requests } = pageTaker(options, stepping.sizes.asked, stepping.totalItemsPath);
  const targetAt = pagedTarget(options, stepping.params);
  let fetched = 0;
  try {
    for (let index = 0; ; index++) {
      const target = targetAt(stepping.at(index, fetched));
      const taken = await take(target);
      const { response, items, totalItems } = taken;
      fetched += items.length;
      const page = { index, fetched, totalItems, body: response.body, path: target.path };
      const { reached } = stepping.read(page, 0);
      const step = nextStep(stepping, items.length, totalItems === null ? null : { reached }, target.path);
      // Predicted with the page size just learned.
      if (step === 'next') requests.prefetch(stepping.read(page, requests.readAhead).ahead.map(targetAt));
      yield pageOf(taken, totalItems, index);
      if (step === 'end') return;
    }
  } finally {
    requests.drop();
  }
}

/**
 * Whether a numbered or offset listing ends after a page of `count` items, learning from it the
 * page size the service uses (`stepping.sizes.served`). An empty page ends it. A page longer than
 * asked sets the service's size (it ignores the size asked), as does a first page as long as asked.
 * A page shorter than the service's size ends it (with a total, once the total is `reached`); a
 * page shorter than asked but as long as the service's size does not: a first page shorter than
 * asked (of at least {@link SMALLEST_PAGE_CAP} items, or with the total not reached) is taken as
 * the service's cap until the next page tells (empty or shorter: the end; as long: the cap). A
 * full page never ends it: the service may list more than it reported (the caller checks the
 * count). Throws `PbsListingError` when a page-number listing's pages grow after the first: the
 * items already fetched no longer line up with the page numbers.
 */
function nextStep(stepping: Stepping, count: number, total: { reached: boolean } | null, path: string) {
  const { sizes } = stepping;
  if (count === 0) return 'end';
  if (sizes.served === null) {
    const short = count < sizes.asked;
    if (short && (total === null ? count < SMALLEST_PAGE_CAP : total.reached)) return 'end';
    sizes.served = count;
    return 'next';
  }
  if (count > sizes.served) {
    if (stepping.sizedPositions) {
      const reason = `a page of ${count} items after pages of ${sizes.served}: the service changed its page size while it was paged`;
      throw new PbsListingError(path, '(page)', reason);
    }
    sizes.served = count;
    return 'next';
  }
  if (count === sizes.served) return 'next';
  return total === null || total.reached ? 'end' : 'next';
}

/** The request of one page: the listing's own parameters, then those of the page `at` names. */
function pagedTarget<T>(
  options: PaginateOptions<T>,
  pageParams: (at: number) => QueryParams,
): (at: number) => RequestTarget {
  return (at) =>
    endpointTarget(options.base.baseUrl, options.signedPath, [...options.params, ...pageParams(at)]);
}

/**
 * Takes the pages of a numbered or offset listing: each page's items checked against a repeated
 * page, with the total the response reports.
 */
function pageTaker<T>(
  options: PaginateOptions<T>,
  pageSize: number,
  totalItemsPath: PageStyle['totalItemsPath'],
) {
  const repeat = repeatGuard();
  const requests = pageRequests(options, pageSize);
  const take = async (target: RequestTarget) => {
    const fetched = await requests.take(target);
    // Items cut down to a few fields could match where whole ones differ: their texts are whole.
    const cutDown = options.itemFields !== undefined && fetched.itemTexts !== undefined;
    repeat.check(cutDown ? (fetched.itemTexts as readonly string[]) : fetched.items, target.path);
    return { ...fetched, totalItems: readCount(fetched.response.body, totalItemsPath, target.path) };
  };
  return { take, requests };
}

async function* cursors<T>(options: PaginateOptions<T>, style: CursorStyle): AsyncGenerator<Page<T>> {
  const limit: QueryParams = style.limitParam === null ? [] : [[style.limitParam, String(style.limit)]];
  const seen = new Set<string>();
  let target = endpointTarget(options.base.baseUrl, options.signedPath, [...options.params, ...limit]);
  for (let index = 0; ; index++) {
    const fetched = await fetchPage(options, target);
    const { response } = fetched;
    const totalItems = readCount(response.body, style.totalItemsPath, target.path);
    yield pageOf(fetched, totalItems, index);

    let next: RequestTarget;
    let key: string;
    const cursor =
      style.next.from === 'field' ? readCursor(response.body, style.next.path, target.path) : null;
    if (cursor !== null) {
      key = `cursor:${cursor}`;
      next = endpointTarget(options.base.baseUrl, options.signedPath, [
        ...options.params,
        [style.cursorParam, cursor],
        ...limit,
      ]);
    } else {
      // Also for field cursors: a bare-array body has no field, so such a service links instead.
      const href = parseNextLink(response.headers.get('link'));
      if (href === null) return;
      next = linkTarget(href, response.unsignedUrl, options.base, target.path);
      key = `link:${next.endpoint}?${next.query}`;
    }
    if (seen.has(key)) {
      const field = style.next.from === 'field' ? style.next.path : 'Link';
      throw new PbsListingError(target.path, field, 'the next-page cursor repeats an earlier one');
    }
    seen.add(key);
    target = next;
  }
}

/** Detects a page-number/offset service that keeps returning the same page. */
function repeatGuard(): { check(items: readonly unknown[], path: string): void } {
  let previous: string | null = null;
  return {
    check(items, path) {
      if (items.length === 0) return;
      const fingerprint = JSON.stringify([items.length, items[0], items[items.length - 1]]);
      if (fingerprint === previous) {
        throw new PbsListingError(path, '(page)', 'the service returned the same page twice');
      }
      previous = fingerprint;
    },
  };
}

function readCount(body: unknown, fieldPath: string | null, path: string): number | null {
  if (fieldPath === null) return null;
  const value = getPath(body, fieldPath);
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new PbsResponseError(path, fieldPath, 'expected a non-negative integer', false);
  }
  return value;
}

function readCursor(body: unknown, fieldPath: string, path: string): string | null {
  const value = getPath(body, fieldPath);
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new PbsResponseError(path, fieldPath, 'expected a string cursor', false);
}

/** The target of `rel="next"` in a `Link` header, or null when there is none. */
export function parseNextLink(header: string | null): string | null {
  if (header === null) return null;
  const linkPattern = /<([^>]*)>([^<]*)/g;
  for (const match of header.matchAll(linkPattern)) {
    const params = match[2] ?? '';
    const rel = /;\s*rel\s*=\s*(?:"([^"]*)"|([^\s;,]+))/i.exec(params);
    const relations = (rel?.[1] ?? rel?.[2] ?? '').toLowerCase().split(/\s+/);
    if (relations.includes('next')) return match[1] ?? null;
  }
  return null;
}

/**
 * The request target of a `Link` URL: resolved against the URL that returned it, kept on the base
 * origin (the API key is never sent elsewhere), with any old `timestamp`/`signature` removed so it
 * can be signed afresh over its path from `/v2`.
 */
export function linkTarget(
  href: string,
  relativeTo: string,
  base: BaseLocation,
  fromPath: string,
): RequestTarget {
  let url: URL;
  try {
    url = new URL(href, relativeTo);
  } catch (error) {
    throw new PbsResponseError(fromPath, 'Link', 'next link is not a valid URL', false, { cause: error });
  }
  if (url.origin !== base.origin) {
    throw new PbsResponseError(fromPath, 'Link', 'next link points to another origin', false);
  }
  const prefix = base.basePathname;
  if (!url.pathname.startsWith(`${prefix}/v2/`)) {
    throw new PbsResponseError(fromPath, 'Link', `next link path is not under ${prefix}/v2/`, false);
  }
  const query = url.search
    .slice(1)
    .split('&')
    .filter((pair) => {
      if (pair === '') return false;
      const name = decodeQueryComponent(pair.split('=')[0] ?? '');
      return name !== 'timestamp' && name !== 'signature';
    })
    .join('&');
  return {
    endpoint: `${url.origin}${url.pathname}`,
    query,
    signedPath: url.pathname.slice(prefix.length),
    path: url.pathname,
  };
}

function decodeQueryComponent(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return text;
  }
}
