/**
 * `npm run bench:cpu -- [--transactions 100000] [--rounds 3] [--modes raw-fetch,minimal-fetch,export-csv,…]
 *   [--against DIR] [--cpu-prof DIR] [--heap-mb 128]`
 *
 * CPU seconds per 100 000 transactions of the client alone (raw fetch) and of each export mode
 * (CSV, XLSX, gains), beside the floor of the raw fetch (`minimal-fetch`: the same requests,
 * signed, with `response.text()` and `JSON.parse` alone; `minimal-http`: the same over
 * `node:http`; `minimal-export`: the CSV export's job written plainly, `bench/minimal-export.ts`,
 * with the CPU of its steps): the CPU of the task itself, every thread, in a fresh process each, one at a
 * time. CPU time, unlike wall time, hardly depends on what else the machine runs, so a
 * regression shows as a number even on a shared machine. `--against DIR` (the root of another
 * checkout of the project, e.g. `git archive <commit> | tar -x -C DIR` with `node_modules` linked)
 * measures that checkout's `lib/` with the same measuring code, each task in pairs (this code, then
 * that one, round after round), and prints the ratio of the medians.
 */
import { parseArgs } from 'node:util';
import { buildPairedChildren, CHILD_NODE_FLAGS, child, median, withSimulator } from './children.ts';
import type { BenchTask, Figures } from './run-child.ts';

const { values } = parseArgs({
  options: {
    transactions: { type: 'string' },
    rounds: { type: 'string' },
    modes: { type: 'string' },
    against: { type: 'string' },
    'cpu-prof': { type: 'string' },
    'heap-mb': { type: 'string' },
  },
});
const MODES = [
  'raw-fetch',
  'minimal-fetch',
  'minimal-http',
  'minimal-export',
  'plain-export',
  'export-csv',
  'export-xlsx',
  'export-xlsx-spill',
  'gains',
] as const;
type Mode = (typeof MODES)[number];
const modes = (values.modes?.split(',') ?? MODES) as Mode[];
for (const mode of modes) {
  if (!MODES.includes(mode)) throw new Error(`--modes takes: ${MODES.join(', ')}`);
}
const transactions = Number(values.transactions ?? 100_000);
/**
 * `--heap-mb N`: the children's V8 old-space cap instead of the benchmark's 128 MB, for a program
 * that does not bound its memory (`minimal-export` holds every CSV row, and at 1M needs more).
 */
const nodeFlags =
  values['heap-mb'] === undefined ? CHILD_NODE_FLAGS : [`--max-old-space-size=${Number(values['heap-mb'])}`];
const rounds = Math.max(1, Number(values.rounds ?? 3));
/** The simulator's data spans these years (as in `bench/index.ts`). */
const ALL_YEARS = { from: '2023-01-01', to: '2025-12-31' };

const builds = await buildPairedChildren(values.against);

const per100k = (f: Figures) => (f.taskCpuMs / 1000) * (100_000 / f.rows);

/** Figures per mode and build: `[mode][build][round]`. */
const results = new Map<Mode, Figures[][]>(modes.map((mode) => [mode, builds.map(() => [])]));
await withSimulator(builds[0]?.dir as string, transactions, 0, async (url, profile) => {
  const base = { url, profile, rows: transactions, period: ALL_YEARS, concurrency: 8, pageSize: 1000 };
  for (let round = 1; round <= rounds; round += 1) {
    for (const mode of modes) {
      for (const [index, build] of builds.entries()) {
        process.stderr.write(`  round ${round}: ${mode} (${build.name})…\n`);
        const profileDir = values['cpu-prof'];
        const profileTarget =
          profileDir === undefined ? undefined : { dir: profileDir, name: `${mode}-${index}-${round}` };
        const task: BenchTask = { ...base, mode };
        // A child that fails (out of memory, say) loses its own figure, not the run's others.
        try {
          const { message } = await child<Figures>(
            build.dir,
            'run-child.ts',
            task,
            false,
            profileTarget,
            nodeFlags,
          );
          results.get(mode)?.[index]?.push(message);
        } catch (error) {
          process.stderr.write(
            `  round ${round}: ${mode} (${build.name}) failed: ${(error as Error).message}\n`,
          );
        }
      }
    }
  }
});

console.log(
  `CPU seconds per 100 000 transactions (${transactions} transactions, ${rounds} rounds, ${nodeFlags.join(' ')}, every thread of the task's process, its start left out); ` +
    'then wall seconds and peak RSS MB of the task, medians',
);
/** One figure of every round of one build, as `median (round / round …)`. */
function cell(list: readonly Figures[], figure: (f: Figures) => number, digits: number): string {
  const values = list.map(figure);
  return `${median(values).toFixed(digits)} (${values.map((x) => x.toFixed(digits)).join(' / ')})`;
}
for (const mode of modes) {
  const figures = results.get(mode) ?? [];
  const cells = builds.map((build, index) => {
    const list = figures[index] ?? [];
    if (list.length === 0) return `${build.name}: failed in every round`;
    return `${build.name}: ${cell(list, per100k, 2)}, wall ${cell(list, (f) => f.ms / 1000, 1)} s, RSS ${cell(list, (f) => f.peakRssMb, 0)} MB`;
  });
  const cpuMedian = (index: number) => median((figures[index] ?? []).map(per100k));
  const ratio = builds.length > 1 ? `; CPU ratio ${(cpuMedian(0) / cpuMedian(1)).toFixed(2)}` : '';
  console.log(`  ${mode.padEnd(12)} ${cells.join('  vs  ')}${ratio}`);
  const steps = (figures[0] ?? []).map((f) => f.steps).filter((s) => s !== undefined);
  if (steps.length > 0) {
    // Seconds per 100 000 transactions of each synchronous step (medians): process CPU / wall.
    const rows = figures[0]?.[0]?.rows ?? transactions;
    const per100k = (key: string) =>
      ((median(steps.map((s) => s[key] ?? 0)) / 1000) * (100_000 / rows)).toFixed(2);
    const perStep = Object.keys(steps[0] ?? {})
      .filter((key) => !key.endsWith('Wall'))
      .map((step) => `${step} ${per100k(step)}/${per100k(`${step}Wall`)}`);
    console.log(`  ${''.padEnd(12)} steps, s per 100k, process CPU/wall: ${perStep.join(', ')}`);
  }
}
