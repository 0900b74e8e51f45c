import { Rng } from './random.ts';
import type { FaultOptions } from './types.ts';

/** The fault chosen for one request, if any. */
export type FaultKind =
  | 'rateLimited'
  | 'serverError'
  | 'connectionReset'
  | 'truncatedBody'
  | 'malformedBody'
  | 'stalledBody';

/** What to inject on one request: latency and at most one fault. */
export interface FaultDecision {
  latencyMs: number;
  kind: FaultKind | null;
  /** 500, 502 or 503 for `serverError`. */
  status: number;
}

const ORDER: FaultKind[] = [
  'rateLimited',
  'serverError',
  'connectionReset',
  'truncatedBody',
  'malformedBody',
  'stalledBody',
];

/**
 * Chooses faults from a seeded random source so a schedule is reproducible: the n-th request the
 * plan is asked about gets the same decision for the same seed and options. One uniform draw per
 * request is matched against the cumulative rates in a fixed order.
 */
export class FaultPlan {
  private rng: Rng;
  private options: FaultOptions;

  constructor(
    private readonly seed: number,
    options: FaultOptions = {},
  ) {
    this.options = options;
    this.rng = new Rng(seed ^ 0x5eed);
  }

  /** Current fault options. */
  get current(): FaultOptions {
    return this.options;
  }

  /** Replaces the options and restarts the schedule from the seed. */
  replace(options: FaultOptions): void {
    this.options = options;
    this.rng = new Rng(this.seed ^ 0x5eed);
  }

  /** Whether faults apply to a request for `signedPath` (or its full path with base path). */
  applies(signedPath: string, fullPath: string): boolean {
    const prefix = this.options.pathPrefix ?? '/v2';
    return signedPath.startsWith(prefix) || fullPath.startsWith(prefix);
  }

  /** Draws the decision for the next request. */
  decide(): FaultDecision {
    const o = this.options;
    const latencyMs = o.latencyMs ?? 0;
    const rates: Record<FaultKind, number> = {
      rateLimited: o.rateLimited?.rate ?? 0,
      serverError: o.serverError?.rate ?? 0,
      connectionReset: o.connectionReset?.rate ?? 0,
      truncatedBody: o.truncatedBody?.rate ?? 0,
      malformedBody: o.malformedBody?.rate ?? 0,
      stalledBody: o.stalledBody?.rate ?? 0,
    };
    if (ORDER.every((k) => rates[k] <= 0)) return { latencyMs, kind: null, status: 0 };
    const u = this.rng.next();
    const statusDraw = this.rng.pick([500, 502, 503]);
    let cumulative = 0;
    for (const kind of ORDER) {
      cumulative += rates[kind];
      if (rates[kind] > 0 && u < cumulative) return { latencyMs, kind, status: statusDraw };
    }
    return { latencyMs, kind: null, status: 0 };
  }
}
