/**
 * `npm run bench [-- --transactions N | --large] [--latency-ms 50] [--rounds 2] [--only bundles|latency|xlsx|lambda|csv]`
 *
 * Prints end-to-end export throughput and peak RSS for CSV and XLSX beside raw csv-stringify,
 * raw exceljs and raw fetch throughput on the same data, measured in the same run, as ratios; a
 * latency-bound fetch beside its ideal time (pages × latency ÷ concurrency); an export at the
 * client's defaults against the service's rate limit; the Lambda path (plan → shards → finish
 * through the workers, local S3); and what each mode costs in Lambda GB-seconds. Every figure is
 * measured `--rounds` times, interleaved (all tasks once, then again), and every round printed.
 * Every figure comes from a fresh child process, so each peak RSS belongs to one task. Compare
 * ratios, not times: these machines are shared and noisy.
 */
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { parsePbsConfig } from '../infra/config.ts';
import { cdkJsonContext } from '../infra/definitions.ts';
import { FUNCTIONS } from '../infra/stack.ts';
import type { SimulatedProfile } from '../lib/simulator/index.ts';
import { bundleTable, measureBundles } from './bundles.ts';
import {
  buildChildren,
  CHILD_NODE_FLAGS,
  child,
  withSimulator as simulatorChild,
  withChild,
} from './children.ts';
import { measureLatency, printLatency } from './latency.ts';
import type { BenchTask, ExportKind, Figures } from './run-child.ts';

const { values } = parseArgs({
  options: {
    transactions: { type: 'string' },
    large: { type: 'boolean' },
    'latency-ms': { type: 'string' },
    concurrency: { type: 'string' },
    rounds: { type: 'string' },
    'cpu-prof': { type: 'string' },
    /**
     * `--only bundles`: the Lambda bundles' sizes and start times alone (seconds, not minutes);
     * `--only latency`: the latency-bound fetch alone; `--only xlsx`: the XLSX export beside raw
     * exceljs alone (its ratio, as in the full table); `--only lambda`: the Lambda path of each
     * export beside the CLI's, measured back to back in each round (Lambda ÷ CLI of the same round);
     * `--only csv`: the CSV export beside the raw fetch alone, and the plain exporter
     * (`bench/plain-export.ts`), measured in the same rounds (speed and CPU ratios).
     */
    only: { type: 'string' },
  },
});
if (values.only !== undefined && !['bundles', 'latency', 'xlsx', 'lambda', 'csv'].includes(values.only)) {
  throw new Error('--only takes: bundles, latency, xlsx, lambda, csv');
}

/** Each Lambda function's bundle: code and map sizes, cold-start initialisation (bench/bundles.ts). */
async function printBundles(): Promise<void> {
  process.stderr.write('  measuring the Lambda bundles…\n');
  console.log(
    `\nLambda bundles (as deployed; init: a fresh Node process imports the bundle):\n${bundleTable(await measureBundles())}`,
  );
}
if (values.only === 'bundles') {
  await printBundles();
  process.exit(0);
}
/** `--cpu-prof DIR`: every measured child writes a V8 CPU profile there (`npm run bench:profile -- DIR` sums them). */
const cpuProfileDir = values['cpu-prof'];
const rounds = Math.max(1, Number(values.rounds ?? 2));
const transactions = values.large ? 1_000_000 : Number(values.transactions ?? 100_000);
const latencyMs = Number(values['latency-ms'] ?? 50);
const concurrency = Number(values.concurrency ?? 8);
/** The simulator's data spans these years. */
const ALL_YEARS = { from: '2023-01-01', to: '2025-12-31' };
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const latencySetup = {
  rows: Math.min(transactions, 20_000),
  latencyMs,
  concurrency,
  rounds,
  period: ALL_YEARS,
};

const bundleDir = here('../.bench');
await buildChildren(bundleDir);

/** The simulator in its own process. */
const withSimulator = <T>(
  rows: number,
  latency: number,
  work: (url: string, profile: SimulatedProfile) => Promise<T>,
  rateLimitPerSecond?: number,
) => simulatorChild(bundleDir, rows, latency, work, rateLimitPerSecond);

/** Local S3 (s3rver) in its own process, for the Lambda path. */
function withS3<T>(work: (s3: { endpoint: string; bucket: string }) => Promise<T>) {
  return withChild(bundleDir, 's3-child.ts', {}, work);
}

const measured = new Map<string, number>();
async function measure(task: BenchTask): Promise<Figures> {
  const name = `${task.mode}${task.kind ? `-${task.kind}` : ''}`;
  process.stderr.write(`  measuring ${name} (${fmt(task.rows)} rows)…\n`);
  const round = (measured.get(name) ?? 0) + 1;
  measured.set(name, round);
  const profile = cpuProfileDir === undefined ? undefined : { dir: cpuProfileDir, name: `${name}-${round}` };
  return (await child<Figures>(bundleDir, 'run-child.ts', task, false, profile)).message;
}

const perSecond = (f: Figures) => (f.rows / f.ms) * 1000;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** What a task's peak RSS was made of (MB), from the sample the child kept. */
function peakParts(f: Figures): string {
  const m = f.atPeakRss;
  if (m === undefined) return 'not sampled';
  return `RSS ${m.rss} = new space ${m.newSpace} + old space ${m.oldSpace} + large objects ${m.largeObjects} + other heap ${m.otherHeap} + external ${m.external} + the rest ${m.rss - m.newSpace - m.oldSpace - m.largeObjects - m.otherHeap - m.external} (code, stacks, native)`;
}

/** The same figure over every round, as `a / b`. */
const each = <T>(list: readonly T[], show: (item: T, index: number) => string) => list.map(show).join(' / ');

console.log(
  `pbs-export benchmark: ${fmt(transactions)} transactions, Node ${process.version} ${CHILD_NODE_FLAGS.join(' ')}, ` +
    `${rounds} rounds interleaved, ${new Date().toISOString()}`,
);
if (values.only === 'latency') {
  printLatency(await measureLatency(latencySetup, withSimulator, measure), latencySetup);
  process.exit(0);
}

if (values.only === 'xlsx') {
  const rows = await withSimulator(transactions, 0, async (url, profile) => {
    const fullPeriod = { url, profile, rows: transactions, period: ALL_YEARS, concurrency, pageSize: 1000 };
    const list: { raw: Figures; xlsx: Figures }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const raw = await measure({ ...fullPeriod, mode: 'raw-xlsx' });
      list.push({ raw, xlsx: await measure({ ...fullPeriod, mode: 'export-xlsx' }) });
    }
    return list;
  });
  const show = (name: string, pick: (round: { raw: Figures; xlsx: Figures }) => Figures) =>
    console.log(
      `${name}: ${each(rows, (r) => fmt(perSecond(pick(r))))} rows/s, peak RSS ${each(rows, (r) => fmt(pick(r).peakRssMb))} MB, ` +
        `CPU s per 100k ${each(rows, (r) => fmt((pick(r).taskCpuMs / 1000) * (100_000 / pick(r).rows), 2))}`,
    );
  show('raw exceljs streaming', (r) => r.raw);
  show('export XLSX end to end', (r) => r.xlsx);
  console.log(
    `export XLSX ÷ raw exceljs: ${each(rows, (r) => fmt(perSecond(r.xlsx) / perSecond(r.raw), 2))} (target ≥ 0.85)`,
  );
  console.log(`export XLSX memory at peak RSS (MB): ${each(rows, (r) => peakParts(r.xlsx))}`);
  process.exit(0);
}

if (values.only === 'lambda') {
  const { measurePairedLambda } = await import('./lambda-paired.ts');
  await measurePairedLambda(
    { transactions, rounds, concurrency, period: ALL_YEARS },
    withS3,
    withSimulator,
    measure,
  );
  process.exit(0);
}

if (values.only === 'csv') {
  const rows = await withSimulator(transactions, 0, async (url, profile) => {
    const fullPeriod = { url, profile, rows: transactions, period: ALL_YEARS, concurrency, pageSize: 1000 };
    const list: { raw: Figures; csv: Figures; spill: Figures; plain: Figures | undefined }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const raw = await measure({ ...fullPeriod, mode: 'raw-fetch' });
      const csv = await measure({ ...fullPeriod, mode: 'export-csv' });
      const spill = await measure({ ...fullPeriod, mode: 'export-csv-spill' });
      // The plain exporter (bench/plain-export.ts): the same job written to be fast, issue #41's yardstick.
      // It holds finished windows waiting for an earlier one, so at 1M it can run out of the child's
      // heap: that is a figure of its own, and the other modes' figures are kept.
      const plain = await measure({ ...fullPeriod, mode: 'plain-export' }).catch((error: unknown) => {
        process.stderr.write(
          `  plain-export failed: ${error instanceof Error ? error.message : String(error)}\n`,
        );
        return undefined;
      });
      list.push({ raw, csv, spill, plain });
    }
    return list;
  });
  const cpu100k = (f: Figures) => (f.taskCpuMs / 1000) * (100_000 / f.rows);
  type CsvRound = (typeof rows)[number];
  /** A round's figure of one mode, or "failed" where the mode did not finish (the plain exporter out of heap). */
  const figure = (
    round: CsvRound,
    pick: (round: CsvRound) => Figures | undefined,
    show: (f: Figures) => string,
  ) => {
    const picked = pick(round);
    return picked === undefined ? 'failed' : show(picked);
  };
  const show = (name: string, pick: (round: CsvRound) => Figures | undefined) =>
    console.log(
      `${name}: ${each(rows, (r) => figure(r, pick, (f) => fmt(perSecond(f))))} rows/s, ` +
        `peak RSS ${each(rows, (r) => figure(r, pick, (f) => fmt(f.peakRssMb)))} MB, ` +
        `CPU s per 100k ${each(rows, (r) => figure(r, pick, (f) => fmt(cpu100k(f), 2)))}`,
    );
  show('raw fetch (client alone)', (r) => r.raw);
  show('export CSV end to end', (r) => r.csv);
  show('export CSV, every part spilled', (r) => r.spill);
  show('plain exporter (same job, written to be fast)', (r) => r.plain);
  for (const [name, pick] of [
    ['export CSV', (r: CsvRound) => r.csv],
    ['export CSV spilled', (r: CsvRound) => r.spill],
    ['plain exporter', (r: CsvRound) => r.plain],
  ] as const) {
    console.log(
      `${name} ÷ raw fetch: ${each(rows, (r) => figure(r, pick, (f) => fmt(perSecond(f) / perSecond(r.raw), 2)))} (target ≥ 0.80); ` +
        `CPU ÷ raw fetch CPU: ${each(rows, (r) => figure(r, pick, (f) => fmt(cpu100k(f) / cpu100k(r.raw), 2)))} (target ≤ 1.5)`,
    );
  }
  process.exit(0);
}

interface Round {
  rawCsv: Figures;
  rawFetch: Figures;
  /** The floor of the raw fetch: the same requests with `response.text()` and `JSON.parse` alone. */
  minimalFetch: Figures;
  csv: Figures;
  /** The CSV export with a part memory budget of 0: every part spilled to its file. */
  csvSpill: Figures;
  rawXlsx: Figures;
  xlsx: Figures;
  gains: Figures;
}
const throughput = await withSimulator(transactions, 0, async (url, profile) => {
  const fullPeriod = { url, profile, rows: transactions, period: ALL_YEARS, concurrency, pageSize: 1000 };
  const list: Round[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const rawCsv = await measure({ ...fullPeriod, mode: 'raw-csv' });
    const rawFetch = await measure({ ...fullPeriod, mode: 'raw-fetch' });
    const minimalFetch = await measure({ ...fullPeriod, mode: 'minimal-fetch' });
    const csv = await measure({ ...fullPeriod, mode: 'export-csv' });
    const csvSpill = await measure({ ...fullPeriod, mode: 'export-csv-spill' });
    const rawXlsx = await measure({ ...fullPeriod, mode: 'raw-xlsx' });
    const xlsx = await measure({ ...fullPeriod, mode: 'export-xlsx' });
    const gains = await measure({ ...fullPeriod, mode: 'gains' });
    list.push({ rawCsv, rawFetch, minimalFetch, csv, csvSpill, rawXlsx, xlsx, gains });
  }
  return list;
});

// The service's limit: a simulator that enforces 20 requests/s per key, the client at its defaults.
const SERVICE_RATE = 20;
const rateLimitedRows = Math.min(transactions, 100_000);
const rateLimited = await withSimulator(
  rateLimitedRows,
  0,
  async (url, profile) => {
    const base = { url, profile, rows: rateLimitedRows, period: ALL_YEARS, concurrency, pageSize: 1000 };
    const list: { fetch: Figures; export: Figures }[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const fetch = await measure({ ...base, mode: 'rate-limited-fetch' });
      list.push({ fetch, export: await measure({ ...base, mode: 'rate-limited' }) });
    }
    return list;
  },
  SERVICE_RATE,
);

const latency = await measureLatency(latencySetup, withSimulator, measure);

/** The Lambda path of one export: plan and shards in one process, finish in another. */
interface LambdaRun {
  fetch: Figures;
  finish: Figures;
}
const KINDS: readonly ExportKind[] = ['csv', 'xlsx', 'gains'];
const lambda = await withS3((s3) =>
  withSimulator(transactions, 0, async (url, profile) => {
    const base = { url, profile, rows: transactions, period: ALL_YEARS, concurrency, pageSize: 1000, s3 };
    const list: Record<ExportKind, LambdaRun>[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const runs = {} as Record<ExportKind, LambdaRun>;
      for (const kind of KINDS) {
        const fetch = await measure({ ...base, kind, mode: 'lambda-fetch' });
        const finish = await measure({
          ...base,
          kind,
          rows: fetch.rows,
          mode: 'lambda-finish',
          ...(fetch.jobId ? { jobId: fetch.jobId } : {}),
        });
        runs[kind] = { fetch, finish };
      }
      list.push(runs);
    }
    return list;
  }),
);

/** CPU seconds of the task itself (its process's start left out) per 100 000 transactions. */
const cpuPer100k = (f: Figures) => (f.taskCpuMs / 1000) * (100_000 / f.rows);
const rawRatio = (f: Figures, raw: Figures) => perSecond(f) / perSecond(raw);
const table: [string, string, string, string, string, string, string][] = [
  ['task', 'rows/s', 'peak RSS MB', 'CPU s', 'CPU s per 100k', 'ratio', 'target'],
];
const line = (
  name: string,
  figures: (round: Round) => Figures,
  ratio: ((round: Round) => number) | null,
  target: string,
) => {
  table.push([
    name,
    each(throughput, (round) => fmt(perSecond(figures(round)))),
    each(throughput, (round) => fmt(figures(round).peakRssMb)),
    each(throughput, (round) => fmt(figures(round).cpuMs / 1000, 1)),
    each(throughput, (round) => fmt(cpuPer100k(figures(round)), 2)),
    ratio === null ? '1.00' : each(throughput, (round) => fmt(ratio(round), 2)),
    target,
  ]);
};
line('raw csv-stringify', (r) => r.rawCsv, null, '');
line(
  'raw fetch (client alone)',
  (r) => r.rawFetch,
  (r) => rawRatio(r.rawFetch, r.rawCsv),
  'vs raw csv-stringify: the ceiling of any export',
);
line(
  'minimal fetch (text + JSON.parse)',
  (r) => r.minimalFetch,
  (r) => rawRatio(r.minimalFetch, r.rawFetch),
  'vs raw fetch: the floor of the client',
);
line(
  'export CSV end to end',
  (r) => r.csv,
  (r) => rawRatio(r.csv, r.rawFetch),
  '≥ 0.80 × raw fetch, RSS ≤ 230 MB at 1M',
);
line(
  'export CSV, every part spilled',
  (r) => r.csvSpill,
  (r) => rawRatio(r.csvSpill, r.rawFetch),
  'the CSV export past its part memory budget',
);
line('raw exceljs streaming', (r) => r.rawXlsx, null, '');
line(
  'export XLSX end to end',
  (r) => r.xlsx,
  (r) => rawRatio(r.xlsx, r.rawXlsx),
  '≥ 0.80 × raw exceljs, RSS ≤ 230 MB at 1M',
);
line(
  `export gains (history → ${ALL_YEARS.to.slice(0, 7)})`,
  (r) => r.gains,
  (r) => rawRatio(r.gains, r.rawFetch),
  'vs raw fetch, RSS ≤ 230 MB at 1M',
);
const widths = [0, 1, 2, 3, 4, 5, 6].map((i) => Math.max(...table.map((r) => (r[i] ?? '').length)));
for (const row of table) console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));

printLatency(latency, latencySetup);

const rateIdealMs = (f: Figures) => ((f.pages ?? 0) / SERVICE_RATE) * 1000;
console.log(
  `\nrate-limited export (CSV): ${fmt(rateLimitedRows)} transactions, simulator enforcing ${SERVICE_RATE} requests/s per key, ` +
    `pages of 1 000, the client at its defaults (rate, burst, concurrency)`,
);
const limitedFetch = rateLimited.map((round) => round.fetch);
console.log(
  `  the fetch alone (client at its defaults, 4 shards at once, nothing done with the items): ${each(limitedFetch, (f) => `${f.pages} pages`)} in ` +
    `${each(limitedFetch, (f) => fmt(f.ms))} ms vs pages ÷ ${SERVICE_RATE}/s = ${each(limitedFetch, (f) => fmt(rateIdealMs(f)))} ms: ` +
    `ratio ${each(limitedFetch, (f) => fmt(f.ms / rateIdealMs(f), 2))} (target ≤ 1.10); 429s: ${each(limitedFetch, (f) => String(f.rateLimited ?? 0))} (target 0)`,
);
const limitedExport = rateLimited.map((round) => round.export);
console.log(
  `  the CSV export: ${each(limitedExport, (f) => `${f.pages} pages`)} (${each(limitedExport, (f) => `${f.requests} requests`)} with plan); fetch ` +
    `${each(limitedExport, (f) => fmt(f.fetchMs ?? 0))} ms vs pages ÷ ${SERVICE_RATE}/s = ${each(limitedExport, (f) => fmt(rateIdealMs(f)))} ms: ` +
    `ratio ${each(limitedExport, (f) => fmt((f.fetchMs ?? 0) / rateIdealMs(f), 2))} (target ≤ 1.10); whole export ` +
    `${each(limitedExport, (f) => fmt(f.ms))} ms = ${each(limitedExport, (f) => fmt(f.ms / rateIdealMs(f), 2))} × ideal; ` +
    `429s: ${each(limitedExport, (f) => String(f.rateLimited ?? 0))} (target 0)`,
);

/** Rows per second of the Lambda path: plan and shards, then finish (they do not overlap). */
const lambdaPerSecond = (run: LambdaRun) => (run.fetch.rows / (run.fetch.ms + run.finish.ms)) * 1000;
console.log(
  `\nLambda path (workers of lib/workflow, local S3 in its own process; shards ${concurrency} at a time in one process, ` +
    'finish in its own):',
);
for (const kind of KINDS) {
  const runs = lambda.map((round) => round[kind]);
  const cli = throughput.map((round) =>
    kind === 'csv' ? round.csv : kind === 'xlsx' ? round.xlsx : round.gains,
  );
  const ratio = (index: number) =>
    lambdaPerSecond(runs[index] as LambdaRun) / perSecond(throughput[index]?.rawFetch as Figures);
  const cliRatio = (index: number) =>
    perSecond(cli[index] as Figures) / perSecond(throughput[index]?.rawFetch as Figures);
  console.log(
    `  ${kind}: plan ${each(runs, (r) => fmt(r.fetch.planMs ?? 0))} ms, plan+shards ${each(runs, (r) => fmt(r.fetch.ms))} ms, ` +
      `finish ${each(runs, (r) => fmt(r.finish.ms))} ms; ${each(runs, (r) => fmt(lambdaPerSecond(r)))} rows/s = ` +
      `${each(runs, (_, i) => fmt(ratio(i), 2))} × raw fetch vs CLI ${each(runs, (_, i) => fmt(cliRatio(i), 2))} ` +
      `(Lambda ÷ CLI ${each(runs, (_, i) => fmt(ratio(i) / cliRatio(i), 2))}, target 0.90–1.10); finish peak RSS ` +
      `${each(runs, (r) => fmt(r.finish.peakRssMb))} MB (target ≤ 230 at 1M), fetch process ${each(runs, (r) => fmt(r.fetch.peakRssMb))} MB`,
  );
}

// What a user pays: each task's billed time at the memory the stack gives its function.
const stackConfig = parsePbsConfig(cdkJsonContext().pbs);
const gb = (key: keyof typeof FUNCTIONS) => FUNCTIONS[key].memorySize / 1024;
console.log(
  `\nLambda GB-seconds per 100 000 transactions (stack memory: plan ${FUNCTIONS.plan.memorySize} MB, fetch shard ` +
    `${FUNCTIONS.fetchShard.memorySize} MB, finish ${FUNCTIONS.finish.memorySize} MB; measured on the Lambda path above, ` +
    'each task billed for its own time):',
);
for (const kind of KINDS) {
  const runs = lambda.map((round) => round[kind]);
  const per100k = (run: LambdaRun, gbs: number) => (gbs * 100_000) / run.fetch.rows;
  const measured = (run: LambdaRun) =>
    ((run.fetch.planMs ?? 0) * gb('plan') +
      (run.fetch.shardMs ?? 0) * gb('fetchShard') +
      run.finish.ms * gb('finish')) /
    1000;
  // At the stack's rate each shard's client sends at most requestsPerSecond: a fetch task lasts
  // at least its requests ÷ that rate, whatever the CPU does.
  const rateFloor = (run: LambdaRun) =>
    ((run.fetch.requests ?? 0) / stackConfig.requestsPerSecond) * gb('fetchShard') +
    ((run.fetch.planMs ?? 0) * gb('plan') + run.finish.ms * gb('finish')) / 1000;
  console.log(
    `  ${kind}: ${each(runs, (r) => fmt(per100k(r, measured(r)), 1))} GB-s (finish ${each(runs, (r) => fmt(per100k(r, (r.finish.ms / 1000) * gb('finish')), 1))}, ` +
      `shards ${each(runs, (r) => fmt(per100k(r, ((r.fetch.shardMs ?? 0) / 1000) * gb('fetchShard')), 1))}); with the stack's ` +
      `${stackConfig.requestsPerSecond} requests/s per shard client, at least ${each(runs, (r) => fmt(per100k(r, rateFloor(r)), 1))} GB-s`,
  );
}

for (const [index, { gains }] of throughput.entries()) {
  if (gains.lotsMatched !== gains.exportLotsMatched) {
    throw new Error(
      `round ${index + 1}: the engine matched ${gains.lotsMatched} lots alone but ${gains.exportLotsMatched} in the export`,
    );
  }
}
const gainsRuns = throughput.map((round) => round.gains);
console.log(
  `\ngains engine (FIFO, one universal pool, week windows) over ${fmt(gainsRuns[0]?.rows ?? 0)} transactions: ` +
    `${fmt(gainsRuns[0]?.lotsMatched ?? 0)} disposals matched (lots consumed, whole history) in ` +
    `${each(gainsRuns, (g) => fmt(g.engineMs ?? 0))} ms of engine time = ` +
    `${each(gainsRuns, (g) => fmt(((g.lotsMatched ?? 0) / (g.engineMs ?? Number.NaN)) * 1000))} disposals matched/s; ` +
    `peak RSS of the gains process ${each(gainsRuns, (g) => fmt(g.peakRssMb))} MB`,
);
console.log(
  `\nstages (ms): CSV fetch ${each(throughput, (r) => fmt(r.csv.fetchMs ?? 0))} (rendering meanwhile), then ` +
    `${each(throughput, (r) => fmt(r.csv.tailMs ?? 0))} after the last shard; XLSX fetch ` +
    `${each(throughput, (r) => fmt(r.xlsx.fetchMs ?? 0))}, then ${each(throughput, (r) => fmt(r.xlsx.tailMs ?? 0))} after the last shard`,
);

console.log('\nmemory at peak RSS (MB, sampled every 50 ms; the heap is capped at 128 MB of old space):');
console.log(`  raw fetch: ${each(throughput, (r) => peakParts(r.rawFetch))}`);
console.log(`  export CSV: ${each(throughput, (r) => peakParts(r.csv))}`);
console.log(`  export XLSX: ${each(throughput, (r) => peakParts(r.xlsx))}`);
console.log(`  export gains: ${each(throughput, (r) => peakParts(r.gains))}`);
console.log(`  Lambda finish CSV: ${each(lambda, (r) => peakParts(r.csv.finish))}`);
if (cpuProfileDir !== undefined)
  console.log(`\nCPU profiles in ${cpuProfileDir}: npm run bench:profile -- ${cpuProfileDir}`);
await printBundles();
