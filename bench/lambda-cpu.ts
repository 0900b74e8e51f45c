/**
 * `npm run bench:lambda -- [--transactions 100000] [--rounds 3] [--kind csv] [--against DIR] [--cpu-prof DIR]`
 *
 * The Lambda path of one export, measured alone and in pairs: per round and build, the plan and
 * fetch-shard tasks (`lambda-fetch`, shards 8 at a time in one process) then the finish task
 * (`lambda-finish`), each in a fresh process, over the simulator and local S3 (s3rver), each in
 * its own process. Prints each task's wall ms, its CPU seconds per 100 000 transactions (every
 * thread, the process's start left out) and s3rver's CPU seconds during the task (from
 * `/proc/<pid>/stat`, where there is one). `--against DIR` (another checkout, as for
 * `bench:cpu`) measures that checkout's `lib/` with the same measuring code, alternating.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { buildPairedChildren, child, median, withSimulator } from './children.ts';
import type { BenchTask, ExportKind, Figures } from './run-child.ts';

const { values } = parseArgs({
  options: {
    transactions: { type: 'string' },
    rounds: { type: 'string' },
    kind: { type: 'string' },
    against: { type: 'string' },
    'cpu-prof': { type: 'string' },
  },
});
const transactions = Number(values.transactions ?? 100_000);
const rounds = Math.max(1, Number(values.rounds ?? 3));
const kind = (values.kind ?? 'csv') as ExportKind;
const ALL_YEARS = { from: '2023-01-01', to: '2025-12-31' };

const builds = await buildPairedChildren(values.against);

/** CPU ms (user + system) of a process so far, from Linux's `/proc`; NaN elsewhere. */
function cpuMsOf(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

interface Measured {
  fetch: Figures;
  finish: Figures;
  s3FetchMs: number;
  s3FinishMs: number;
}
const results: Measured[][] = builds.map(() => []);
const s3 = await child<{ endpoint: string; bucket: string }>(
  builds[0]?.dir as string,
  's3-child.ts',
  {},
  true,
);
try {
  await withSimulator(builds[0]?.dir as string, transactions, 0, async (url, profile) => {
    const base = {
      url,
      profile,
      rows: transactions,
      period: ALL_YEARS,
      concurrency: 8,
      pageSize: 1000,
      kind,
    };
    for (let round = 1; round <= rounds; round += 1) {
      for (const [index, build] of builds.entries()) {
        process.stderr.write(`  round ${round}: lambda ${kind} (${build.name})…\n`);
        const run = async (task: BenchTask, step: string) => {
          const dir = values['cpu-prof'];
          const target = dir === undefined ? undefined : { dir, name: `${step}-${index}-${round}` };
          const before = cpuMsOf(s3.process.pid);
          const { message } = await child<Figures>(build.dir, 'run-child.ts', task, false, target);
          return { figures: message, s3Ms: cpuMsOf(s3.process.pid) - before };
        };
        const fetch = await run({ ...base, mode: 'lambda-fetch', s3: s3.message }, 'lambda-fetch');
        const finish = await run(
          {
            ...base,
            rows: fetch.figures.rows,
            mode: 'lambda-finish',
            s3: s3.message,
            ...(fetch.figures.jobId ? { jobId: fetch.figures.jobId } : {}),
          },
          'lambda-finish',
        );
        results[index]?.push({
          fetch: fetch.figures,
          finish: finish.figures,
          s3FetchMs: fetch.s3Ms,
          s3FinishMs: finish.s3Ms,
        });
      }
    }
  });
} finally {
  s3.process.disconnect();
}

const per100k = (ms: number, rows: number) => (ms / 1000) * (100_000 / rows);
/** One figure of every round, as `median (round / round …)`. */
function cell(list: readonly Measured[], figure: (m: Measured) => number, digits: number): string {
  const xs = list.map(figure);
  return `${median(xs).toFixed(digits)} (${xs.map((x) => x.toFixed(digits)).join(' / ')})`;
}
console.log(
  `Lambda path, ${kind}, ${transactions} transactions, ${rounds} rounds (medians (rounds)); CPU s per 100k of the task's process; s3rver CPU s during the task`,
);
for (const [index, build] of builds.entries()) {
  const list = results[index] ?? [];
  console.log(`  ${build.name}:`);
  console.log(
    `    plan+shards wall ${cell(list, (m) => m.fetch.ms, 0)} ms (plan ${cell(list, (m) => m.fetch.planMs ?? 0, 0)}), CPU ${cell(list, (m) => per100k(m.fetch.taskCpuMs, m.fetch.rows), 2)}, s3rver ${cell(list, (m) => m.s3FetchMs / 1000, 2)}`,
  );
  console.log(
    `    finish      wall ${cell(list, (m) => m.finish.ms, 0)} ms, CPU ${cell(list, (m) => per100k(m.finish.taskCpuMs, m.fetch.rows), 2)}, s3rver ${cell(list, (m) => m.s3FinishMs / 1000, 2)}, RSS ${cell(list, (m) => m.finish.peakRssMb, 0)} MB`,
  );
  console.log(`    total wall  ${cell(list, (m) => m.fetch.ms + m.finish.ms, 0)} ms`);
}
if (builds.length > 1) {
  const total = (i: number) => median((results[i] ?? []).map((m) => m.fetch.ms + m.finish.ms));
  const cpu = (i: number) =>
    median((results[i] ?? []).map((m) => per100k(m.fetch.taskCpuMs + m.finish.taskCpuMs, m.fetch.rows)));
  console.log(
    `  this ÷ ${builds[1]?.name}: total wall ${(total(0) / total(1)).toFixed(2)}, CPU ${(cpu(0) / cpu(1)).toFixed(2)}`,
  );
}
