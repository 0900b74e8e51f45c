/**
 * `npm run bench [-- --transactions N | --large] [--latency-ms 50]`
 *
 * Prints end-to-end export throughput and peak RSS for CSV and XLSX beside raw csv-stringify and
 * raw exceljs throughput on the same rows, measured in the same run, as ratios; and a
 * latency-bound fetch beside its ideal time (pages × latency ÷ concurrency). Every figure comes
 * from a fresh child process, so each peak RSS belongs to one task. Compare ratios, not times:
 * these machines are shared and noisy.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import type { SimulatedProfile } from '../lib/simulator/types.ts';
import type { BenchTask } from './run-child.ts';

const { values } = parseArgs({
  options: {
    transactions: { type: 'string' },
    large: { type: 'boolean' },
    'latency-ms': { type: 'string' },
    concurrency: { type: 'string' },
  },
});
const transactions = values.large ? 1_000_000 : Number(values.transactions ?? 100_000);
const latencyMs = Number(values['latency-ms'] ?? 50);
const concurrency = Number(values.concurrency ?? 8);
/** The simulator's data spans these years. */
const ALL_YEARS = { from: '2023-01-01', to: '2025-12-31' };
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

interface Figures {
  rows: number;
  ms: number;
  peakRssMb: number;
  fetchMs?: number;
  /** From the last shard fetched to the manifest: the work the fetch could not hide. */
  tailMs?: number;
  pages?: number;
  shards?: number;
  engineMs?: number;
  lotsMatched?: number;
  exportLotsMatched?: number;
}

/**
 * Every measured process gets the same V8 heap cap, as a function sized for the job would: the
 * export's live heap stays under 50 MB, but without a cap V8 lets garbage pile up to ~300 MB of RSS
 * at a high allocation rate before collecting it.
 */
const CHILD_NODE_FLAGS = ['--max-old-space-size=128'];

// The children run as esbuild bundles on plain Node, as the code runs on Lambda: under tsx, every
// process would also carry the TypeScript loader's own thread and memory.
const bundleDir = here('../.bench');
await build({
  entryPoints: [here('sim-child.ts'), here('run-child.ts')],
  outdir: bundleDir,
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  outExtension: { '.js': '.mjs' },
  logLevel: 'warning',
});

function child<T>(
  script: string,
  argument: unknown,
  keepAlive = false,
): Promise<{ message: T; process: ChildProcess }> {
  return new Promise((resolve, reject) => {
    const proc = fork(join(bundleDir, script.replace(/\.ts$/, '.mjs')), [JSON.stringify(argument)], {
      execArgv: CHILD_NODE_FLAGS,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    proc.once('message', (message) => {
      resolve({ message: message as T, process: proc });
      if (!keepAlive) proc.once('exit', () => {});
    });
    proc.once('error', reject);
    proc.once('exit', (code) => code !== 0 && reject(new Error(`${script} exited with ${code}`)));
  });
}

async function withSimulator<T>(
  rows: number,
  latency: number,
  work: (url: string, profile: SimulatedProfile) => Promise<T>,
) {
  const { message, process: proc } = await child<{ url: string; profile: SimulatedProfile }>(
    'sim-child.ts',
    { transactions: rows, latencyMs: latency },
    true,
  );
  try {
    return await work(message.url, message.profile);
  } finally {
    proc.disconnect();
  }
}

async function measure(task: BenchTask): Promise<Figures> {
  process.stderr.write(`  measuring ${task.mode} (${fmt(task.rows)} rows)…\n`);
  return (await child<Figures>('run-child.ts', task)).message;
}

const perSecond = (f: Figures) => (f.rows / f.ms) * 1000;
const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

console.log(
  `pbs-export benchmark: ${fmt(transactions)} transactions, Node ${process.version} ${CHILD_NODE_FLAGS.join(' ')}, ` +
    new Date().toISOString(),
);
const throughput = await withSimulator(transactions, 0, async (url, profile) => {
  const fullPeriod = { url, profile, rows: transactions, period: ALL_YEARS, concurrency, pageSize: 1000 };
  const rawCsv = await measure({ ...fullPeriod, mode: 'raw-csv' });
  const rawFetch = await measure({ ...fullPeriod, mode: 'raw-fetch' });
  const csv = await measure({ ...fullPeriod, mode: 'export-csv' });
  const rawXlsx = await measure({ ...fullPeriod, mode: 'raw-xlsx' });
  const xlsx = await measure({ ...fullPeriod, mode: 'export-xlsx' });
  const gains = await measure({ ...fullPeriod, mode: 'gains' });
  return { rawCsv, rawFetch, csv, rawXlsx, xlsx, gains };
});

// Small pages keep the simulator's own work per request well below the injected latency, so the
// run measures how well the fetch overlaps waiting, not how fast the simulator generates data.
const LATENCY_PAGE_SIZE = 100;
const latencyRows = Math.min(transactions, 20_000);
const latency = await withSimulator(latencyRows, latencyMs, (url, profile) =>
  measure({
    url,
    profile,
    rows: latencyRows,
    period: ALL_YEARS,
    concurrency,
    pageSize: LATENCY_PAGE_SIZE,
    mode: 'latency',
  }),
);
const idealMs = ((latency.pages ?? 0) * latencyMs) / concurrency;

const rows: [string, string, string, string, string][] = [
  ['task', 'rows/s', 'peak RSS MB', 'ratio', 'target'],
  ['raw csv-stringify', fmt(perSecond(throughput.rawCsv)), fmt(throughput.rawCsv.peakRssMb), '1.00', ''],
  [
    'raw fetch (client alone)',
    fmt(perSecond(throughput.rawFetch)),
    fmt(throughput.rawFetch.peakRssMb),
    fmt(perSecond(throughput.rawFetch) / perSecond(throughput.rawCsv), 2),
    'vs raw csv-stringify: the ceiling of any export',
  ],
  [
    'export CSV end to end',
    fmt(perSecond(throughput.csv)),
    fmt(throughput.csv.peakRssMb),
    fmt(perSecond(throughput.csv) / perSecond(throughput.rawCsv), 2),
    '≥ 0.50 × raw, RSS < 256 MB',
  ],
  [
    'raw exceljs streaming',
    fmt(perSecond(throughput.rawXlsx)),
    fmt(throughput.rawXlsx.peakRssMb),
    '1.00',
    '',
  ],
  [
    'export XLSX end to end',
    fmt(perSecond(throughput.xlsx)),
    fmt(throughput.xlsx.peakRssMb),
    fmt(perSecond(throughput.xlsx) / perSecond(throughput.rawXlsx), 2),
    '≥ 0.70 × raw, RSS < 256 MB',
  ],
  [
    `export gains (history → ${ALL_YEARS.to.slice(0, 7)})`,
    fmt(perSecond(throughput.gains)),
    fmt(throughput.gains.peakRssMb),
    fmt(perSecond(throughput.gains) / perSecond(throughput.rawCsv), 2),
    'vs raw csv-stringify',
  ],
];
const widths = [0, 1, 2, 3, 4].map((i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  '));
console.log(
  `\nlatency-bound fetch: ${fmt(latencyRows)} transactions, ${latency.shards} shards, ${latency.pages} pages, ` +
    `${LATENCY_PAGE_SIZE} per page, ${latencyMs} ms per request, concurrency ${concurrency}`,
);
console.log(
  `  measured ${fmt(latency.fetchMs ?? 0)} ms, ideal ${fmt(idealMs)} ms (pages × latency ÷ concurrency), ` +
    `ratio ${fmt((latency.fetchMs ?? 0) / idealMs, 2)} (target ≤ 1.25)`,
);
const { gains } = throughput;
if (gains.lotsMatched !== gains.exportLotsMatched) {
  throw new Error(
    `the engine matched ${gains.lotsMatched} lots alone but ${gains.exportLotsMatched} in the export`,
  );
}
console.log(
  `\ngains engine (FIFO, one universal pool, week windows) over ${fmt(gains.rows)} transactions: ${fmt(gains.lotsMatched ?? 0)} ` +
    `disposals matched (lots consumed, whole history) in ${fmt(gains.engineMs ?? 0)} ms of engine time = ` +
    `${fmt(((gains.lotsMatched ?? 0) / (gains.engineMs ?? Number.NaN)) * 1000)} disposals matched/s, ` +
    `${fmt((gains.rows / (gains.engineMs ?? Number.NaN)) * 1000)} transactions/s; ` +
    `peak RSS of the gains process ${fmt(gains.peakRssMb)} MB`,
);
console.log(
  `\nstages (ms): CSV fetch ${fmt(throughput.csv.fetchMs ?? 0)} (rendering meanwhile), then ` +
    `${fmt(throughput.csv.tailMs ?? 0)} after the last shard, total ${fmt(throughput.csv.ms)}; XLSX fetch ` +
    `${fmt(throughput.xlsx.fetchMs ?? 0)}, then ${fmt(throughput.xlsx.tailMs ?? 0)} after the last shard, ` +
    `total ${fmt(throughput.xlsx.ms)}`,
);
