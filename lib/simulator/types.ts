import type { ServiceShapeOverrides } from '../pbs/index.ts';

/** Credentials of one simulated portfolio. */
export interface SimulatedProfile {
  /** Human name used by the CLI and tests, e.g. `demo`. */
  name: string;
  apiKey: string;
  apiSecret: string;
  profileGuid: string;
  /** Number of transactions generated for this profile. */
  transactions: number;
  /**
   * Serve the demo story (lib/simulator/story.ts): a coherent portfolio with planted cases,
   * instead of independent random rows. Only the built-in demo profile at its own count has it.
   */
  story?: boolean;
}

/**
 * Faults the simulator injects, by configuration. Each `rate` is a probability in [0, 1] drawn
 * from the simulator's seeded random source, so a fault schedule is reproducible from its seed.
 */
export interface FaultOptions {
  /** Added delay before every response, in milliseconds. */
  latencyMs?: number;
  /** Answer 429 with `Retry-After: retryAfterSeconds` for this share of requests. */
  rateLimited?: { rate: number; retryAfterSeconds: number };
  /** Answer 500/502/503 for this share of requests. */
  serverError?: { rate: number };
  /** Destroy the socket after sending part of the body. */
  connectionReset?: { rate: number };
  /** Send a 200 whose JSON body is cut short. */
  truncatedBody?: { rate: number };
  /** Send a 200 whose body is not JSON at all. */
  malformedBody?: { rate: number };
  /** Send headers and part of the body, then stall for `stallMs` (past the client's timeout). */
  stalledBody?: { rate: number; stallMs: number };
  /**
   * Serve one page of a listing as if the data had shifted since the previous page was served
   * (items inserted or removed before it): the page's items start `k` positions earlier or later,
   * `k` drawn from ±1..±`maxItems`, so it repeats the last `|k|` items of the previous page (k < 0)
   * or skips `k` items (k > 0). Only pages past the first of a listing are shifted. With
   * `adjustTotal` the page's total (and page count) moves as the shift says (`-k`: items really
   * inserted or removed); without it the total stays, as when one item is inserted and another
   * removed. Paging fields (page number, offset, next cursor) are those of the unshifted page.
   */
  pageShift?: { rate: number; maxItems: number; adjustTotal?: boolean };
  /**
   * Report a total item count (and page count) that disagrees with the items: off by `d`, `|d|`
   * drawn from 1..`maxDelta` (never below 0), on one page of a listing; the items are unchanged.
   * `direction` keeps it below (`under`) or above (`over`) the real count; default either. Only
   * visible in shapes that report totals.
   */
  wrongTotal?: { rate: number; maxDelta: number; direction?: 'under' | 'over' };
  /**
   * A service that loses rows at page boundaries the same way on every listing (no random draw):
   * every page past the first of a listing starts `items` positions late, while its paging
   * fields (page number, offset, next cursor) stay those of the unshifted page: the `items` rows
   * just after the first page boundary are never listed (the buggy service that always skips the
   * first row of page 2), the rest follow on. Two listings with the same page size lose the very
   * same rows; with another page size they lose others.
   */
  boundarySkip?: { items: number };
  /**
   * Draw each request's fault from the seed, the request itself (path and query, without
   * `timestamp` and `signature`) and how often that same request came before, instead of from the
   * order requests arrive in: the schedule then does not depend on how concurrent listings
   * interleave (`burst` still counts requests in arrival order).
   */
  drawPerRequest?: boolean;
  /**
   * Inject faults only into the requests numbered `from` to `from + count - 1` (1-based, counting
   * only requests faults apply to, from the last `setFaults`): a burst or a storm, e.g. 30
   * consecutive 429s with `rateLimited.rate` 1. Default: every request.
   */
  burst?: { from: number; count: number };
  /** Only inject faults on paths starting with this prefix (default: every /v2 path). */
  pathPrefix?: string;
}

export interface SimulatorOptions {
  /** Seed of the data generator and of the fault schedule. Default 1. */
  seed?: number;
  /** Profiles served; default: the built-in demo profiles. */
  profiles?: SimulatedProfile[];
  /** Wire shape to serve; default: the GAPS.md default shape. */
  shape?: ServiceShapeOverrides;
  /** Requests per second per API key before 429 (token bucket, capacity = rate). Default 20. */
  rateLimitPerSecond?: number;
  /** Accepted clock difference for the timestamp, in milliseconds. Default 300 000. */
  maxClockSkewMs?: number;
  faults?: FaultOptions;
  /** Server clock (ms since epoch). Default `Date.now`. */
  now?: () => number;
  /** Port on 127.0.0.1; default 0 (any free port). */
  port?: number;
  /**
   * Prefix the service is mounted under, e.g. `/api` serves `/api/v2/accounts`. Signatures are
   * still computed over the path from `/v2` (GAPS.md: the base prefix is not signed). Default ''.
   */
  basePath?: string;
  /**
   * Keep only the newest this many request log entries (for long-running standalone use).
   * Default: unlimited.
   */
  requestLogLimit?: number;
  /** Changes to past transactions, each in force from its `at` by `now` (see `past-edits.ts`). */
  pastEdits?: readonly PastEdit[];
  /** Reported balances that lie on purpose: hidden transactions, misreported balances (`balances.ts`). */
  balanceFaults?: BalanceFaults;
}

/** One line of the simulator's request log. */
export interface RequestLogEntry {
  /** Server time when the request arrived (ms since epoch). */
  at: number;
  method: string;
  /** Path without the query string. */
  path: string;
  /** Query parameters in order, repeated names kept. */
  query: [string, string][];
  headers: Record<string, string | undefined>;
  apiKey: string | undefined;
  status: number;
  /** Fault injected on this request, if any. */
  fault?: string;
}

export interface RunningSimulator {
  /** Base URL, e.g. `http://127.0.0.1:41234` (no trailing slash). */
  url: string;
  profiles: SimulatedProfile[];
  /** Every request received, in arrival order. */
  readonly requestLog: readonly RequestLogEntry[];
  clearLog(): void;
  /** Replaces the fault configuration from now on. */
  setFaults(faults: FaultOptions): void;
  /**
   * Adds changes to past transactions (modify, add, delete), each in force from its `at` by the
   * simulator's clock and listed in the timeline from then on (see `past-edits.ts`).
   */
  editPast(edits: readonly PastEdit[]): void;
  /** Replaces the balance faults from now on (see `balances.ts`). */
  setBalanceFaults(faults: BalanceFaults): void;
  /**
   * Rotates the credentials of the profile named `profile`: from now on only `next` is accepted
   * (the old API key is revoked and answers 401 `invalid_api_key`); the portfolio's data stays.
   * Throws `ValidationError` for an unknown profile or an API key another profile uses.
   */
  rotateCredentials(profile: string, next: { apiKey: string; apiSecret: string }): void;
  close(): Promise<void>;
}

/** A transaction in the canonical default layout of GAPS.md (plus extra fields). */
export type CanonicalTransaction = Record<string, unknown>;

/** One change to a past transaction, effective (and listed in the timeline) from `at`. */
export type PastEdit =
  | {
      kind: 'modify';
      profile: string;
      /** ISO instant or epoch ms: when the service changed it (its new `lastModifiedDate`). */
      at: string | number;
      id: string;
      /** Top-level fields replaced (`value`, `movements`, `date`, `memo`…); `id` cannot change. */
      set: Record<string, unknown>;
    }
  | { kind: 'add'; profile: string; at: string | number; transaction: CanonicalTransaction }
  | { kind: 'delete'; profile: string; at: string | number; id: string };

/** Faults of the reported balances, per profile. */
export interface BalanceFaults {
  /** Transactions left out of every listing and the timeline, still counted in the balances. */
  hide?: readonly { profile: string; id: string }[];
  /** A ledger's reported balance of `symbol` off by `delta` (a decimal string, may be negative). */
  misreport?: readonly { profile: string; ledgerId: string; symbol: string; delta: string }[];
}
