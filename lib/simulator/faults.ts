import { hash32, Rng, stringHash32 } from './random.ts';
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
  | 'wrongTotal'
  /** Not drawn: applied to every listing page past the first (see `FaultOptions.boundarySkip`). */
  | 'boundarySkip';

/** The faults drawn request by request, at their rates. */
type DrawnKind = Exclude<FaultKind, 'boundarySkip'>;

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

const ORDER: DrawnKind[] = [
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
  /** With `drawPerRequest`: how often each request was decided since the options were set. */
  private seen = new Map<string, number>();

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
    this.seen.clear();
  }

  /** Whether faults apply to a request for `signedPath` (or its full path with base path). */
  applies(signedPath: string, fullPath: string): boolean {
    const prefix = this.options.pathPrefix ?? '/v2';
    return signedPath.startsWith(prefix) || fullPath.startsWith(prefix);
  }

  /**
   * Draws the decision for the next request. Outside `burst` no fault is drawn (latency still
   * applies). A `pageShift` or `wrongTotal` decision carries its own seeded size. With
   * `drawPerRequest`, `request` (path and query without signing parameters) chooses the draw.
   */
  decide(request?: string): FaultDecision {
    const o = this.options;
    const latencyMs = o.latencyMs ?? 0;
    this.decided += 1;
    if (
      o.burst !== undefined &&
      (this.decided < o.burst.from || this.decided >= o.burst.from + o.burst.count)
    ) {
      return { latencyMs, ...NONE };
    }
    const rates: Record<DrawnKind, number> = {
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
    const rng = this.rngFor(request);
    const u = rng.next();
    const statusDraw = rng.pick([500, 502, 503]);
    let cumulative = 0;
    for (const kind of ORDER) {
      cumulative += rates[kind];
      if (rates[kind] > 0 && u < cumulative) {
        const decision = { latencyMs, kind, status: statusDraw, shift: 0, totalDelta: 0 };
        if (kind === 'pageShift') decision.shift = signedSize(rng, o.pageShift?.maxItems ?? 1);
        if (kind === 'wrongTotal') {
          const delta = signedSize(rng, o.wrongTotal?.maxDelta ?? 1);
          const direction = o.wrongTotal?.direction;
          decision.totalDelta =
            direction === 'under' ? -Math.abs(delta) : direction === 'over' ? Math.abs(delta) : delta;
        }
        return decision;
      }
    }
    return { latencyMs, ...NONE };
  }

  /**
   * The source of one decision: the plan's own, in arrival order, or with `drawPerRequest` one
   * seeded by the request and how often it came before (the same n-th request, the same draw).
   */
  private rngFor(request: string | undefined): Rng {
    if (this.options.drawPerRequest !== true || request === undefined) return this.rng;
    const occurrence = (this.seen.get(request) ?? 0) + 1;
    this.seen.set(request, occurrence);
    return new Rng(hash32((this.seed ^ 0x5eed) >>> 0, stringHash32(request), occurrence));
  }
}

/** A non-zero integer in ±1..±max (max below 1 counts as 1). */
function signedSize(rng: Rng, max: number): number {
  const size = rng.int(1, Math.max(1, Math.floor(max)));
  return rng.chance(0.5) ? -size : size;
}
