import { ValidationError } from '../errors.ts';
import { instantReadingProblem } from './instant.ts';
import { resolveShape, type ServiceShape, type ServiceShapeOverrides } from './shape.ts';

/** Minimal structured logger (Powertools-compatible subset). */
export interface PbsLogger {
  warn(message: string, context?: Record<string, unknown>): void;
  debug(message: string, context?: Record<string, unknown>): void;
}

/** Credentials of one portfolio. */
export interface PbsCredentials {
  apiKey: string;
  apiSecret: string;
  /** Sent as `x-service-profile` when given; the service then serves that profile. */
  profileGuid?: string;
}

export interface PbsRetryOptions {
  /** Total attempts per request, the first one included. Default 6. */
  maxAttempts: number;
  /** Base of the exponential backoff. Default 250 ms. */
  baseDelayMs: number;
  /** Cap of one backoff delay before jitter. Default 20 000 ms. */
  maxDelayMs: number;
  /**
   * Longest `Retry-After` the client is willing to wait; a longer one ends the retries at once
   * with the 429/503 error, so a request never outlives its budget. Default 60 000 ms.
   */
  maxRetryAfterMs: number;
}

/** Configuration of `createPbsClient`. Only `baseUrl` and `credentials` are required. */
export interface PbsClientConfig {
  /** Service base URL; may carry a prefix (`https://host/api`), which is never signed. */
  baseUrl: string;
  credentials: PbsCredentials;
  /**
   * Wire shape of the deployment (GAPS.md alternatives); default: the GAPS.md default shape. Its
   * `instants` say how the service's instants are read (`instant.ts`): the zone of instants
   * written without an offset (default: none, they are refused) and the unit of epoch numbers
   * (default milliseconds; values outside 2009 … 2099 are refused as implausible).
   */
  shape?: ServiceShapeOverrides;
  /** Per-attempt timeout covering the headers and the whole body. Default 30 000 ms. */
  timeoutMs?: number;
  /**
   * Largest response body read, in bytes; a longer one fails the request (not retried) instead
   * of growing the process without bound. Default 64 MiB, some fifty times a 1 000-item page.
   */
  maxResponseBytes?: number;
  retry?: Partial<PbsRetryOptions>;
  /**
   * Token-bucket rate shared by all callers of one client, retries included. Default 20: the
   * service's limit per API key (GAPS.md), so one run at a time per key goes as fast as allowed.
   */
  requestsPerSecond?: number;
  /**
   * Token-bucket capacity. Default 1: requests evenly spaced. The service counts requests when
   * they arrive, not when they leave; a client bucket of `burst` at the service's own rate leaves
   * `(20 - burst) / 20` s of arrival jitter before a service bucket of 20 runs dry, so a larger
   * burst buys a few early requests at the cost of that margin.
   */
  burst?: number;
  /**
   * Tokens the bucket starts with, 0 … `burst`. Default `burst`. The Lambda workers use 0: a
   * client per task, tasks one after another in a Map slot, so a full new bucket per task would let
   * each slot exceed `requestsPerSecond` when tasks are short.
   */
  initialTokens?: number;
  /**
   * On a 401 that says the timestamp is off, re-sign once using the offset to the server's
   * `Date` header. Default true.
   */
  correctClockSkew?: boolean;
  /**
   * Called when the service refuses the credentials (a 401 that is not about the timestamp), e.g.
   * after a rotation: re-reads them (bypassing any cache). When they differ from the ones the
   * request was signed with, the request is signed again with them at once, and every later
   * request of the client uses them. Concurrent refusals share one call.
   */
  refreshCredentials?: () => Promise<PbsCredentials>;
  fetch?: typeof fetch;
  /** Clock in ms since the epoch. Default `Date.now`. */
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Uniform random in [0, 1), for backoff jitter. Default `Math.random`. */
  random?: () => number;
  logger?: PbsLogger;
}

/** Configuration with every default filled in. */
export interface ResolvedPbsConfig {
  /** Base URL without trailing slash. */
  baseUrl: string;
  /** Path part of the base URL without trailing slash (`''` or e.g. `/api`). */
  basePathname: string;
  /** `protocol//host:port` of the base URL. */
  origin: string;
  credentials: PbsCredentials;
  shape: ServiceShape;
  timeoutMs: number;
  maxResponseBytes: number;
  retry: PbsRetryOptions;
  requestsPerSecond: number;
  burst: number;
  initialTokens: number;
  correctClockSkew: boolean;
  refreshCredentials?: () => Promise<PbsCredentials>;
  fetch: typeof fetch;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  random: () => number;
  logger: PbsLogger;
}

/** Requests per second the service accepts per API key (spec: token bucket, 429 beyond). */
export const SERVICE_RATE_LIMIT_PER_KEY = 20;

/** Default values, in one place. */
export const PBS_CLIENT_DEFAULTS = Object.freeze({
  timeoutMs: 30_000,
  maxResponseBytes: 64 * 1024 * 1024,
  retry: Object.freeze({ maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 20_000, maxRetryAfterMs: 60_000 }),
  requestsPerSecond: SERVICE_RATE_LIMIT_PER_KEY,
  burst: 1,
  correctClockSkew: true,
});

const consoleLogger: PbsLogger = {
  warn: (message, context) => console.warn(JSON.stringify({ level: 'WARN', message, ...context })),
  debug: () => {},
};

const realSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Validates the configuration and fills in the defaults. Throws `ValidationError`. */
export function resolveConfig(config: PbsClientConfig): ResolvedPbsConfig {
  let url: URL;
  try {
    url = new URL(config.baseUrl);
  } catch (error) {
    throw new ValidationError('baseUrl', 'must be an absolute URL', { cause: error });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ValidationError('baseUrl', 'must use http or https');
  }
  if (url.search !== '' || url.hash !== '') {
    throw new ValidationError('baseUrl', 'must not carry a query string or fragment');
  }
  const { credentials } = config;
  requireText(credentials?.apiKey, 'credentials.apiKey');
  requireText(credentials?.apiSecret, 'credentials.apiSecret');
  if (credentials.profileGuid !== undefined) requireText(credentials.profileGuid, 'credentials.profileGuid');

  const instantsProblem = instantReadingProblem(config.shape?.instants ?? {});
  if (instantsProblem !== null) throw new ValidationError(instantsProblem.field, instantsProblem.reason);
  const shape = resolveShape(config.shape);
  if (!shape.timeline.path.startsWith('/v2/')) {
    throw new ValidationError('shape.timeline.path', 'must start with /v2/ (only V2 is supported)');
  }
  const retry = { ...PBS_CLIENT_DEFAULTS.retry, ...config.retry };
  const basePathname = url.pathname.replace(/\/+$/, '');
  const resolved: ResolvedPbsConfig = {
    baseUrl: `${url.origin}${basePathname}`,
    basePathname,
    origin: url.origin,
    credentials: { ...credentials },
    shape,
    timeoutMs: config.timeoutMs ?? PBS_CLIENT_DEFAULTS.timeoutMs,
    maxResponseBytes: config.maxResponseBytes ?? PBS_CLIENT_DEFAULTS.maxResponseBytes,
    retry,
    requestsPerSecond: config.requestsPerSecond ?? PBS_CLIENT_DEFAULTS.requestsPerSecond,
    burst: config.burst ?? PBS_CLIENT_DEFAULTS.burst,
    initialTokens: config.initialTokens ?? config.burst ?? PBS_CLIENT_DEFAULTS.burst,
    correctClockSkew: config.correctClockSkew ?? PBS_CLIENT_DEFAULTS.correctClockSkew,
    ...(config.refreshCredentials ? { refreshCredentials: config.refreshCredentials } : {}),
    fetch: config.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    now: config.now ?? Date.now,
    sleep: config.sleep ?? realSleep,
    random: config.random ?? Math.random,
    logger: config.logger ?? consoleLogger,
  };
  requirePositive(resolved.timeoutMs, 'timeoutMs');
  requirePositive(resolved.maxResponseBytes, 'maxResponseBytes');
  requirePositive(resolved.requestsPerSecond, 'requestsPerSecond');
  requirePositive(resolved.burst, 'burst');
  requireNonNegative(resolved.initialTokens, 'initialTokens');
  if (!Number.isInteger(retry.maxAttempts) || retry.maxAttempts < 1) {
    throw new ValidationError('retry.maxAttempts', 'must be an integer of at least 1');
  }
  requireNonNegative(retry.baseDelayMs, 'retry.baseDelayMs');
  requireNonNegative(retry.maxDelayMs, 'retry.maxDelayMs');
  requireNonNegative(retry.maxRetryAfterMs, 'retry.maxRetryAfterMs');
  return resolved;
}

function requireText(value: unknown, field: string): void {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ValidationError(field, 'must be a non-empty string');
  }
}

function requirePositive(value: number, field: string): void {
  if (!Number.isFinite(value) || value <= 0) throw new ValidationError(field, 'must be a positive number');
}

function requireNonNegative(value: number, field: string): void {
  if (!Number.isFinite(value) || value < 0) throw new ValidationError(field, 'must be a non-negative number');
}
