import { getPath } from '../../lib/pbs/path.ts';
import { resolveShape, type ServiceShape, type ServiceShapeOverrides } from '../../lib/pbs/shape.ts';
import { signRequest } from '../../lib/pbs/signing.ts';
import { Portfolio } from '../../lib/simulator/index.ts';
import type { SimulatedProfile } from '../../lib/simulator/types.ts';

/** Query pairs in order; repeated names allowed. */
export type QueryPairs = [string, string][];

/** Options of a signed test request; every field bends one part of the signing on purpose. */
export interface SignedRequestOptions {
  query?: QueryPairs;
  /** Timestamp to sign and send; default `Date.now()`. */
  timestamp?: number;
  /** Path to sign instead of the request path (e.g. to sign a wrong path). */
  signPath?: string;
  /** Prefix the request path with a base path (not signed). */
  basePath?: string;
  /** Replace the computed signature. */
  signature?: string;
  /** Leave out `timestamp` or `signature`. */
  omit?: ('timestamp' | 'signature')[];
  /** Extra headers; `x-api-key` defaults to the profile's key (null leaves it out). */
  headers?: Record<string, string>;
  apiKey?: string | null;
}

/** Builds the URL of a signed GET per the spec: signature over path-from-/v2 + timestamp. */
export function signedUrl(
  baseUrl: string,
  profile: SimulatedProfile,
  path: string,
  options: SignedRequestOptions = {},
): string {
  const timestamp = options.timestamp ?? Date.now();
  const signature = options.signature ?? signRequest(options.signPath ?? path, timestamp, profile.apiSecret);
  const search = new URLSearchParams(options.query ?? []);
  if (!options.omit?.includes('timestamp')) search.append('timestamp', String(timestamp));
  if (!options.omit?.includes('signature')) search.append('signature', signature);
  return `${baseUrl}${options.basePath ?? ''}${path}?${search.toString()}`;
}

/** Sends a signed GET for `profile` and returns the fetch response. */
export function signedGet(
  baseUrl: string,
  profile: SimulatedProfile,
  path: string,
  options: SignedRequestOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...options.headers };
  const apiKey = options.apiKey === undefined ? profile.apiKey : options.apiKey;
  if (apiKey !== null) headers['x-api-key'] = apiKey;
  return fetch(signedUrl(baseUrl, profile, path, options), { headers });
}

/** Sends a signed GET and parses the JSON body, failing on a non-2xx status. */
export async function signedJson(
  baseUrl: string,
  profile: SimulatedProfile,
  path: string,
  options: SignedRequestOptions = {},
): Promise<unknown> {
  const response = await signedGet(baseUrl, profile, path, options);
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${path} answered ${response.status}: ${text.slice(0, 200)}`);
  return JSON.parse(text) as unknown;
}

/**
 * Reads every page of a list endpoint the way a client of `shape` would, and returns all items.
 * Stops at a short or empty page, a missing cursor or a missing `Link rel="next"`.
 */
export async function fetchAllItems(
  baseUrl: string,
  profile: SimulatedProfile,
  path: string,
  query: QueryPairs = [],
  overrides: ServiceShapeOverrides = {},
  options: { timestamp?: () => number; maxPages?: number } = {},
): Promise<Record<string, unknown>[]> {
  const shape: ServiceShape = resolveShape(overrides);
  const { pagination } = shape;
  const all: Record<string, unknown>[] = [];
  const stamp = options.timestamp ?? Date.now;
  let cursor: string | null = null;
  let nextUrl: string | null = null;
  for (let pageIndex = 0; pageIndex < (options.maxPages ?? 10_000); pageIndex += 1) {
    let url: string;
    if (nextUrl !== null) {
      const parsed = new URL(nextUrl);
      const timestamp = stamp();
      parsed.searchParams.append('timestamp', String(timestamp));
      parsed.searchParams.append('signature', signRequest(path, timestamp, profile.apiSecret));
      url = parsed.toString();
    } else {
      const pairs: QueryPairs = [...query];
      if (pagination.style === 'page') {
        pairs.push([pagination.pageParam, String(pagination.firstPage + pageIndex)]);
      } else if (pagination.style === 'offset') {
        pairs.push([pagination.offsetParam, String(all.length)]);
      } else if (cursor !== null) {
        pairs.push([pagination.cursorParam, cursor]);
      }
      url = signedUrl(baseUrl, profile, path, { query: pairs, timestamp: stamp() });
    }
    const response = await fetch(url, { headers: { 'x-api-key': profile.apiKey } });
    const text = await response.text();
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}: ${text.slice(0, 200)}`);
    const body = JSON.parse(text) as unknown;
    const items = (shape.itemsPath === null ? body : getPath(body, shape.itemsPath)) as Record<
      string,
      unknown
    >[];
    all.push(...items);
    if (pagination.style === 'cursor') {
      if (pagination.next.from === 'field' && shape.itemsPath !== null) {
        const next = getPath(body, pagination.next.path);
        if (typeof next !== 'string' || next === '') return all;
        cursor = next;
      } else {
        const link = response.headers.get('link');
        const match = link ? /<([^>]+)>;\s*rel="next"/.exec(link) : null;
        if (!match?.[1]) return all;
        nextUrl = match[1];
      }
    } else {
      const size = pagination.style === 'page' ? pagination.pageSize : pagination.limit;
      if (items.length < size) return all;
    }
  }
  throw new Error(`more than ${options.maxPages} pages`);
}

/**
 * The ids the simulator's generator holds for `profile` (served with `seed`) in [start, end),
 * deleted ones left out, ordered by date then id: computed from the seeded dataset itself, an
 * expectation independent of any client or search that reads it.
 */
export function generatedIds(profile: SimulatedProfile, seed: number, start: string, end: string): string[] {
  const portfolio = new Portfolio(profile, seed);
  const [from, to] = [Date.parse(start), Date.parse(end)];
  return Array.from({ length: portfolio.count }, (_, i) => i)
    .filter((i) => !portfolio.isDeleted(i) && portfolio.dateMs(i) >= from && portfolio.dateMs(i) < to)
    .map((i) => ({ at: portfolio.dateMs(i), id: portfolio.idOf(i) }))
    .sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((tx) => tx.id);
}
