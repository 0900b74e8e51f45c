import type { ServiceShape } from '../pbs/index.ts';
import { ALL_TOKENS } from './catalog.ts';
import type { Portfolio } from './data.ts';
import { endOfDay, parseDateParam } from './dates.ts';
import { badParameter } from './errors.ts';

export type SortKey = 'date' | 'value' | 'fee';
export type SortOrder = 'asc' | 'desc';

/** A validated GET /v2/transactions query. `hash` set means every other filter is ignored. */
export interface SearchQuery {
  hash: string | null;
  tokens: string[];
  category: string | null;
  protocol: string | null;
  /** Window start, inclusive (ms), or null. */
  startMs: number | null;
  /** Window end, exclusive (ms), or null. */
  endMs: number | null;
  sort: SortKey;
  order: SortOrder;
}

/** Reads a parameter that may appear at most once; a repeat or (unless allowed) an empty value is a 400. */
export function singleParam(params: URLSearchParams, name: string): string | null {
  const values = params.getAll(name);
  if (values.length === 0) return null;
  if (values.length > 1) throw badParameter(name, 'must not be repeated');
  const value = values[0] as string;
  if (value === '') throw badParameter(name, 'must not be empty');
  return value;
}

/**
 * Validates the search parameters (spec filters t, cf, p, h, sort, order; GAPS.md date window in
 * the shape's names and format). When `h` is given the other filters are not even read (spec
 * rule 1: they are ignored); sort and order still apply.
 */
export function parseSearchQuery(params: URLSearchParams, shape: ServiceShape): SearchQuery {
  const sort = singleParam(params, 'sort') ?? 'date';
  if (sort !== 'date' && sort !== 'value' && sort !== 'fee') {
    throw badParameter('sort', `must be one of date, value, fee; got "${sort}"`);
  }
  const order = singleParam(params, 'order') ?? 'asc';
  if (order !== 'asc' && order !== 'desc') throw badParameter('order', `must be asc or desc; got "${order}"`);
  const hash = singleParam(params, 'h');
  const query: SearchQuery = {
    hash,
    tokens: [],
    category: null,
    protocol: null,
    startMs: null,
    endMs: null,
    sort,
    order,
  };
  if (hash !== null) return query;
  const tokens = params.getAll('t');
  if (tokens.some((t) => t === '')) throw badParameter('t', 'must not be empty');
  query.tokens = [...new Set(tokens)].sort();
  query.category = singleParam(params, 'cf');
  query.protocol = singleParam(params, 'p');
  const { startParam, endParam, dateFormat } = shape.window;
  const start = singleParam(params, startParam);
  const end = singleParam(params, endParam);
  if (start !== null) query.startMs = parseDateParam(startParam, start, dateFormat);
  if (end !== null) {
    const endMs = parseDateParam(endParam, end, dateFormat);
    query.endMs = dateFormat === 'iso-date' ? endOfDay(endMs) : endMs;
  }
  if (query.startMs !== null && query.endMs !== null && query.endMs < query.startMs) {
    throw badParameter(endParam, `must not be before ${startParam}`);
  }
  return query;
}

/**
 * Computes and caches the matching transaction indices of queries. Only compact `Int32Array`
 * index lists are kept (least recently used first out, bounded in bytes), so paging through a
 * large filtered result costs one scan, not one scan per page.
 */
export class QueryEngine {
  private readonly cache = new Map<string, Int32Array>();
  private bytes = 0;

  constructor(private readonly maxBytes = 64 * 1024 * 1024) {}

  /** Indices of the non-deleted transactions matching `query`, in the requested order. */
  search(portfolio: Portfolio, query: SearchQuery): Int32Array {
    const filterKey = JSON.stringify([
      query.hash,
      query.tokens,
      query.category,
      query.protocol,
      query.startMs,
      query.endMs,
    ]);
    const base = this.cached(`${portfolio.profile.apiKey}|s|${filterKey}`, () => filter(portfolio, query));
    if (query.sort === 'date' && query.order === 'asc') return base;
    return this.cached(`${portfolio.profile.apiKey}|s|${filterKey}|${query.sort}|${query.order}`, () =>
      sortIndices(portfolio, base, query.sort, query.order),
    );
  }

  /**
   * Indices of the timeline: every non-deleted transaction without `sinceMs`; with it, every
   * transaction whose lastModifiedDate is at or after `sinceMs`, deleted ones included.
   */
  timeline(portfolio: Portfolio, sinceMs: number | null): Int32Array {
    if (sinceMs === null) return this.search(portfolio, EVERYTHING);
    return this.cached(`${portfolio.profile.apiKey}|t|${sinceMs}`, () => {
      const out = new Int32Array(portfolio.count);
      let n = 0;
      for (let i = 0; i < portfolio.count; i += 1) {
        if (portfolio.core(i).lastModifiedSec * 1000 >= sinceMs) out[n++] = i;
      }
      return out.slice(0, n);
    });
  }

  private cached(key: string, compute: () => Int32Array): Int32Array {
    const hit = this.cache.get(key);
    if (hit) {
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const value = compute();
    this.cache.set(key, value);
    this.bytes += value.byteLength;
    for (const [oldKey, old] of this.cache) {
      if (this.bytes <= this.maxBytes || oldKey === key) break;
      this.cache.delete(oldKey);
      this.bytes -= old.byteLength;
    }
    return value;
  }
}

const EVERYTHING: SearchQuery = {
  hash: null,
  tokens: [],
  category: null,
  protocol: null,
  startMs: null,
  endMs: null,
  sort: 'date',
  order: 'asc',
};

/** First index whose date is at or after `ms` (dates are non-decreasing in the index). */
function lowerBound(portfolio: Portfolio, ms: number): number {
  let lo = 0;
  let hi = portfolio.count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (portfolio.dateMs(mid) < ms) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function filter(portfolio: Portfolio, query: SearchQuery): Int32Array {
  if (query.hash !== null) {
    const hash = query.hash;
    const hits: number[] = [];
    // Compare the first 32 bits first: building every hash string would dominate the scan.
    const head = /^0x[0-9a-f]{64}$/.test(hash) ? Number.parseInt(hash.slice(2, 10), 16) : -1;
    for (let i = 0; head >= 0 && i < portfolio.count; i += 1) {
      if (portfolio.hashHead(i) === head && !portfolio.isDeleted(i) && portfolio.hashOf(i) === hash)
        hits.push(i);
    }
    return Int32Array.from(hits);
  }
  const from = query.startMs === null ? 0 : lowerBound(portfolio, query.startMs);
  const to = query.endMs === null ? portfolio.count : lowerBound(portfolio, query.endMs);
  const tokenSet = new Set(query.tokens.map((s) => ALL_TOKENS.findIndex((t) => t.symbol === s)));
  const needCore = query.tokens.length > 0 || query.category !== null || query.protocol !== null;
  const out = new Int32Array(Math.max(0, to - from));
  let n = 0;
  for (let i = from; i < to; i += 1) {
    if (portfolio.isDeleted(i)) continue;
    if (needCore) {
      const core = portfolio.core(i);
      if (query.category !== null && core.category !== query.category) continue;
      if (query.protocol !== null && core.protocol !== query.protocol) continue;
      if (query.tokens.length > 0 && !core.legs.some((leg) => tokenSet.has(leg.token))) continue;
    }
    out[n++] = i;
  }
  return out.slice(0, n);
}

/** Orders `indices` by the sort key; ties are always broken by id ascending (= index ascending). */
function sortIndices(portfolio: Portfolio, indices: Int32Array, sort: SortKey, order: SortOrder): Int32Array {
  if (sort === 'date') {
    // Index order is date asc, id asc; for desc reverse it, then put each equal-date run back in id order.
    const out = indices.slice().reverse();
    let runStart = 0;
    for (let k = 1; k <= out.length; k += 1) {
      if (
        k === out.length ||
        portfolio.dateMs(out[k] as number) !== portfolio.dateMs(out[runStart] as number)
      ) {
        out.subarray(runStart, k).reverse();
        runStart = k;
      }
    }
    return out;
  }
  // Values and fees are integer cents, so comparing them is exact.
  const keys = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k += 1) {
    const core = portfolio.core(indices[k] as number);
    keys[k] = sort === 'value' ? core.valueCents : core.feeCents;
  }
  const direction = order === 'asc' ? 1 : -1;
  const positions = new Uint32Array(indices.length);
  for (let k = 0; k < positions.length; k += 1) positions[k] = k;
  positions.sort((a, b) => direction * ((keys[a] as number) - (keys[b] as number)) || a - b);
  const out = new Int32Array(indices.length);
  for (let k = 0; k < positions.length; k += 1) out[k] = indices[positions[k] as number] as number;
  return out;
}
