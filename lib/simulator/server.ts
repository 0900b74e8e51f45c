import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ValidationError } from '../errors.ts';
import { DEMO_DATA_HEADER, DEMO_DATA_VALUE, resolveShape, type ServiceShape, setPath } from '../pbs/index.ts';
import { authenticate } from './auth.ts';
import {
  type BalanceFaults,
  type BalanceItem,
  checkBalanceFaults,
  reportedBalances,
  withHidden,
} from './balances.ts';
import { isoInstant, Portfolio } from './data.ts';
import { parseDateParam } from './dates.ts';
import { errorBody, HttpError } from './errors.ts';
import { type FaultKind, FaultPlan } from './faults.ts';
import { type ListRequestContext, parsePageWindow, renderPage } from './paging.ts';
import { type EditedView, type EditsContext, editedView, type PastEdit, PastEdits } from './past-edits.ts';
import { DEFAULT_PROFILES } from './profiles.ts';
import { parseSearchQuery, QueryEngine, singleParam } from './query.ts';
import { RateLimiter } from './rate-limit.ts';
import { type Reply, writeReply } from './respond.ts';
import { renderTransaction, wrapAt } from './shape-render.ts';
import type {
  FaultOptions,
  RequestLogEntry,
  RunningSimulator,
  SimulatedProfile,
  SimulatorOptions,
} from './types.ts';

type Route = 'accounts' | 'ledgers' | 'transactions' | 'date-bounds' | 'metadata' | 'timeline' | 'balances';

interface Outcome {
  reply: Reply;
  fault: FaultKind | null;
}

/** A fault that changes what a listing page says (see `FaultOptions.pageShift`/`wrongTotal`/`boundarySkip`). */
interface ListingFault {
  kind: 'pageShift' | 'wrongTotal' | 'boundarySkip';
  shift: number;
  totalDelta: number;
  adjustTotal: boolean;
  /** Set by the listing when the fault changed the page (a first page is never shifted). */
  applied: boolean;
}

interface Context {
  shape: ServiceShape;
  portfolio: Portfolio;
  params: URLSearchParams;
  list: ListRequestContext;
  engine: QueryEngine;
  listingFault: ListingFault | null;
  /** The portfolio with the past edits in force applied, or null when none is (see `past-edits.ts`). */
  edited: EditedView | null;
  /** The ledgers' reported balances now, by ledger id (computed when asked). */
  balances: () => Map<string, BalanceItem[]>;
  /** The ledger of the balances endpoint's path (`shape.balances.pathTemplate`). */
  ledgerId?: string;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const MAX_TRANSACTIONS = 50_000_000;

function routesOf(shape: ServiceShape): Map<string, Route> {
  return new Map<string, Route>([
    ['/v2/accounts', 'accounts'],
    ['/v2/ledgers', 'ledgers'],
    ['/v2/transactions', 'transactions'],
    ['/v2/transactions/date-bounds', 'date-bounds'],
    ['/v2/transactions/metadata', 'metadata'],
    [shape.timeline.path, 'timeline'],
  ]);
}

/**
 * The balances endpoint of the shape (`source: endpoint`): its path matched, the ledger id read
 * from it; null for any other source or path.
 */
function matchBalancesPath(shape: ServiceShape, signedPath: string): string | null {
  if (shape.balances.source !== 'endpoint') return null;
  const [before, after] = shape.balances.pathTemplate.split('{ledgerId}') as [string, string];
  if (!signedPath.startsWith(before) || !signedPath.endsWith(after)) return null;
  const id = signedPath.slice(before.length, signedPath.length - after.length);
  return id === '' || id.includes('/') ? null : decodeURIComponent(id);
}

function json(body: unknown, headers: Record<string, string> = {}): Reply {
  return { status: 200, body: JSON.stringify(body), headers };
}

function errorReply(error: HttpError): Reply {
  return { status: error.status, body: errorBody(error.code, error.message), headers: error.headers };
}

/**
 * Pages through `total` items built by `build(k)` for positions k of the listing; a listing fault
 * moves the page's items (pageShift) or misreports its total (wrongTotal).
 */
function listReply(ctx: Context, total: number, build: (position: number) => unknown): Reply {
  const { pagination, itemsPath } = ctx.shape;
  const window = parsePageWindow(pagination, ctx.params, ctx.list);
  let start = window.offset;
  let pagingTotal = total;
  let reportedTotal = total;
  const fault = ctx.listingFault;
  if (fault?.kind === 'boundarySkip' && window.offset > 0) {
    // The same rows lost on every listing of this page size: no total moves, nothing is drawn.
    start = window.offset + fault.shift;
    fault.applied = true;
  } else if (fault?.kind === 'pageShift' && window.offset > 0) {
    start = Math.max(0, window.offset + fault.shift);
    if (fault.adjustTotal) {
      pagingTotal = Math.max(0, total - fault.shift);
      reportedTotal = pagingTotal;
    }
    fault.applied = true;
  } else if (fault?.kind === 'wrongTotal' && reportsTotal(pagination)) {
    reportedTotal = Math.max(0, total + fault.totalDelta);
    fault.applied = reportedTotal !== total;
  }
  const items: unknown[] = [];
  const end = Math.min(total, start + window.size);
  for (let k = start; k < end; k += 1) items.push(build(k));
  const page = renderPage(pagination, itemsPath, items, pagingTotal, window, ctx.list, reportedTotal);
  return json(page.body, page.headers);
}

/** The every-page fault of `FaultOptions.boundarySkip`, or null when it is not configured. */
function boundarySkipOf(options: FaultOptions): ListingFault | null {
  const items = Math.floor(options.boundarySkip?.items ?? 0);
  if (items <= 0) return null;
  return { kind: 'boundarySkip', shift: items, totalDelta: 0, adjustTotal: false, applied: false };
}

/** A request as `FaultOptions.drawPerRequest` tells requests apart: path and query, unsigned. */
function requestKey(signedPath: string, params: URLSearchParams): string {
  const pairs = [...params].filter(([name]) => name !== 'timestamp' && name !== 'signature');
  return `${signedPath}?${new URLSearchParams(pairs).toString()}`;
}

/** Whether the shape's pages carry a total item or page count. */
function reportsTotal(pagination: ServiceShape['pagination']): boolean {
  if (pagination.totalItemsPath) return true;
  return pagination.style === 'page' && Boolean(pagination.totalPagesPath);
}

function handle(route: Route, ctx: Context): Reply {
  const { shape, portfolio } = ctx;
  if (route === 'balances') {
    const items = ctx.balances().get(ctx.ledgerId ?? '');
    if (items === undefined) throw new HttpError(404, 'not_found', `no ledger "${ctx.ledgerId}"`);
    const at = shape.balances.source === 'endpoint' ? shape.balances.itemsPath : null;
    return json(wrapAt(at, items));
  }
  if (ctx.edited !== null && route !== 'accounts' && route !== 'ledgers')
    return handleEdited(route, ctx, ctx.edited);
  switch (route) {
    case 'accounts':
      return listReply(ctx, portfolio.accounts.length, (k) => ({ ...portfolio.accounts[k] }));
    case 'ledgers': {
      const field = shape.balances.source === 'ledger-field' ? shape.balances.path : null;
      const balances = field === null ? null : ctx.balances();
      return listReply(ctx, portfolio.ledgers.length, (k) => {
        const ledger = structuredClone(portfolio.ledgers[k]) as unknown as Record<string, unknown>;
        if (field !== null && balances !== null)
          setPath(ledger, field, balances.get(String(ledger.id)) ?? []);
        return ledger;
      });
    }
    case 'transactions': {
      const indices = ctx.engine.search(portfolio, parseSearchQuery(ctx.params, shape));
      return listReply(ctx, indices.length, (k) =>
        renderTransaction(portfolio.transaction(indices[k] as number), shape.fields),
      );
    }
    case 'timeline': {
      const text = singleParam(ctx.params, 'lastModifiedDate');
      const since =
        text === null
          ? null
          : parseDateParam('lastModifiedDate', text, shape.timeline.lastModifiedDateFormat);
      const indices = ctx.engine.timeline(portfolio, since);
      return listReply(ctx, indices.length, (k) =>
        renderTransaction(portfolio.timelineItem(indices[k] as number), shape.fields),
      );
    }
    case 'date-bounds': {
      const bounds = portfolio.dateBounds();
      const body: Record<string, unknown> = {};
      setPath(
        body,
        shape.dateBounds.earliestPath,
        bounds.earliestMs === null ? null : isoInstant(bounds.earliestMs),
      );
      setPath(
        body,
        shape.dateBounds.latestPath,
        bounds.latestMs === null ? null : isoInstant(bounds.latestMs),
      );
      return json(body);
    }
    case 'metadata':
      return json(wrapAt(shape.metadata.protocolsPath, portfolio.protocols()));
  }
}

/** The transaction routes over a portfolio that past edits changed (materialised, sorted by date then id). */
function handleEdited(
  route: Exclude<Route, 'accounts' | 'ledgers' | 'balances'>,
  ctx: Context,
  view: EditedView,
): Reply {
  const { shape, portfolio } = ctx;
  const listed = (items: Record<string, unknown>[]) =>
    listReply(ctx, items.length, (k) => renderTransaction(items[k] as Record<string, unknown>, shape.fields));
  switch (route) {
    case 'transactions':
      return listed(view.search(parseSearchQuery(ctx.params, shape)));
    case 'timeline': {
      const text = singleParam(ctx.params, 'lastModifiedDate');
      const since =
        text === null
          ? null
          : parseDateParam('lastModifiedDate', text, shape.timeline.lastModifiedDateFormat);
      return listed(
        view.timeline(since).map((tx) => {
          if (tx.source !== undefined) return tx;
          const ledger = portfolio.ledgers.find((l) => l.id === tx.ledgerId);
          return {
            ...tx,
            source: { sourceGuid: ledger?.source.sourceGuid ?? null, name: ledger?.source.name ?? null },
          };
        }),
      );
    }
    case 'date-bounds': {
      const all = view.all();
      const first = all[0]?.date ?? null;
      const last = all[all.length - 1]?.date ?? null;
      const body: Record<string, unknown> = {};
      setPath(
        body,
        shape.dateBounds.earliestPath,
        first === null ? null : isoInstant(Date.parse(first as string)),
      );
      setPath(
        body,
        shape.dateBounds.latestPath,
        last === null ? null : isoInstant(Date.parse(last as string)),
      );
      return json(body);
    }
    case 'metadata': {
      const names = new Set(
        view.all().flatMap((tx) => (typeof tx.protocol === 'string' ? [tx.protocol] : [])),
      );
      return json(wrapAt(shape.metadata.protocolsPath, [...names].sort()));
    }
  }
}

function headerRecord(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(req.headers))
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  return out;
}

/**
 * Starts the simulator of the Portfolio Balance Service API V2 on 127.0.0.1: signed GET
 * endpoints per the spec and the GAPS.md default shape (or `options.shape`), seeded lazily
 * generated data, a per-key token-bucket rate limit and seeded fault injection.
 */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const seed = options.seed ?? 1;
  const now = options.now ?? Date.now;
  const shape = resolveShape(options.shape);
  const profiles = (options.profiles ?? DEFAULT_PROFILES).map((p) => ({ ...p }));
  validateProfiles(profiles);
  const maxSkewMs = options.maxClockSkewMs ?? 300_000;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const routes = routesOf(shape);
  const portfolios = new Map<string, Portfolio>();
  const profilesByKey = new Map<string, SimulatedProfile>(profiles.map((p) => [p.apiKey, p]));
  const engine = new QueryEngine();
  const limiter = new RateLimiter(options.rateLimitPerSecond ?? 20);
  const faults = new FaultPlan(seed, options.faults);
  const pastEdits = new PastEdits();
  // Edits are checked against the profiles and their generated ids as they are added.
  const editsContext: EditsContext = {
    profiles: profiles.map((profile) => profile.name),
    hasLive: (name, id) => {
      const profile = profiles.find((candidate) => candidate.name === name);
      return profile !== undefined && portfolioOf(profile).liveIndexOf(id) !== undefined;
    },
  };
  const log: RequestLogEntry[] = [];
  const logLimit = options.requestLogLimit ?? Number.POSITIVE_INFINITY;
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let closing = false;

  // Keyed by profile name, so a rotated key serves the same portfolio.
  const portfolioOf = (profile: SimulatedProfile): Portfolio => {
    let portfolio = portfolios.get(profile.name);
    if (!portfolio) {
      portfolio = new Portfolio(profile, seed);
      portfolios.set(profile.name, portfolio);
    }
    return portfolio;
  };
  pastEdits.add(options.pastEdits ?? [], editsContext);
  let balanceFaults: BalanceFaults = options.balanceFaults ?? {};
  const setBalanceFaults = (next: BalanceFaults) => {
    checkBalanceFaults(next, editsContext.profiles, editsContext.hasLive);
    balanceFaults = next;
  };
  setBalanceFaults(balanceFaults);

  const later = (ms: number, fn: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      fn();
    }, ms);
    timers.add(timer);
  };

  const pause = (ms: number): Promise<void> => new Promise((resolve) => later(ms, resolve));

  /** Routes, authenticates, rate-limits, draws the fault and runs the handler. */
  const decide = (req: IncomingMessage, url: URL, signedPath: string | null): Outcome => {
    if (req.method !== 'GET') {
      const error = new HttpError(405, 'method_not_allowed', 'only GET is served', { allow: 'GET' });
      return { reply: errorReply(error), fault: null };
    }
    const ledgerId = signedPath === null ? null : matchBalancesPath(shape, signedPath);
    const route: Route | undefined =
      signedPath === null ? undefined : ledgerId !== null ? 'balances' : routes.get(signedPath);
    if (signedPath === null || !route) {
      return {
        reply: errorReply(new HttpError(404, 'not_found', `no endpoint at ${url.pathname}`)),
        fault: null,
      };
    }
    try {
      const profile = authenticate(
        { headers: req.headers, params: url.searchParams, signedPath },
        profilesByKey,
        now(),
        maxSkewMs,
      );
      const wait = limiter.take(profile.apiKey, now());
      if (wait > 0) {
        const message = 'more requests per second than allowed for this API key';
        const error = new HttpError(429, 'rate_limited', message, { 'retry-after': String(wait) });
        return { reply: errorReply(error), fault: null };
      }
      const faulted = faults.applies(signedPath, url.pathname);
      const fault = faulted ? faults.decide(requestKey(signedPath, url.searchParams)) : null;
      if (fault?.kind === 'rateLimited') {
        const seconds = String(faults.current.rateLimited?.retryAfterSeconds ?? 1);
        const error = new HttpError(429, 'rate_limited', 'too many requests', { 'retry-after': seconds });
        return { reply: errorReply(error), fault: fault.kind };
      }
      if (fault?.kind === 'serverError') {
        const code =
          fault.status === 500 ? 'internal_error' : fault.status === 502 ? 'bad_gateway' : 'unavailable';
        return {
          reply: errorReply(new HttpError(fault.status, code, 'simulated server error')),
          fault: fault.kind,
        };
      }
      const listingFault: ListingFault | null =
        fault?.kind === 'pageShift' || fault?.kind === 'wrongTotal'
          ? {
              kind: fault.kind,
              shift: fault.shift,
              totalDelta: fault.totalDelta,
              adjustTotal: faults.current.pageShift?.adjustTotal ?? false,
              applied: false,
            }
          : faulted
            ? boundarySkipOf(faults.current)
            : null;
      const portfolio = portfolioOf(profile);
      const effective = pastEdits.effective(profile.name, now());
      const touched = pastEdits.touched(portfolio, effective);
      const listed = withHidden(portfolio, new Map(touched), balanceFaults);
      const reply = handle(route, {
        shape,
        portfolio,
        edited: listed.size === 0 ? null : editedView(portfolio, listed),
        balances: () => reportedBalances(portfolio, touched, balanceFaults),
        ...(ledgerId === null ? {} : { ledgerId }),
        params: url.searchParams,
        engine,
        list: {
          urlWithoutQuery: `http://${req.headers.host ?? '127.0.0.1'}${url.pathname}`,
          query: [...url.searchParams],
          path: signedPath,
        },
        listingFault,
      });
      if (listingFault !== null) return { reply, fault: listingFault.applied ? listingFault.kind : null };
      return { reply, fault: fault?.kind ?? null };
    } catch (error) {
      if (error instanceof HttpError) return { reply: errorReply(error), fault: null };
      throw error;
    }
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headerValues = headerRecord(req);
    const entry: RequestLogEntry = {
      at: now(),
      method: req.method ?? '',
      path: url.pathname,
      query: [...url.searchParams],
      headers: headerValues,
      apiKey: headerValues['x-api-key'],
      status: 0,
    };
    log.push(entry);
    if (log.length > logLimit) log.splice(0, log.length - logLimit);
    const signedPath = stripBase(url.pathname);
    let outcome: Outcome;
    try {
      outcome = decide(req, url, signedPath);
    } catch (error) {
      const failure = new HttpError(500, 'internal_error', `simulator failure: ${String(error)}`);
      outcome = { reply: errorReply(failure), fault: null };
    }
    const { reply, fault } = outcome;
    if (fault !== null) entry.fault = fault;
    const latency = faults.applies(signedPath ?? url.pathname, url.pathname)
      ? (faults.current.latencyMs ?? 0)
      : 0;
    if (latency > 0) {
      entry.fault ??= 'latency';
      await pause(latency);
      if (closing) return;
    }
    entry.status = reply.status;
    const headers = {
      'content-type': JSON_TYPE,
      date: new Date(now()).toUTCString(),
      // Every answer says it is demo data, however the simulator is reached (see demo-data.ts).
      [DEMO_DATA_HEADER]: DEMO_DATA_VALUE,
    };
    const stallMs = faults.current.stalledBody?.stallMs ?? 60_000;
    writeReply(req, res, reply, headers, fault, { stallMs, later });
  };

  /** The path from `/v2` on (the signed path), or null when the request is outside the base path. */
  const stripBase = (fullPath: string): string | null => {
    if (basePath === '') return fullPath;
    return fullPath.startsWith(`${basePath}/`) ? fullPath.slice(basePath.length) : null;
  };

  const server = createServer((req, res) => {
    onRequest(req, res).catch((error: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': JSON_TYPE, [DEMO_DATA_HEADER]: DEMO_DATA_VALUE });
        res.end(errorBody('internal_error', String(error)));
      } else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;

  return {
    url: `http://127.0.0.1:${port}`,
    profiles,
    requestLog: log,
    clearLog: () => {
      log.length = 0;
    },
    setFaults: (next: FaultOptions) => faults.replace(next),
    editPast: (edits: readonly PastEdit[]) => pastEdits.add(edits, editsContext),
    setBalanceFaults,
    rotateCredentials: (name, next) => {
      const profile = profiles.find((p) => p.name === name);
      if (!profile) throw new ValidationError('profile', `no simulated profile "${name}"`);
      const holder = profilesByKey.get(next.apiKey);
      if (holder !== undefined && holder !== profile) {
        throw new ValidationError('apiKey', 'is used by another profile');
      }
      profilesByKey.delete(profile.apiKey);
      profile.apiKey = next.apiKey;
      profile.apiSecret = next.apiSecret;
      profilesByKey.set(profile.apiKey, profile);
    },
    close: async () => {
      closing = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}

/** Rejects profile lists the generator cannot serve: bad counts, duplicate API keys. */
function validateProfiles(profiles: SimulatedProfile[]): void {
  const keys = new Set<string>();
  profiles.forEach((p, k) => {
    // Dates are spread with exact integer arithmetic that stays below 2^53 up to this count.
    if (!Number.isSafeInteger(p.transactions) || p.transactions < 0 || p.transactions > MAX_TRANSACTIONS) {
      throw new ValidationError(
        `profiles[${k}].transactions`,
        `must be an integer from 0 to ${MAX_TRANSACTIONS}`,
      );
    }
    if (keys.has(p.apiKey)) throw new ValidationError(`profiles[${k}].apiKey`, 'is used by another profile');
    keys.add(p.apiKey);
  });
}
