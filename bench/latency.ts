/**
 * The benchmark's latency-bound fetch: an export and the fetch stage alone against a simulator
 * that answers every request after `latencyMs`, with small pages, beside the ideal time and the
 * floor the listings' own shape sets (see {@link scheduleFloorMs}).
 */
import type { SimulatedProfile } from '../lib/simulator/index.ts';
import type { BenchTask, Figures } from './run-child.ts';

/**
 * Small pages keep the simulator's own work per request well below the injected latency, so the
 * run measures how well the fetch overlaps waiting, not how fast the simulator generates data.
 */
export const LATENCY_PAGE_SIZE = 100;

/**
 * One round: the CSV export and the fetch stage alone, each in its own process, and beside them
 * the plain programs of the same jobs (`bench/minimal-fetch.ts`, `bench/minimal-export.ts`): what
 * a minimal implementation of each step reaches against the same latency, as a yardstick.
 */
export interface LatencyRound {
  export: Figures;
  stage: Figures;
  minimalFetch: Figures;
  minimalExport: Figures;
}

export interface LatencySetup {
  rows: number;
  latencyMs: number;
  concurrency: number;
  rounds: number;
  period: { from: string; to: string };
}

type WithSimulator = <T>(
  rows: number,
  latency: number,
  work: (url: string, profile: SimulatedProfile) => Promise<T>,
) => Promise<T>;

/** Measures `setup.rounds` rounds, interleaved, against one simulator. */
export function measureLatency(
  setup: LatencySetup,
  withSimulator: WithSimulator,
  measure: (task: BenchTask) => Promise<Figures>,
): Promise<LatencyRound[]> {
  return withSimulator(setup.rows, setup.latencyMs, async (url, profile) => {
    const base = {
      url,
      profile,
      rows: setup.rows,
      period: setup.period,
      concurrency: setup.concurrency,
      pageSize: LATENCY_PAGE_SIZE,
    };
    const list: LatencyRound[] = [];
    for (let round = 0; round < setup.rounds; round += 1) {
      const exported = await measure({ ...base, mode: 'latency' });
      const stage = await measure({ ...base, mode: 'latency-fetch' });
      // The minimal fetch reports its whole span (after the plan) as `ms`: that is its fetch.
      const minimalFetch = await measure({ ...base, mode: 'minimal-fetch' });
      const minimalExport = await measure({ ...base, mode: 'minimal-export' });
      list.push({
        export: exported,
        stage,
        minimalFetch: { ...minimalFetch, fetchMs: minimalFetch.fetchMs ?? minimalFetch.ms },
        minimalExport,
      });
    }
    return list;
  });
}

/**
 * How long an ideal client with `concurrency` requests in flight, each taking exactly
 * `latencyMs`, pages these listings: a listing's first page must come back before its total says
 * which pages follow, and a listing that ends on a full page needs one more (empty) page, asked
 * for once the full one is read. `listings` gives each listing's pages, the empty one included,
 * and its items. The client sends first, at each step, the requests with the longest chain
 * behind them. No client beats ⌈requests ÷ concurrency⌉ steps; for the benchmark's listings
 * this schedule takes exactly that many, so the floor is the best any client can do there.
 */
export function scheduleFloorMs(
  listings: readonly { pages: number; rows: number }[],
  concurrency: number,
  latencyMs: number,
  pageSize: number,
): number {
  // Per listing: its first page, then the pages it promises, then the confirming empty page.
  const state = listings
    .filter((listing) => listing.pages > 0)
    .map((listing) => {
      const confirms = listing.rows > 0 && listing.rows % pageSize === 0 ? 1 : 0;
      return { first: 1, middle: listing.pages - 1 - confirms, last: confirms };
    });
  let steps = 0;
  while (state.some((s) => s.first + s.middle + s.last > 0)) {
    steps += 1;
    let slots = concurrency;
    // Chains of three first (a first page with more behind it), then two, then single pages.
    const started: { s: (typeof state)[number]; part: 'first' | 'middle' | 'last' }[] = [];
    const byChain = [...state].sort((a, b) => chain(b) - chain(a));
    for (const s of byChain) {
      if (slots === 0) break;
      if (s.first === 1 && chain(s) >= 2) {
        started.push({ s, part: 'first' });
        slots -= 1;
      }
    }
    for (const s of byChain) {
      if (slots === 0) break;
      if (s.first === 1 && chain(s) === 1) {
        started.push({ s, part: 'first' });
        slots -= 1;
      }
    }
    // Pages of listings whose first page is back; a confirming page once all before it are.
    for (const s of byChain) {
      while (slots > 0 && s.first === 0 && s.middle > 0 && s.middle > pending(started, s, 'middle')) {
        started.push({ s, part: 'middle' });
        slots -= 1;
      }
      if (slots > 0 && s.first === 0 && s.middle === 0 && s.last === 1) {
        started.push({ s, part: 'last' });
        slots -= 1;
      }
    }
    for (const { s, part } of started) s[part] -= 1;
  }
  return steps * latencyMs;
}

/** Requests still to go in a row behind a listing's next one, itself included. */
function chain(s: { first: number; middle: number; last: number }): number {
  return s.first + (s.middle > 0 ? 1 : 0) + s.last;
}

function pending(started: readonly { s: unknown; part: string }[], s: unknown, part: string): number {
  return started.filter((entry) => entry.s === s && entry.part === part).length;
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const each = <T>(list: readonly T[], show: (item: T) => string) => list.map(show).join(' / ');

/** Prints the latency-bound fetch: each measure beside the ideal and the listings' floor. */
export function printLatency(list: readonly LatencyRound[], setup: LatencySetup): void {
  const { latencyMs, concurrency } = setup;
  const first = list[0]?.export;
  console.log(
    `\nlatency-bound fetch: ${fmt(setup.rows)} transactions, ${first?.shards} shards, ${first?.pages} pages, ` +
      `${LATENCY_PAGE_SIZE} per page, ${latencyMs} ms per request, concurrency ${concurrency}`,
  );
  const idealMs = (f: Figures) => ((f.pages ?? 0) * latencyMs) / concurrency;
  const floorMs = (f: Figures) =>
    scheduleFloorMs(f.listings ?? [], concurrency, latencyMs, LATENCY_PAGE_SIZE);
  const line = (name: string, figures: Figures[]) => {
    const f = figures[0] as Figures;
    console.log(
      `  ${name}: ${each(figures, (x) => fmt(x.fetchMs ?? 0))} ms, ideal ${fmt(idealMs(f))} ms ` +
        `(pages × latency ÷ concurrency), floor ${fmt(floorMs(f))} ms (each listing's first page before its ` +
        `others, a full last page confirmed by one more), ratio ${each(figures, (x) => fmt((x.fetchMs ?? 0) / idealMs(x), 2))} ` +
        `(target ≤ 1.2), ÷ floor ${each(figures, (x) => fmt((x.fetchMs ?? 0) / floorMs(x), 2))}`,
    );
  };
  line(
    'within a CSV export (the fetch shares its thread with the assembly and the writers)',
    list.map((round) => round.export),
  );
  line(
    'the fetch stage alone (same limiter and read-ahead, part files written, nothing assembled)',
    list.map((round) => round.stage),
  );
  const ratio = (of: Figures, to: Figures) => fmt((of.fetchMs ?? 0) / (to.fetchMs ?? Number.NaN), 2);
  console.log(
    `  export ÷ stage alone: ${each(list, (r) => ratio(r.export, r.stage))} (target ≤ 1.1); ` +
      "the plan's own request (date bounds, one latency) comes before either span",
  );
  // The yardstick: the plain programs of the same two jobs, same pages, latency and concurrency
  // (each shard's pages one after another, as a client without read-ahead pages them).
  const minimalIdeal = (r: LatencyRound) => ((r.minimalFetch.pages ?? 0) * latencyMs) / concurrency;
  console.log(
    `  minimal programs (bench/minimal-fetch.ts, bench/minimal-export.ts): fetch ${each(list, (r) => fmt(r.minimalFetch.fetchMs ?? 0))} ms, ` +
      `÷ ideal ${each(list, (r) => fmt((r.minimalFetch.fetchMs ?? 0) / minimalIdeal(r), 2))}; ` +
      `the minimal export's fetch ÷ the minimal fetch ${each(list, (r) => ratio(r.minimalExport, r.minimalFetch))}`,
  );
}
