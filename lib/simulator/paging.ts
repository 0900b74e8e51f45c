import type { Pagination } from '../pbs/index.ts';
import { setPath } from '../pbs/index.ts';
import { badParameter } from './errors.ts';
import { stringHash32 } from './random.ts';

/** The largest page the service returns (GAPS.md). */
export const MAX_PAGE_SIZE = 1000;

/** Where a page starts and how long it is, decoded from the request. */
export interface PageWindow {
  offset: number;
  size: number;
  /** Page number, for page-style pagination. */
  page: number;
}

/** What the list renderer needs to know about the request for follow-up links. */
export interface ListRequestContext {
  /** Absolute URL of the request without query string (basePath included). */
  urlWithoutQuery: string;
  /** Query pairs of the request, in order. */
  query: [string, string][];
  /** Path the cursor is bound to (signed path). */
  path: string;
}

const UNSIGNED = new Set(['timestamp', 'signature']);

function integerParam(
  params: URLSearchParams,
  name: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const values = params.getAll(name);
  if (values.length === 0) return fallback;
  if (values.length > 1) throw badParameter(name, 'must not be repeated');
  const text = values[0] as string;
  if (!/^\d{1,15}$/.test(text)) throw badParameter(name, `must be an integer, got "${text}"`);
  const value = Number(text);
  if (value < min || value > max) throw badParameter(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** Ties a cursor to its listing: the path plus every query pair except signing and paging ones. */
function fingerprint(context: ListRequestContext, pagination: Pagination): string {
  const skip = new Set(UNSIGNED);
  if (pagination.style === 'cursor') {
    skip.add(pagination.cursorParam);
    if (pagination.limitParam) skip.add(pagination.limitParam);
  }
  const pairs = context.query
    .filter(([k]) => !skip.has(k))
    .map(([k, v]) => `${k}=${v}`)
    .sort();
  return stringHash32(`${context.path}?${pairs.join('&')}`).toString(36);
}

function encodeCursor(offset: number, print: string): string {
  return Buffer.from(`${offset}.${print}`, 'utf8').toString('base64url');
}

/** Decodes the paging parameters of a list request per the configured pagination style. */
export function parsePageWindow(
  pagination: Pagination,
  params: URLSearchParams,
  context: ListRequestContext,
): PageWindow {
  if (pagination.style === 'page') {
    const size = integerParam(params, pagination.pageSizeParam, pagination.pageSize, 1, MAX_PAGE_SIZE);
    const page = integerParam(params, pagination.pageParam, pagination.firstPage, pagination.firstPage, 1e15);
    return { offset: (page - pagination.firstPage) * size, size, page };
  }
  if (pagination.style === 'offset') {
    const size = integerParam(params, pagination.limitParam, pagination.limit, 1, MAX_PAGE_SIZE);
    const offset = integerParam(params, pagination.offsetParam, 0, 0, 1e15);
    return { offset, size, page: 0 };
  }
  const size = pagination.limitParam
    ? integerParam(params, pagination.limitParam, pagination.limit, 1, MAX_PAGE_SIZE)
    : pagination.limit;
  const cursors = params.getAll(pagination.cursorParam);
  if (cursors.length > 1) throw badParameter(pagination.cursorParam, 'must not be repeated');
  const cursor = cursors[0];
  if (cursor === undefined) return { offset: 0, size, page: 0 };
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^(\d{1,15})\.([0-9a-z]+)$/.exec(decoded);
  if (!match || match[2] !== fingerprint(context, pagination)) {
    throw badParameter(pagination.cursorParam, 'is not a cursor of this listing');
  }
  return { offset: Number(match[1]), size, page: 0 };
}

/** A rendered list response: body and extra headers. */
export interface RenderedList {
  body: unknown;
  headers: Record<string, string>;
}

/**
 * Builds the response of one page: items at `itemsPath` (or a bare array), the paging fields of
 * the style (totals only where the shape has a path for them) and, for cursors, the next cursor
 * in a body field or a `Link: <url>; rel="next"` header (absent at the end). `total` decides where
 * the listing ends; `reportedTotal` (default `total`) is what the count fields say, so a fault can
 * misreport the count without changing the paging.
 */
export function renderPage(
  pagination: Pagination,
  itemsPath: string | null,
  items: unknown[],
  total: number,
  window: PageWindow,
  context: ListRequestContext,
  reportedTotal: number = total,
): RenderedList {
  const headers: Record<string, string> = {};
  const body: Record<string, unknown> = {};
  if (itemsPath !== null) setPath(body, itemsPath, items);
  if (pagination.style === 'page') {
    body[pagination.pageParam] = window.page;
    body[pagination.pageSizeParam] = window.size;
    if (pagination.totalItemsPath) setPath(body, pagination.totalItemsPath, reportedTotal);
    if (pagination.totalPagesPath)
      setPath(body, pagination.totalPagesPath, Math.ceil(reportedTotal / window.size));
  } else if (pagination.style === 'offset') {
    body[pagination.offsetParam] = window.offset;
    body[pagination.limitParam] = window.size;
    if (pagination.totalItemsPath) setPath(body, pagination.totalItemsPath, reportedTotal);
  } else {
    const nextOffset = window.offset + window.size;
    const next = nextOffset < total ? encodeCursor(nextOffset, fingerprint(context, pagination)) : null;
    if (pagination.totalItemsPath) setPath(body, pagination.totalItemsPath, reportedTotal);
    if (pagination.next.from === 'field' && itemsPath !== null) {
      setPath(body, pagination.next.path, next);
    } else if (next !== null) {
      // A bare array has no field for the cursor, so the Link header carries it in that case too.
      const search = new URLSearchParams(
        context.query.filter(([k]) => !UNSIGNED.has(k) && k !== pagination.cursorParam),
      );
      search.append(pagination.cursorParam, next);
      headers.link = `<${context.urlWithoutQuery}?${search.toString()}>; rel="next"`;
    }
  }
  return { body: itemsPath === null ? items : body, headers };
}
