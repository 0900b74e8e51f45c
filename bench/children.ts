/**
 * The benchmark's child processes: each measured task, the simulator and local S3 run in a fresh
 * Node process of their own, from esbuild bundles (as the code runs on Lambda: under tsx, every
 * process would also carry the TypeScript loader's own thread and memory).
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';
import type { SimulatedProfile } from '../lib/simulator/index.ts';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * Every measured process gets the same V8 heap cap, as a function sized for the job would: the
 * export's live heap stays under 50 MB, but without a cap V8 lets garbage pile up to ~300 MB of RSS
 * at a high allocation rate before collecting it.
 */
export const CHILD_NODE_FLAGS = ['--max-old-space-size=128'];
/** Turns off the AWS SDK's notice that its 2027 releases need Node 22, printed by every child that loads it. */
const QUIET_ENV = { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' };

/**
 * Bundles the children into `outDir`. With `libFrom` (the root of another checkout of the
 * project, such as an older commit's), the children import that checkout's `lib/` instead of this
 * one's: the same measuring code over other code, for comparisons in one session.
 */
export async function buildChildren(outDir: string, libFrom?: string): Promise<void> {
  await build({
    entryPoints: [here('sim-child.ts'), here('run-child.ts'), here('s3-child.ts')],
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    packages: 'external',
    outExtension: { '.js': '.mjs' },
    logLevel: 'warning',
    plugins: libFrom === undefined ? [] : [libOf(libFrom)],
  });
  // The XLSX writer's worker thread is an entry of its own, found beside the bundle that starts it
  // (lib/export/report/writers/xlsx-thread.ts); a checkout without it writes on the main thread.
  const worker = join(libFrom ?? here('..'), 'lib/export/report/writers/xlsx-worker.ts');
  if (existsSync(worker)) {
    await build({
      entryPoints: [worker],
      outfile: join(outDir, 'xlsx-worker.mjs'),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      packages: 'external',
      logLevel: 'warning',
    });
  }
}

/** A build of the children a paired run measures: this checkout's, or another's. */
export interface ChildBuild {
  name: string;
  dir: string;
}

/**
 * Bundles this checkout's children into `.bench` and, with `against` (the root of another
 * checkout), that checkout's into its own `.bench-against`, whose `node_modules` the bundles'
 * packages resolve from: the builds of `bench:cpu` and `bench:lambda`, this one first.
 */
export async function buildPairedChildren(against?: string): Promise<ChildBuild[]> {
  const builds: ChildBuild[] = [{ name: 'this checkout', dir: here('../.bench') }];
  await buildChildren(here('../.bench'));
  if (against !== undefined) {
    const dir = join(against, '.bench-against');
    await buildChildren(dir, against);
    builds.push({ name: against, dir });
  }
  return builds;
}

/** The median of `list` (the mean of the middle two for an even count). */
export function median(list: readonly number[]): number {
  const sorted = [...list].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Resolves the children's `../lib/…` imports into `root`'s `lib/`. */
function libOf(root: string): Plugin {
  return {
    name: 'lib-of-another-checkout',
    setup(pluginBuild) {
      pluginBuild.onResolve({ filter: /^\.\.\/lib\// }, (args) =>
        args.importer.startsWith(here('.')) ? { path: join(root, args.path.slice(3)) } : undefined,
      );
    },
  };
}

/** Where a child writes its V8 CPU profile (`--cpu-prof`). */
export interface ProfileTarget {
  dir: string;
  name: string;
}

/**
 * Forks `script` of `bundleDir` with `argument`; resolves with its first message. `nodeFlags`
 * replace {@link CHILD_NODE_FLAGS} (`bench:cpu --heap-mb`).
 */
export function child<T>(
  bundleDir: string,
  script: string,
  argument: unknown,
  keepAlive = false,
  profile?: ProfileTarget,
  nodeFlags: readonly string[] = CHILD_NODE_FLAGS,
): Promise<{ message: T; process: ChildProcess }> {
  const profileFlags =
    profile === undefined
      ? []
      : ['--cpu-prof', `--cpu-prof-dir=${profile.dir}`, `--cpu-prof-name=${profile.name}.cpuprofile`];
  return new Promise((resolve, reject) => {
    const proc = fork(join(bundleDir, script.replace(/\.ts$/, '.mjs')), [JSON.stringify(argument)], {
      execArgv: [...nodeFlags, ...profileFlags],
      env: { ...process.env, ...QUIET_ENV },
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

/** Runs `work` over a kept-alive child process's first message (what it serves), then lets the child go. */
export async function withChild<M, T>(
  bundleDir: string,
  script: string,
  argument: unknown,
  work: (message: M) => Promise<T>,
) {
  const { message, process: proc } = await child<M>(bundleDir, script, argument, true);
  try {
    return await work(message);
  } finally {
    proc.disconnect();
  }
}

/** The simulator in its own process, serving `rows` transactions of the demo profile. */
export function withSimulator<T>(
  bundleDir: string,
  rows: number,
  latency: number,
  work: (url: string, profile: SimulatedProfile) => Promise<T>,
  rateLimitPerSecond?: number,
) {
  return withChild<{ url: string; profile: SimulatedProfile }, T>(
    bundleDir,
    'sim-child.ts',
    { transactions: rows, latencyMs: latency, ...(rateLimitPerSecond ? { rateLimitPerSecond } : {}) },
    (message) => work(message.url, message.profile),
  );
}
