/**
 * The CLI as a user starts it from the checkout: `npx pbs-export` (the package's `bin`) and
 * `npm run pbs-export -- …`, with Ctrl-C in a terminal, which signals the whole process group
 * (npm, its shell and the CLI) at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-launch-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The environment of a child: no service configured, npm's cache and the temp folder in `dir`. */
function childEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('PBS_') && !name.startsWith('npm_')) env[name] = value;
  }
  return {
    ...env,
    npm_config_cache: join(dir, 'npm-cache'),
    npm_config_update_notifier: 'false',
    TMPDIR: join(dir, 'tmp'),
    HOME: dir,
  };
}

interface Exited {
  /** The status a shell reports: the exit code, or 128 + the number of the signal that ended it. */
  status: number;
  stdout: string;
  stderr: string;
}

/** Collects a child's output until it exits. */
async function exited(child: ChildProcess, output: { stdout: string; stderr: string }): Promise<Exited> {
  const [code, signal] = (await once(child, 'exit')) as [number | null, NodeJS.Signals | null];
  return { status: code ?? 128 + constants.signals[signal as NodeJS.Signals], ...output };
}

/** Starts `command args` in the checkout, its output collected into `output`. */
function start(command: string, args: readonly string[], options: { group?: boolean } = {}) {
  const output = { stdout: '', stderr: '' };
  const child = spawn(command, args, {
    env: childEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, as a terminal's foreground job: a signal to the group reaches all.
    detached: options.group === true,
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output.stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.stderr += chunk.toString();
  });
  return { child, output };
}

describe('npx pbs-export', () => {
  it('runs the CLI from the checkout: --help prints the usage, exit 0', async () => {
    const { child, output } = start('npx', ['--offline', 'pbs-export', '--help']);

    const result = await exited(child, output);

    expect({ status: result.status, first: result.stdout.split('\n')[0] }, result.stderr).toEqual({
      status: 0,
      first: 'Usage:',
    });
    expect(result.stdout).toContain('pbs-export run [options]');
  });
});

describe('Ctrl-C under npm run (SIGINT to the whole process group)', () => {
  it('stops the run with its message, removes its scratch folder, exit 130', async () => {
    await mkdir(join(dir, 'tmp'));
    const { child, output } = start(
      'npm',
      [
        'run',
        '--silent',
        'pbs-export',
        '--',
        'run',
        '--simulator',
        '--period',
        '2025',
        '--transactions',
        '100000',
        '--format',
        'csv',
        '--out',
        join(dir, 'out'),
      ],
      { group: true },
    );
    const done = exited(child, output);
    // Mid-fetch: the first shard is in, its scratch folder holds it.
    await new Promise<void>((resolve) => {
      const check = () => {
        if (output.stdout.includes('fetched shard')) {
          child.stdout?.off('data', check);
          resolve();
        }
      };
      child.stdout?.on('data', check);
    });
    process.kill(-(child.pid as number), 'SIGINT');

    const result = await done;

    expect({ status: result.status, stderr: result.stderr.split('\n').slice(1).join('\n') }).toEqual({
      status: 130,
      stderr: "stopped by SIGINT: nothing was published, and the run's scratch files were removed\n",
    });
    expect((await readdir(join(dir, 'tmp'))).filter((name) => name.startsWith('pbs-export-'))).toEqual([]);
    expect(await readdir(join(dir, 'out')).catch(() => [])).toEqual([]);
  });
});
