/**
 * Planning: which date windows and protocols an export fetches. The period is intersected with
 * the portfolio's date bounds and cut at local calendar boundaries of the request's time zone.
 */
import { createHash } from 'node:crypto';
import { DateTime } from 'luxon';
import { ValidationError } from '../../errors.ts';
import { readingHorizon, ruleSet } from '../../gains/index.ts';
import type { DateBounds } from '../../pbs/index.ts';
import { type Period, periodLabel, periodRange } from './period.ts';
import type { ExportRequest, ProtocolSelection, WindowSize } from './request.ts';

/** One fetch window: `[start, end)` in UTC instants. */
export interface Window {
  /** 0-based position in the plan. */
  index: number;
  /**
   * The local calendar unit the window lies in, independent of clipping so it stays stable when
   * the bounds move: `2025-03` (month), `2025-W11` (ISO week), `2025-03-14` (day), `2025` (year).
   */
  label: string;
  start: Date;
  end: Date;
}

/** One unit of fetching: a window, narrowed to one protocol or (`null`) to none. */
export interface Shard {
  /**
   * Stable and file-name safe: `2025-03`, or `2025-03~aave-v3` with a protocol, or `2025-03~none`
   * for the transactions of no searched protocol.
   */
  id: string;
  window: Window;
  protocol: string | null;
  /**
   * The rest of a window searched protocol by protocol: the unfiltered search, keeping the
   * transactions whose protocol is none of these (no protocol at all, or one the metadata lacks).
   */
  otherThan?: readonly string[];
}

/** Slug of the shard that holds the transactions of no searched protocol. */
export const REST_SLUG = 'none';

/** What {@link planWindows} needs: the request's period, zone and window size, and the bounds. */
export interface PlanWindowsInput {
  period: Period;
  timeZone: string;
  window: WindowSize;
  bounds: DateBounds;
}

const LABEL_FORMAT: Record<WindowSize, string> = {
  year: 'yyyy',
  month: 'yyyy-MM',
  week: "kkkk-'W'WW",
  day: 'yyyy-MM-dd',
};

/**
 * The windows of the period that the portfolio's date-bounds say hold transactions: the local
 * calendar units of `window` in `timeZone` that overlap `[earliest, latest]`, each whole (clipped
 * only by the period). The bounds choose which units are fetched, never where one ends: a bound
 * is only as precise as the service writes it (a calendar date, whole seconds), so a window cut at
 * it would lose the transactions of that day or second that come after it. An empty portfolio
 * (null bounds) or a period outside the bounds yields `[]`.
 */
export function planWindows(input: PlanWindowsInput): Window[] {
  const { earliest, latest } = input.bounds;
  if (earliest === null || latest === null) return [];
  const period = periodRange(input.period, input.timeZone);
  const periodEnd = period.end.toMillis();
  const first = Math.max(period.start.toMillis(), earliest.getTime());
  // latest is the date of the last transaction, so it is inside: the last unit is the one holding it.
  const last = Math.min(periodEnd, latest.getTime() + 1);
  if (first >= last) return [];
  const windows: Window[] = [];
  const firstUnit = DateTime.fromMillis(first, { zone: input.timeZone }).startOf(input.window).toMillis();
  let cursor = Math.max(period.start.toMillis(), firstUnit);
  while (cursor < last) {
    const unitStart = DateTime.fromMillis(cursor, { zone: input.timeZone }).startOf(input.window);
    const next = unitStart
      .plus({ [`${input.window}s`]: 1 })
      .startOf(input.window)
      .toMillis();
    const windowEnd = Math.min(next, periodEnd);
    windows.push({
      index: windows.length,
      label: unitStart.toFormat(LABEL_FORMAT[input.window]),
      start: new Date(cursor),
      end: new Date(windowEnd),
    });
    cursor = windowEnd;
  }
  return windows;
}

/** A file-name safe slug of a protocol name: `Aave V3` → `aave-v3`. */
export function protocolSlug(name: string): string {
  return name
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function shortHash(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 8);
}

/**
 * Slugs for a set of protocol names, unique among them: a name whose slug is empty or shared with
 * another name gets a short hash of the name appended, so the id never depends on list order.
 */
export function protocolSlugs(names: readonly string[]): Map<string, string> {
  const unique = [...new Set(names)];
  const counts = new Map<string, number>();
  for (const name of unique) counts.set(protocolSlug(name), (counts.get(protocolSlug(name)) ?? 0) + 1);
  const slugs = new Map<string, string>();
  for (const name of unique) {
    const slug = protocolSlug(name);
    // `none` is the rest shard's: a protocol of that slug gets a hash like any clash.
    const clash = slug === '' || slug === REST_SLUG || (counts.get(slug) ?? 0) > 1;
    slugs.set(name, clash ? [slug, shortHash(name)].filter((part) => part !== '').join('-') : slug);
  }
  return slugs;
}

/**
 * The shards of a plan: every window × every protocol (window-major), or one shard per window
 * with `protocol: null` when `protocols` is `null` (no protocol filter). With `withRest` (the
 * request's `all`), each window also gets a last shard for the transactions of no searched
 * protocol, so the protocol searches together cover the whole window.
 */
export function planShards(
  windows: readonly Window[],
  protocols: readonly string[] | null,
  options: { withRest?: boolean } = {},
): Shard[] {
  if (protocols === null) return windows.map((window) => ({ id: window.label, window, protocol: null }));
  const slugs = protocolSlugs(protocols);
  const unique = [...slugs.keys()];
  return windows.flatMap((window) => {
    const shards: Shard[] = unique.map((protocol) => ({
      id: `${window.label}~${slugs.get(protocol) as string}`,
      window,
      protocol,
    }));
    if (options.withRest) shards.push(restShard(window, unique));
    return shards;
  });
}

function restShard(window: Window, protocols: readonly string[]): Shard {
  return { id: `${window.label}~${REST_SLUG}`, window, protocol: null, otherThan: protocols };
}

/**
 * The protocols to search: `null` when none was requested (one search over everything), every
 * available one for `'all'`, else the requested list, each of which must be available.
 * Throws `ValidationError` on `protocols` listing the valid names.
 */
export function resolveProtocols(
  requested: ProtocolSelection | undefined,
  available: readonly string[],
): string[] | null {
  if (requested === undefined) return null;
  if (requested === 'all') return [...new Set(available)];
  const unknown = requested.filter((name) => !available.includes(name));
  if (unknown.length > 0) {
    const valid = available.length > 0 ? available.map((name) => JSON.stringify(name)).join(', ') : '(none)';
    throw new ValidationError(
      'protocols',
      `unknown protocol ${unknown.map((name) => JSON.stringify(name)).join(', ')}; valid names: ${valid}`,
    );
  }
  return [...new Set(requested)];
}

/** A plan as JSON (instants as ISO strings), to hand from one Step Functions task to another. */
export interface PlanJson {
  windows: { index: number; label: string; start: string; end: string }[];
  /** `rest`: the window's transactions of no searched protocol (the other shards of its window). */
  shards: { id: string; window: number; protocol: string | null; rest?: true }[];
}

/** Writes a plan as JSON-safe data. */
export function planToJson(plan: { windows: readonly Window[]; shards: readonly Shard[] }): PlanJson {
  return {
    windows: plan.windows.map((w) => ({
      index: w.index,
      label: w.label,
      start: w.start.toISOString(),
      end: w.end.toISOString(),
    })),
    shards: plan.shards.map((s) => ({
      id: s.id,
      window: s.window.index,
      protocol: s.protocol,
      ...(s.otherThan !== undefined ? { rest: true as const } : {}),
    })),
  };
}

/** Reads a plan written by {@link planToJson}; shards point at their window objects again. */
export function planFromJson(json: PlanJson): { windows: Window[]; shards: Shard[] } {
  const windows = json.windows.map((w) => ({
    index: w.index,
    label: w.label,
    start: new Date(w.start),
    end: new Date(w.end),
  }));
  const byIndex = new Map(windows.map((w) => [w.index, w]));
  const shards = json.shards.map((s): Shard => {
    const window = byIndex.get(s.window);
    if (window === undefined)
      throw new ValidationError('plan.shards', `shard ${s.id} names unknown window ${s.window}`);
    if (s.rest !== true) return { id: s.id, window, protocol: s.protocol };
    const searched = json.shards.flatMap((other) =>
      other.window === s.window && other.rest !== true && other.protocol !== null ? [other.protocol] : [],
    );
    return restShard(window, searched);
  });
  return { windows, shards };
}

/** What to fetch: the windows of the period within the date-bounds, and window × protocol shards. */
export interface ExportPlan {
  windows: Window[];
  shards: Shard[];
}

/** What planning asks of the service. */
export interface PlanSource {
  dateBounds(): Promise<DateBounds>;
  defiProtocols(): Promise<string[]>;
}

/**
 * Plans an export from the portfolio's date-bounds (and, for protocol searches, its protocol
 * list). An empty portfolio or a period outside the bounds plans nothing, which is not an error.
 */
export async function planExport(request: ExportRequest, client: PlanSource): Promise<ExportPlan> {
  const bounds = await client.dateBounds();
  const protocols =
    request.protocols === undefined || request.filters.hash !== undefined
      ? null
      : resolveProtocols(request.protocols, await client.defiProtocols());
  const planned = planWindows({
    period: request.gains !== undefined ? historyPeriod(request, bounds) : request.period,
    timeZone: request.timeZone,
    window: request.window,
    bounds,
  });
  // The service ignores the window when a hash is given, so one search covers the period.
  const windows = request.filters.hash !== undefined && planned.length > 0 ? [wholePeriod(request)] : planned;
  // `all` covers the whole period: the per-protocol searches plus the transactions of none of them.
  return { windows, shards: planShards(windows, protocols, { withRest: request.protocols === 'all' }) };
}

/**
 * The instants an export keeps, wherever the service returns them: the period, reaching back to
 * the first window for the gains history. A transaction a window's search returns dated in
 * another window of this range is kept in that window; one outside it is dropped and counted.
 */
export function keptRange(request: ExportRequest, windows: readonly Window[]): { start: Date; end: Date } {
  const range = periodRange(request.period, request.timeZone);
  const firstWindow = windows[0]?.start.getTime() ?? range.start.toMillis();
  return {
    start: new Date(Math.min(range.start.toMillis(), firstWindow)),
    end: range.end.toJSDate(),
  };
}

/**
 * Lots need history: for the gains reports the fetch starts on the local day of the portfolio's
 * earliest transaction and runs to the end of the period; only the output keeps to the period.
 * With a method that reads past the period (HMRC identification: the 30 days after its last day,
 * which the 30-day rule may match with the period's disposals) it runs on through those days, in
 * the zone of the matching days.
 */
function historyPeriod(request: ExportRequest, bounds: DateBounds): Period {
  const range = periodRange(request.period, request.timeZone);
  const early = bounds.earliest !== null && bounds.earliest.getTime() < range.start.toMillis();
  const horizon =
    request.gains === undefined
      ? null
      : readingHorizon(request.gains.method, range.end.toJSDate(), matchingZone(request));
  if (!early && horizon === null) return request.period;
  const from = early
    ? DateTime.fromJSDate(bounds.earliest as Date, { zone: request.timeZone }).toFormat('yyyy-MM-dd')
    : range.start.toFormat('yyyy-MM-dd');
  const end = horizon === null ? range.end : DateTime.fromJSDate(horizon, { zone: request.timeZone });
  return { from, to: end.minus({ milliseconds: 1 }).toFormat('yyyy-MM-dd') };
}

/** The zone of the matching days: the rule set's (uk: Europe/London), else the request's. */
function matchingZone(request: ExportRequest): string {
  return (request.gains && ruleSet(request.gains.taxRules).timeZone) ?? request.timeZone;
}

function wholePeriod(request: ExportRequest): Window {
  const range = periodRange(request.period, request.timeZone);
  return {
    index: 0,
    label: periodLabel(request.period),
    start: range.start.toJSDate(),
    end: range.end.toJSDate(),
  };
}
