import { Rng } from './random.ts';
import type { FaultOptions } from './types.ts';

/** The fault chosen for one request, if any. */
export type FaultKind =
  | 'rateLimited'
  | 'serverError'
  | 'connectionReset'
  | 'truncatedBody'
  | 'malformedBody'
  | 'stalledBody'
  | 'pageShift'
  | 'wrongTotal';

/** What to inject on one request: latency and at most one fault. */
export interface FaultDecision {
  latencyMs: number;
  kind: FaultKind | null;
  /** 500, 502 or 503 for `serverError`. */
  status: number;
  /** Items the page moves by for `pageShift` (negative: repeats, positive: skips); else 0. */
  shift: number;
  /** How far the reported total is off for `wrongTotal`; else 0. */
  totalDelta: number;
}

const ORDER: FaultKind[] = [
  'rateLimited',
  'serverError',
  'connectionReset',
  'truncatedBody',
  'malformedBody',
  'stalledBody',
  'pageShift',
  'wrongTotal',
];

const NONE = { kind: null, status: 0, shift: 0, totalDelta: 0 } as const;

/**
 * Chooses faults from a seeded random source so a schedule is reproducible: the n-th request the
 * plan is asked about gets the same decision for the same seed and options. One uniform draw per
 * request is matched against the cumulative rates in a fixed order.
 */
export class FaultPlan {
  private rng: Rng;
  private options: FaultOptions;
  /** Requests decided since the options were set, for `burst`. */
  private decided = 0;

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
    this.decided = 0;
  }

  /** Whether faults apply to a request for `signedPath` (or its full path with base path). */
  applies(signedPath: string, fullPath: string): boolean {
    const prefix = this.options.pathPrefix ?? '/v2';
    return signedPath.startsWith(prefix) || fullPath.startsWith(prefix);
  }

  /**
   * Draws the decision for the next request. Outside `burst` no fault is drawn (latency still
   * applies). A `pageShift` or `wrongTotal` decision carries its own seeded size.
   */
  decide(): FaultDecision {
    const o = this.options;
    const latencyMs = o.latencyMs ?? 0;
    this.decided += 1;
    if (
      o.burst !== undefined &&
      (this.decided < o.burst.from || this.decided >= o.burst.from + o.burst.count)
    ) {
      return { latencyMs, ...NONE };
    }
    const rates: Record<FaultKind, number> = {
      rateLimited: o.rateLimited?.rate ?? 0,
      serverError: o.serverError?.rate ?? 0,
      connectionReset: o.connectionReset?.rate ?? 0,
      truncatedBody: o.truncatedBody?.rate ?? 0,
      malformedBody: o.malformedBody?.rate ?? 0,
      stalledBody: o.stalledBody?.rate ?? 0,
      pageShift: o.pageShift?.rate ?? 0,
      wrongTotal: o.wrongTotal?.rate ?? 0,
    };
    if (ORDER.every((k) => rates[k] <= 0)) return { latencyMs, ...NONE };
    const u = this.rng.next();
    const statusDraw = this.rng.pick([500, 502, 503]);
    let cumulative = 0;
    for (const kind of ORDER) {
      cumulative += rates[kind];
      if (rates[kind] > 0 && u < cumulative) {
        const decision = { latencyMs, kind, status: statusDraw, shift: 0, totalDelta: 0 };
        if (kind === 'pageShift') decision.shift = this.signedSize(o.pageShift?.maxItems ?? 1);
        if (kind === 'wrongTotal') {
          const delta = this.signedSize(o.wrongTotal?.maxDelta ?? 1);
          const direction = o.wrongTotal?.direction;
          decision.totalDelta =
            direction === 'under' ? -Math.abs(delta) : direction === 'over' ? Math.abs(delta) : delta;
        }
        return decision;
      }
    }
    return { latencyMs, ...NONE };
  }

  /** A non-zero integer in ±1..±max (max below 1 counts as 1). */
  private signedSize(max: number): number {
    const size = this.rng.int(1, Math.max(1, Math.floor(max)));
    return this.rng.chance(0.5) ? -size : size;
  }
}
