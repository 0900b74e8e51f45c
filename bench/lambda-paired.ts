/**
 * `npm run bench -- --only lambda`: the Lambda path of each export (plan and fetch-shard tasks in
 * one process, the finish in another, over local S3) beside the same export through the CLI's
 * `runExport`, measured back to back in every round, with the raw fetch of that round. On a
 * shared machine the ratio of two runs taken seconds apart is steadier than either time.
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
        }
        list.push(pairs);
      }
      return list;
    }),
  );
  const fmt = (n: number, digits = 0) =>
    n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  const each = <T>(list: readonly T[], show: (item: T) => string) => list.map(show).join(' / ');
  console.log(
    `\nLambda path beside the CLI, back to back per round (${setup.rounds} rounds, ${fmt(setup.transactions)} transactions, ` +
      `shards ${setup.concurrency} at a time in one process, finish in its own; gains: rows are the history fed to the engine):`,
  );
  for (const kind of KINDS) {
    const pairs = rounds.map((round) => round[kind]);
    const cliPerSecond = (p: Pair) => (p.cli.rows / p.cli.ms) * 1000;
    const lambdaPerSecond = (p: Pair) => (p.fetch.rows / (p.fetch.ms + p.finish.ms)) * 1000;
    console.log(
      `  ${kind}: CLI ${each(pairs, (p) => fmt(p.cli.ms))} ms; Lambda plan+shards ${each(pairs, (p) => fmt(p.fetch.ms))} ms + ` +
        `finish ${each(pairs, (p) => fmt(p.finish.ms))} ms; Lambda ÷ CLI ${each(pairs, (p) => fmt(lambdaPerSecond(p) / cliPerSecond(p), 2))} ` +
        `(target ≥ 0.90); finish peak RSS ${each(pairs, (p) => fmt(p.finish.peakRssMb))} MB`,
    );
  }
}
