/**
 * Each Lambda function's bundle as deployed (`infra/bundling.ts`): its code size, the size of the
 * source map kept outside the package, and its cold-start initialisation time: the time a fresh
 * Node process takes to load the bundle (every module's top level, the handler built lazily).
 * Each load is a new process, `loads` times per function; the median is printed.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { functionBuildOptions } from '../infra/bundling.ts';
import { PROJECT_ROOT } from '../infra/pbs-function.ts';
import { FUNCTIONS } from '../infra/stack.ts';

/** One function's figures. */
export interface BundleFigures {
  entry: string;
  codeBytes: number;
  mapBytes: number;
  /** Median milliseconds to import the bundle in a fresh process. */
  initMs: number;
}

/** What a fresh process prints: the milliseconds its dynamic import of the bundle took. */
const LOAD_SCRIPT = `const t = performance.now(); await import(process.argv[1]); process.stdout.write(String(performance.now() - t));`;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Builds every function's bundle into a scratch folder and measures it. */
export async function measureBundles(loads = 5): Promise<BundleFigures[]> {
  const dir = await mkdtemp(join(tmpdir(), 'pbs-bench-bundles-'));
  try {
    const figures: BundleFigures[] = [];
    for (const { entry } of Object.values(FUNCTIONS)) {
      const outfile = join(dir, `${basename(entry, '.ts')}.mjs`);
      await build(functionBuildOptions(entry, PROJECT_ROOT, outfile));
      const times: number[] = [];
      for (let load = 0; load < loads; load += 1) {
        const run = spawnSync(
          process.execPath,
          ['--input-type=module', '-e', LOAD_SCRIPT, pathToFileURL(outfile).href],
          {
            encoding: 'utf8',
            env: { ...process.env, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
          },
        );
        if (run.status !== 0) throw new Error(`loading ${entry} failed: ${run.stderr}`);
        times.push(Number(run.stdout));
      }
      figures.push({
        entry,
        codeBytes: (await stat(outfile)).size,
        mapBytes: (await stat(`${outfile}.map`)).size,
        initMs: median(times),
      });
    }
    return figures;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The figures as a table. */
export function bundleTable(figures: readonly BundleFigures[]): string {
  const rows = figures.map((figure) => [
    figure.entry,
    (figure.codeBytes / 1e6).toFixed(2),
    (figure.mapBytes / 1e6).toFixed(2),
    figure.initMs.toFixed(0),
  ]);
  const header = ['function bundle', 'code MB', 'map MB (not deployed)', 'init ms (median)'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => row[column]?.length ?? 0)),
  );
  return [header, ...rows]
    .map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  '))
    .join('\n');
}
