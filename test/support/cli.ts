/**
 * `pbs-export …` run in this process (its `main` with injected streams), for tests that drive the
 * CLI against the simulator on loopback without starting a child process.
 */
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { main } from '../../lib/cli/main.ts';
import { DEFAULT_PROFILES, type SimulatedProfile } from '../../lib/simulator/index.ts';

/** What one CLI run ended with: its exit code and everything it printed. */
export interface CliDone {
  code: number;
  stdout: string;
  stderr: string;
}

/** A CLI run in process: the arguments after `pbs-export`. */
export type Cli = (argv: readonly string[]) => Promise<CliDone>;

/** Runs `pbs-export argv` in this process with `env` and the wall clock, collecting its output. */
export async function runCli(
  argv: readonly string[],
  env: Record<string, string | undefined>,
): Promise<CliDone> {
  let stdout = '';
  let stderr = '';
  const code = await main([...argv], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env,
    now: () => new Date(),
  });
  return { code, stdout, stderr };
}

/** The simulator's `demo` profile (its credentials and data). */
export const DEMO_PROFILE: SimulatedProfile = (() => {
  const demo = DEFAULT_PROFILES.find((p) => p.name === 'demo');
  if (demo === undefined) throw new Error('no demo profile');
  return demo;
})();

/**
 * A {@link Cli} against the simulator `url()` answers at, with the demo profile's credentials;
 * `url` is read at each run, so the simulator may start after this is made (in `beforeAll`).
 */
export function demoCli(url: () => string): Cli {
  return (argv) =>
    runCli(argv, {
      PBS_BASE_URL: url(),
      PBS_API_KEY: DEMO_PROFILE.apiKey,
      PBS_API_SECRET: DEMO_PROFILE.apiSecret,
    });
}

/** An export of one month of demo: the run's output, its run id and its folder. */
export interface DemoExport extends CliDone {
  runId: string;
  folder: string;
}

/**
 * Exports `period` of demo (transactions and gains as CSV, so it reconciles) into `books`; throws
 * with the CLI's stderr when the run fails or names no run id.
 */
export async function exportDemoMonth(cli: Cli, books: string, period: string): Promise<DemoExport> {
  const reports = ['--report', 'transactions', '--report', 'gains', '--format', 'csv'];
  const done = await cli(['run', '--profile', 'demo', '--period', period, ...reports, '--out', books]);
  const runId = /Export (\S+) finished/.exec(done.stdout)?.[1];
  if (done.code !== 0 || runId === undefined)
    throw new Error(`export of demo ${period} failed (exit ${done.code}):\n${done.stderr}`);
  return { ...done, runId, folder: join(books, 'reports', 'demo', period, runId) };
}

/** Closes `period` of demo at run `runId` in `books` (by ann@firm.example); throws with stderr when it fails. */
export async function closeDemoMonth(
  cli: Cli,
  books: string,
  period: string,
  runId: string,
): Promise<CliDone> {
  const who = ['--by', 'ann@firm.example', '--reason', `${period} booked`];
  const done = await cli([
    'close',
    '--profile',
    'demo',
    '--period',
    period,
    '--run',
    runId,
    ...who,
    '--out',
    books,
  ]);
  if (done.code !== 0) throw new Error(`close of demo ${period} failed (exit ${done.code}):\n${done.stderr}`);
  return done;
}

/** What {@link runDemoExport} is told: where the simulator is, where to write, and what to ask. */
export interface DemoRunOptions {
  /** The simulator's URL. */
  url: string;
  /** A scratch folder: the set goes into a new folder in it, the service settings file beside it. */
  dir: string;
  period: string;
  /** The reports asked (`--report` each); transactions and gains unless told. */
  reports?: readonly string[];
  /** `--format`; csv unless told. */
  format?: string;
  /** Service settings for `--config` (its `baseUrl` the simulator's); without, `PBS_BASE_URL` says where. */
  config?: object;
}

/** A run of {@link runDemoExport}: its output, the files it wrote and its manifest (null without one). */
export interface DemoRun extends CliDone {
  files: string[];
  // biome-ignore lint/suspicious/noExplicitAny: the manifest as JSON, read field by field
  manifest: any;
}

/** `pbs-export run` of the demo profile for one period against the simulator, in process; never throws on a failed run. */
export async function runDemoExport(options: DemoRunOptions): Promise<DemoRun> {
  const env: Record<string, string> = {
    PBS_API_KEY: DEMO_PROFILE.apiKey,
    PBS_API_SECRET: DEMO_PROFILE.apiSecret,
  };
  const flags: string[] = [];
  if (options.config === undefined) env.PBS_BASE_URL = options.url;
  else {
    const file = join(options.dir, 'service.json');
    await writeFile(file, JSON.stringify({ baseUrl: options.url, ...options.config }));
    flags.push('--config', file);
  }
  const reports = (options.reports ?? ['transactions', 'gains']).flatMap((report) => ['--report', report]);
  const outDir = join(options.dir, `out-${options.period}-${Math.random().toString(16).slice(2)}`);
  const argv = ['run', '--profile', 'demo', '--period', options.period, ...reports];
  const done = await runCli([...argv, '--format', options.format ?? 'csv', '--out', outDir, ...flags], env);
  const entries = await readdir(outDir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const manifestFile = files.find((f) => f.endsWith('manifest.json'));
  const manifest = manifestFile === undefined ? null : JSON.parse(await readFile(manifestFile, 'utf8'));
  return { ...done, files, manifest };
}
