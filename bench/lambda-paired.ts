/**
 * `npm run bench -- --only lambda`: the Lambda path of each export (plan and fetch-shard tasks in
 * one process, the finish in another, over local S3) beside the same export through the CLI's
 * `runExport`, measured back to back in every round. On a shared machine the ratio of two runs
 * taken seconds apart is steadier than either time, and the ratio of CPU seconds steadier still.
 * Beside the CSV pair, the minimal programs of the same job (`minimal-export.ts` in one process,
 * `minimal-lambda.ts` shaped as the state machine): what the Lambda shape costs a plain program.
 */
import type { SimulatedProfile } from '../lib/simulator/index.ts';
import type { BenchTask, ExportKind, Figures } from './run-child.ts';

/** What the paired measure runs. */
export interface PairedSetup {
  transactions: number;
  rounds: number;
  concurrency: number;
  period: { from: string; to: string };
}

type WithS3 = <T>(work: (s3: { endpoint: string; bucket: string }) => Promise<T>) => Promise<T>;
type WithSimulator = <T>(
  rows: number,
  latency: number,
  work: (url: string, profile: SimulatedProfile) => Promise<T>,
) => Promise<T>;

const KINDS: readonly ExportKind[] = ['csv', 'xlsx', 'gains'];
const CLI_MODE: Record<ExportKind, BenchTask['mode']> = {
  csv: 'export-csv',
  xlsx: 'export-xlsx',
  gains: 'gains',
};

interface Pair {
  cli: Figures;
  fetch: Figures;
  finish: Figures;
  /** CSV only: the minimal one-process export, and the minimal Lambda path's two processes. */
  minimal?: { cli: Figures; fetch: Figures; finish: Figures };
}

/** Measures and prints, per kind and round, Lambda path ÷ CLI (rows per second of each). */
export async function measurePairedLambda(
  setup: PairedSetup,
  withS3: WithS3,
  withSimulator: WithSimulator,
  measure: (task: BenchTask) => Promise<Figures>,
): Promise<void> {
  const rounds = await withS3((s3) =>
    withSimulator(setup.transactions, 0, async (url, profile) => {
      const base = {
        url,
        profile,
        rows: setup.transactions,
        period: setup.period,
        concurrency: setup.concurrency,
        pageSize: 1000,
      };
      const list: Record<ExportKind, Pair>[] = [];
      for (let round = 0; round < setup.rounds; round += 1) {
        const pairs = {} as Record<ExportKind, Pair>;
        for (const kind of KINDS) {
          const cli = await measure({ ...base, mode: CLI_MODE[kind] });
          const fetch = await measure({ ...base, kind, s3, mode: 'lambda-fetch' });
          const finish = await measure({
            ...base,
            kind,
            s3,
            rows: fetch.rows,
            mode: 'lambda-finish',
            ...(fetch.jobId ? { jobId: fetch.jobId } : {}),
          });
          pairs[kind] = { cli, fetch, finish };
          if (kind === 'csv') pairs[kind].minimal = await measureMinimal(base, s3, measure);
        }
        list.push(pairs);
      }
      return list;
    }),
  );
  printPairs(setup, rounds);
}

/** The minimal programs of the CSV job, back to back: one process, then plan+shards and finish. */
async function measureMinimal(
  base: Omit<BenchTask, 'mode'>,
  s3: { endpoint: string; bucket: string },
  measure: (task: BenchTask) => Promise<Figures>,
): Promise<NonNullable<Pair['minimal']>> {
  const cli = await measure({ ...base, mode: 'minimal-export' });
  const fetch = await measure({ ...base, s3, mode: 'minimal-lambda-fetch' });
  const finish = await measure({
    ...base,
    s3,
    rows: fetch.rows,
    mode: 'minimal-lambda-finish',
    ...(fetch.jobId ? { jobId: fetch.jobId } : {}),
    ...(fetch.shards ? { shardCount: fetch.shards } : {}),
  });
  return { cli, fetch, finish };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const each = <T>(list: readonly T[], show: (item: T) => string) => list.map(show).join(' / ');
/**
 * Lambda ÷ CLI by wall time: the CLI's time over the two Lambda processes' (the same job over the
 * same data; the fetch's rows count items fetched, the CLI's the transactions kept, so rows per
 * second of each would favour the Lambda path by the items dropped).
 */
const wallRatio = (p: Omit<Pair, 'minimal'>) => p.cli.ms / (p.fetch.ms + p.finish.ms);
/** Lambda ÷ CLI by CPU seconds (every thread of each task's process, imports left out). */
const cpuRatio = (p: Omit<Pair, 'minimal'>) => cliCpuMs(p.cli) / (p.fetch.taskCpuMs + p.finish.taskCpuMs);
/** The CLI task's CPU for its export (the gains task then feeds the engine a second time, to time it alone). */
const cliCpuMs = (cli: Figures) => cli.exportCpuMs ?? cli.taskCpuMs;

function printPairs(setup: PairedSetup, rounds: readonly Record<ExportKind, Pair>[]): void {
  console.log(
    `\nLambda path beside the CLI, back to back per round (${setup.rounds} rounds, ${fmt(setup.transactions)} transactions, ` +
      `shards ${setup.concurrency} at a time in one process, finish in its own; gains: rows are the history fed to the engine):`,
  );
  for (const kind of KINDS) {
    const pairs = rounds.map((round) => round[kind]);
    console.log(
      `  ${kind}: CLI ${each(pairs, (p) => fmt(p.cli.ms))} ms; Lambda plan+shards ${each(pairs, (p) => fmt(p.fetch.ms))} ms + ` +
        `finish ${each(pairs, (p) => fmt(p.finish.ms))} ms; Lambda ÷ CLI ${each(pairs, (p) => fmt(wallRatio(p), 2))} ` +
        `(target ≥ 0.90); by CPU s ${each(pairs, (p) => fmt(cpuRatio(p), 2))} (CLI ${each(pairs, (p) => fmt(cliCpuMs(p.cli) / 1000, 1))}, ` +
        `plan+shards ${each(pairs, (p) => fmt(p.fetch.taskCpuMs / 1000, 1))} + finish ${each(pairs, (p) => fmt(p.finish.taskCpuMs / 1000, 1))}); ` +
        `finish peak RSS ${each(pairs, (p) => fmt(p.finish.peakRssMb))} MB`,
    );
  }
  const minimal = rounds.flatMap((round) =>
    round.csv.minimal ? [{ ...round.csv.minimal, ours: round.csv }] : [],
  );
  if (minimal.length === 0) return;
  console.log(
    `  minimal programs of the CSV job: one process ${each(minimal, (m) => fmt(m.cli.ms))} ms; Lambda-shaped plan+shards ` +
      `${each(minimal, (m) => fmt(m.fetch.ms))} ms + finish ${each(minimal, (m) => fmt(m.finish.ms))} ms; ` +
      `minimal Lambda ÷ minimal one process ${each(minimal, (m) => fmt(wallRatio(m), 2))}, by CPU s ${each(minimal, (m) => fmt(cpuRatio(m), 2))} ` +
      `(CPU s ${each(minimal, (m) => fmt(m.cli.taskCpuMs / 1000, 1))} against ${each(minimal, (m) => fmt(m.fetch.taskCpuMs / 1000, 1))} + ` +
      `${each(minimal, (m) => fmt(m.finish.taskCpuMs / 1000, 1))}); minimal Lambda ÷ our CLI ${each(minimal, (m) => fmt(wallRatio({ ...m, cli: m.ours.cli }), 2))}`,
  );
}
