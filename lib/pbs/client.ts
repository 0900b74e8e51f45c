import { type ReportedBalance, readReportedBalances } from './balances.ts';
import {
  type PbsClientConfig,
  type PbsCredentials,
  type ResolvedPbsConfig,
  resolveConfig,
} from './config.ts';
import { isDemoDataAnswer } from './demo-data.ts';
import { PbsHttpError, type PbsRequestError } from './errors.ts';
import type {
  DateBounds,
  Page,
  RawAccount,
  RawLedger,
  RawTimelineItem,
  RawTransaction,
  TimelineQuery,
  TransactionQuery,
} from './model.ts';
import { type FetchJson, type PageRequestOptions, paginate } from './pagination.ts';
import { type QueryParams, timelineParams, transactionParams } from './query.ts';
import { createTokenBucket } from './rate-limiter.ts';
import { withRetry } from './retry.ts';
import { parseDateBounds, parseProtocols, validateIdRecords, validateTransactions } from './schemas.ts';
import type { ServiceShape } from './shape.ts';
import { endpointTarget, sendSigned } from './transport.ts';

/** Counters of one client instance. */
export interface PbsClientStats {
  /** HTTP requests sent, every attempt counted. */
  requestsSent: number;
  /** Attempts that were retries of a failed one. */
  retries: number;
  /** 429 responses received. */
  rateLimited: number;
  /** Successful answers that carried the simulator's demo-data header (`demo-data.ts`). */
  demoDataAnswers: number;
}

/** Signed client of the Portfolio Balance Service API V2. */
export interface PbsClient {
  /** The wire shape the client reads. */
  readonly shape: ServiceShape;
  /** A snapshot of the counters. */
  readonly stats: PbsClientStats;
  /** Whether any answer so far came from the project's simulator (its data is demo data). */
  servedDemoData(): boolean;
  /** GET /v2/accounts, every page. */
  accounts(): AsyncIterable<RawAccount>;
  /** GET /v2/ledgers, every page. */
  ledgers(): AsyncIterable<RawLedger>;
  /** GET /v2/transactions, every page. Throws `ValidationError` at once for an invalid query. */
  transactions(query?: TransactionQuery): AsyncIterable<RawTransaction>;
  /**
   * GET /v2/transactions page by page, with the service's total item count when it sends one.
   * Every request goes through `requests.schedule` when given; with `requests.readAhead`, pages a
   * reported total promises are requested ahead (see `PageRequestOptions`), still yielded in order.
   */
  transactionPages(
    query?: TransactionQuery,
    requests?: PageRequestOptions,
  ): AsyncIterable<Page<RawTransaction>>;
  /** Always true: `transactionPages` sends every request through `requests.schedule`. */
  readonly schedulesRequests: true;
  /** The timeline endpoint, every page; deleted items are included when `lastModifiedDate` is given. */
  timeline(query?: TimelineQuery): AsyncIterable<RawTimelineItem>;
  timelinePages(query?: TimelineQuery): AsyncIterable<Page<RawTimelineItem>>;
  /** GET /v2/transactions/date-bounds. */
  dateBounds(): Promise<DateBounds>;
  /** GET /v2/transactions/metadata: DeFi protocol names, the valid values of `p`. */
  defiProtocols(): Promise<string[]>;
  /** Every ledger's reported balances (the shape's `balances`); null when the service reports none. */
  reportedBalances(): Promise<ReportedBalance[] | null>;
}

const CLOCK_ERROR = /timestamp|clock|skew/i;
const MIN_CLOCK_CORRECTION_MS = 5_000;

/**
 * Creates a client. Every attempt takes a token from the client's rate limiter, is signed with a
 * fresh timestamp, and is retried with full-jitter backoff on network errors, timeouts,
 * unreadable bodies, 429 and 5xx. Throws `ValidationError` for an invalid configuration.
 */
export function createPbsClient(config: PbsClientConfig): PbsClient {
  const cfg = resolveConfig(config);
  const stats: PbsClientStats = { requestsSent: 0, retries: 0, rateLimited: 0, demoDataAnswers: 0 };
  const fetchJson = createFetchJson(cfg, stats);
  const { shape } = cfg;
  const base = { baseUrl: cfg.baseUrl, origin: cfg.origin, basePathname: cfg.basePathname };
  const deletedPath = shape.fields.deleted;

  const pages = <T>(
    signedPath: string,
    params: QueryParams,
    validate: (items: unknown[], path: string) => T[],
    requests: PageRequestOptions = {},
  ) => paginate<T>({ shape, base, signedPath, params, fetchJson, validate, ...requests });

  const transactionPages = (
    query: TransactionQuery = {},
    requests: PageRequestOptions = {},
  ): AsyncIterable<Page<RawTransaction>> => {
    const params = transactionParams(query, shape, cfg.logger);
    // Items cut down to some fields keep those the validation reads, so it judges them as it would whole.
    const itemFields =
      requests.itemFields === undefined
        ? undefined
        : [...new Set([...requests.itemFields, shape.fields.id, shape.fields.date])];
    return pages(
      '/v2/transactions',
      params,
      (items, path) => validateTransactions(items, shape.fields, shape.itemsPath, path),
      itemFields === undefined ? requests : { ...requests, itemFields },
    );
  };

  const timelinePages = (query: TimelineQuery = {}): AsyncIterable<Page<RawTimelineItem>> => {
    const params = timelineParams(query, shape);
    return pages(shape.timeline.path, params, (items, path) =>
      validateTransactions(items, shape.fields, shape.itemsPath, path, deletedPath),
    );
  };

  const single = async (signedPath: string) => {
    const target = endpointTarget(cfg.baseUrl, signedPath, []);
    return { target, response: await fetchJson(target) };
  };

  return {
    shape,
    get stats() {
      return { ...stats };
    },
    servedDemoData: () => stats.demoDataAnswers > 0,
    accounts: () =>
      flatten(pages('/v2/accounts', [], (items, path) => validateIdRecords(items, shape.itemsPath, path))),
    ledgers: () =>
      flatten(pages('/v2/ledgers', [], (items, path) => validateIdRecords(items, shape.itemsPath, path))),
    transactions: (query) => flatten(transactionPages(query)),
    transactionPages,
    schedulesRequests: true,
    timeline: (query) => flatten(timelinePages(query)),
    timelinePages,
    async dateBounds() {
      const { target, response } = await single('/v2/transactions/date-bounds');
      return parseDateBounds(response.body, shape, target.path);
    },
    async defiProtocols() {
      const { target, response } = await single('/v2/transactions/metadata');
      return parseProtocols(response.body, shape, target.path);
    },
    reportedBalances: () =>
      readReportedBalances({
        source: shape.balances,
        instants: shape.instants,
        ledgers: () =>
          flatten(pages('/v2/ledgers', [], (items, path) => validateIdRecords(items, shape.itemsPath, path))),
        getJson: async (path) => (await single(path)).response.body,
      }),
  };
}

/** One rate-limited, signed, retried request per call; shared by every listing of the client. */
function createFetchJson(cfg: ResolvedPbsConfig, stats: PbsClientStats): FetchJson {
  const limiter = createTokenBucket({
    ratePerSecond: cfg.requestsPerSecond,
    burst: cfg.burst,
    initialTokens: cfg.initialTokens,
    now: cfg.now,
    sleep: cfg.sleep,
  });
  let clockOffsetMs = 0;
  let credentials = cfg.credentials;
  // One refresh at a time, shared by every request refused meanwhile.
  let refreshing: Promise<PbsCredentials> | null = null;
  const refreshCredentials = (refresh: () => Promise<PbsCredentials>): Promise<PbsCredentials> => {
    refreshing ??= refresh().finally(() => {
      refreshing = null;
    });
    return refreshing;
  };

  return (target, parse) => {
    let correctedClock = false;
    let refreshedCredentials = false;
    // What the last attempt was signed with: a refusal only says something about those.
    let signedOffsetMs = clockOffsetMs;
    let signedWith = credentials;

    const recoverClock = (error: PbsHttpError): boolean => {
      if (correctedClock || !cfg.correctClockSkew || error.serverDateMs === null) return false;
      if (!CLOCK_ERROR.test(`${error.serviceCode ?? ''} ${error.serviceMessage ?? ''}`)) return false;
      correctedClock = true;
      // Another request corrected the clock since this one was signed: sign again with it.
      if (clockOffsetMs !== signedOffsetMs) return true;
      const offset = error.serverDateMs - cfg.now();
      // A Date header has 1 s resolution; only a clear disagreement can explain the refusal.
      if (Math.abs(offset - clockOffsetMs) < MIN_CLOCK_CORRECTION_MS) return false;
      clockOffsetMs = offset;
      cfg.logger.warn('PBS refused the request timestamp; correcting by the server Date header', {
        path: error.path,
        clockOffsetMs,
      });
      return true;
    };

    const recoverCredentials = async (error: PbsHttpError): Promise<boolean> => {
      const refresh = cfg.refreshCredentials;
      if (refreshedCredentials || refresh === undefined) return false;
      if (CLOCK_ERROR.test(`${error.serviceCode ?? ''} ${error.serviceMessage ?? ''}`)) return false;
      refreshedCredentials = true;
      // Another request may already have refreshed them since this one was signed.
      if (!sameCredentials(credentials, signedWith)) return true;
      const fresh = await refreshCredentials(refresh);
      if (sameCredentials(fresh, signedWith)) return false;
      credentials = { ...fresh };
      cfg.logger.warn('PBS refused the credentials; signing again with refreshed ones', { path: error.path });
      return true;
    };

    const recover = async (error: PbsRequestError): Promise<boolean> => {
      if (!(error instanceof PbsHttpError) || error.status !== 401) return false;
      return recoverClock(error) || (await recoverCredentials(error));
    };

    return withRetry(
      async () => {
        await limiter.acquire();
        stats.requestsSent++;
        const nowMs = cfg.now();
        signedOffsetMs = clockOffsetMs;
        signedWith = credentials;
        try {
          const response = await sendSigned(target, {
            fetch: cfg.fetch,
            credentials: signedWith,
            timeoutMs: cfg.timeoutMs,
            maxResponseBytes: cfg.maxResponseBytes,
            timestamp: Math.max(0, Math.round(nowMs + signedOffsetMs)),
            nowMs,
            ...(parse === undefined ? {} : { parse }),
          });
          if (isDemoDataAnswer(response.headers)) stats.demoDataAnswers++;
          return response;
        } catch (error) {
          if (error instanceof PbsHttpError && error.status === 429) stats.rateLimited++;
          throw error;
        }
      },
      {
        options: cfg.retry,
        sleep: cfg.sleep,
        random: cfg.random,
        logger: cfg.logger,
        onRetry: () => {
          stats.retries++;
        },
        recover,
      },
    );
  };
}

function sameCredentials(a: PbsCredentials, b: PbsCredentials): boolean {
  return a.apiKey === b.apiKey && a.apiSecret === b.apiSecret && a.profileGuid === b.profileGuid;
}

async function* flatten<T>(pages: AsyncIterable<Page<T>>): AsyncGenerator<T> {
  for await (const page of pages) yield* page.items;
}
