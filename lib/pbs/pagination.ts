import { PbsListingError, PbsResponseError } from './errors.ts';
import type { Page } from './model.ts';
import { getPath } from './path.ts';
import type { QueryParams } from './query.ts';
import { extractItems } from './schemas.ts';
import type { ServiceShape } from './shape.ts';
import { endpointTarget, type JsonResponse, type RequestTarget } from './transport.ts';

/** Sends one request (signed, rate-limited and retried by the caller) and returns its JSON. */
export type FetchJson = (target: RequestTarget) => Promise<JsonResponse>;

/** Where the client's base URL points. */
export interface BaseLocation {
  /** Base URL without trailing slash. */
  baseUrl: string;
  /** `protocol//host:port`. */
  origin: string;
  /** Path prefix of the base URL without trailing slash (`''` or e.g. `/api`). */
  basePathname: string;
}

export interface PaginateOptions<T> {
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
 * page as it arrives; throws `PbsListingError` when a page or cursor repeats (a service that
 * would otherwise be paged forever). When a reported total ends a page-number or offset listing
 * on a full page, the next page is asked for too, to confirm it is empty: a total that is too low
 * (on a first page, say) would otherwise end the listing early without any count disagreeing.
 */
export async function* paginate<T>(options: PaginateOptions<T>): AsyncGenerator<Page<T>> {
  const { pagination } = options.shape;
  switch (pagination.style) {
    case 'page':
      yield* pageNumbers(options, pagination);
      return;
    case 'offset':
      yield* offsets(options, pagination);
      return;
    case 'cursor':
      yield* cursors(options, pagination);
      return;
  }
}

type PageStyle = Extract<ServiceShape['pagination'], { style: 'page' }>;
type OffsetStyle = Extract<ServiceShape['pagination'], { style: 'offset' }>;
type CursorStyle = Extract<ServiceShape['pagination'], { style: 'cursor' }>;

async function fetchPage<T>(
  options: PaginateOptions<T>,
  target: RequestTarget,
): Promise<{ response: JsonResponse; items: T[] }> {
  const response = await options.fetchJson(target);
  const raw = extractItems(response.body, options.shape.itemsPath, target.path);
  return { response, items: options.validate(raw, target.path) };
}

async function* pageNumbers<T>(options: PaginateOptions<T>, style: PageStyle): AsyncGenerator<Page<T>> {
  const repeat = repeatGuard();
  let fetched = 0;
  for (let index = 0; ; index++) {
    const target = endpointTarget(options.base.baseUrl, options.signedPath, [
      ...options.params,
      [style.pageParam, String(style.firstPage + index)],
      [style.pageSizeParam, String(style.pageSize)],
    ]);
    const { response, items } = await fetchPage(options, target);
    repeat.check(items, target.path);
    const totalItems = readCount(response.body, style.totalItemsPath, target.path);
    const totalPages = readCount(response.body, style.totalPagesPath, target.path);
    yield { items, totalItems, index };
    fetched += items.length;
    if (items.length === 0) return;
    const full = items.length >= style.pageSize;
    if (totalPages !== null) {
      if (index + 1 >= totalPages && !full) return;
    } else if (totalItems !== null) {
      if (fetched >= totalItems && !full) return;
    } else if (!full) {
      return;
    }
  }
}

async function* offsets<T>(options: PaginateOptions<T>, style: OffsetStyle): AsyncGenerator<Page<T>> {
  const repeat = repeatGuard();
  let offset = 0;
  for (let index = 0; ; index++) {
    const target = endpointTarget(options.base.baseUrl, options.signedPath, [
      ...options.params,
      [style.offsetParam, String(offset)],
      [style.limitParam, String(style.limit)],
    ]);
    const { response, items } = await fetchPage(options, target);
    repeat.check(items, target.path);
    const totalItems = readCount(response.body, style.totalItemsPath, target.path);
    yield { items, totalItems, index };
    offset += items.length;
    if (items.length === 0) return;
    const full = items.length >= style.limit;
    if (totalItems !== null) {
      if (offset >= totalItems && !full) return;
    } else if (!full) {
      return;
    }
  }
}

async function* cursors<T>(options: PaginateOptions<T>, style: CursorStyle): AsyncGenerator<Page<T>> {
  const limit: QueryParams = style.limitParam === null ? [] : [[style.limitParam, String(style.limit)]];
  const seen = new Set<string>();
  let target = endpointTarget(options.base.baseUrl, options.signedPath, [...options.params, ...limit]);
  for (let index = 0; ; index++) {
    const { response, items } = await fetchPage(options, target);
    const totalItems = readCount(response.body, style.totalItemsPath, target.path);
    yield { items, totalItems, index };

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
function repeatGuard(): { check(items: unknown[], path: string): void } {
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
