/**
 * A misbehaving stand-in for the service on a loopback port, for tests of what the client must
 * not trust. Unlike the simulator it writes bodies from raw JSON text (so number tokens reach the
 * client exactly as typed), and lets a test answer any request as it likes: redirect it, stream
 * an endless body, echo the credentials back.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the server saw. */
export interface SeenRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  headers: IncomingMessage['headers'];
}

/** Answers one request; return false to fall through to the default service answers. */
export type HostileHandler = (request: IncomingMessage, response: ServerResponse) => boolean | undefined;

export interface FakeServiceData {
  /** Transactions as raw JSON object texts, in the order a date-sorted search returns them. */
  transactions: string[];
  /** The date-bounds body as raw JSON text. */
  dateBounds: string;
  /** The metadata body as raw JSON text. Default: no protocols. */
  metadata?: string;
  /** Whether transaction pages report `totalItems`/`totalPages`. Default true. */
  totals?: boolean;
  /** Picks the transactions a search returns (default: all), from the request's query. */
  select?: (query: URLSearchParams, items: readonly string[]) => string[];
}

export interface HostileServer {
  url: string;
  requests: SeenRequest[];
  close(): Promise<void>;
}

/**
 * Starts a server on 127.0.0.1 that answers the default shape's endpoints from `data` (page
 * numbers, `page`/`pageSize`), after giving `handler` the first word on every request. It checks
 * no signature: it stands for a server that is wrong, not one that is strict.
 */
export async function startHostileServer(
  data: FakeServiceData,
  handler: HostileHandler = () => false,
): Promise<HostileServer> {
  const requests: SeenRequest[] = [];
  const server: Server = createServer((request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    if (handler(request, response) === true) return;
    answerAsService(request, response, data);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function answerAsService(request: IncomingMessage, response: ServerResponse, data: FakeServiceData): void {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const json = (body: string) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(body);
  };
  switch (url.pathname) {
    case '/v2/transactions/date-bounds':
      json(data.dateBounds);
      return;
    case '/v2/transactions/metadata':
      json(data.metadata ?? '{"defiProtocols":[]}');
      return;
    case '/v2/transactions': {
      const items = data.select ? data.select(url.searchParams, data.transactions) : data.transactions;
      json(pageBody(items, url.searchParams, data.totals ?? true));
      return;
    }
    default:
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end('{"error":{"code":"not_found","message":"unknown path"}}');
  }
}

function pageBody(items: readonly string[], query: URLSearchParams, totals: boolean): string {
  const page = Number(query.get('page') ?? '1');
  const pageSize = Number(query.get('pageSize') ?? '500');
  const slice = items.slice((page - 1) * pageSize, page * pageSize);
  const counts = totals
    ? `,"totalItems":${items.length},"totalPages":${Math.ceil(items.length / pageSize)}`
    : '';
  return `{"items":[${slice.join(',')}],"page":${page},"pageSize":${pageSize}${counts}}`;
}

/** A transaction of the default shape as JSON text, with `amount` and `value` spliced in raw. */
export function transactionText(options: {
  id: string;
  date: string;
  amount: string;
  value: string;
  protocol?: string | null;
  symbol?: string;
}): string {
  const protocol =
    options.protocol === undefined || options.protocol === null ? 'null' : JSON.stringify(options.protocol);
  return (
    `{"id":${JSON.stringify(options.id)},"date":${JSON.stringify(options.date)},"type":"trade","subType":"swap",` +
    `"category":"trade","protocol":${protocol},"hash":"0xabc","accountId":"acc_1","ledgerId":"led_1",` +
    `"movements":[{"symbol":${JSON.stringify(options.symbol ?? 'ETH')},"amount":${options.amount},"value":${options.value}}],` +
    `"value":{"amount":${options.value},"currency":"USD"},` +
    `"fee":{"amount":"0.10","currency":"USD","symbol":"ETH","quantity":"0.0001"},` +
    `"lastModifiedDate":${JSON.stringify(options.date)}}`
  );
}

/**
 * How a hostile service pages `/v2/transactions` (see {@link hostilePaging}). It reports no total;
 * `order=desc` lists the transactions newest first, and each fault applies in either order.
 */
export interface HostilePaging {
  /** Page numbers (`page`, 1-based, and `pageSize`) or offsets (`offset` and `limit`). */
  style: 'page' | 'offset';
  /** Rows a page whatever size is asked. */
  fixedPageSize?: number;
  /** At most this many rows a page; page numbers count pages of the capped size. */
  cap?: number;
  /** Page numbers: every page after the first starts this many rows late. */
  shiftAfterFirst?: number;
  /** Offsets: the first page also lists the newest transaction, which the offsets do not count. */
  pinnedNewest?: boolean;
  /** Offsets: the page asked at `offset` starts `by` rows late. */
  lateAt?: { offset: number; by: number };
}

/**
 * A handler answering `/v2/transactions` from `transactions` (JSON texts, oldest first, of distinct
 * instants), paged as `paging` says, without totals; other paths fall through.
 */
export function hostilePaging(transactions: readonly string[], paging: HostilePaging): HostileHandler {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname !== '/v2/transactions') return false;
    const listing = url.searchParams.get('order') === 'desc' ? [...transactions].reverse() : transactions;
    const asked = Number(url.searchParams.get(paging.style === 'page' ? 'pageSize' : 'limit') ?? '500');
    const size = paging.fixedPageSize ?? Math.min(asked, paging.cap ?? asked);
    const items =
      paging.style === 'page'
        ? numberedPage(listing, url, size, paging)
        : offsetPage(listing, url, size, paging);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(`{"items":[${items.join(',')}]}`);
    return true;
  };
}

function numberedPage(
  listing: readonly string[],
  url: URL,
  size: number,
  paging: HostilePaging,
): readonly string[] {
  const page = Number(url.searchParams.get('page') ?? '1');
  const start = (page - 1) * size + (page > 1 ? (paging.shiftAfterFirst ?? 0) : 0);
  return listing.slice(start, start + size);
}

function offsetPage(
  listing: readonly string[],
  url: URL,
  size: number,
  paging: HostilePaging,
): readonly string[] {
  const offset = Number(url.searchParams.get('offset') ?? '0');
  const start = offset + (paging.lateAt?.offset === offset ? paging.lateAt.by : 0);
  if (paging.pinnedNewest !== true) return listing.slice(start, start + size);
  const newest = newestOf(listing, url);
  const counted = listing.filter((_, at) => at !== newest);
  const pinned = listing[newest] as string;
  return start === 0 ? [pinned, ...counted.slice(0, size - 1)] : counted.slice(start, start + size);
}

/** Where the newest transaction is in `listing`: last oldest first, first newest first. */
function newestOf(listing: readonly string[], url: URL): number {
  return url.searchParams.get('order') === 'desc' ? 0 : listing.length - 1;
}
