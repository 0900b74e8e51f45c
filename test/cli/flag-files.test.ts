/**
 * The files flags name (issue 40, item 6): a file that is missing, not JSON, or holds what cannot
 * apply is refused at once, exit 2, naming the flag, the file and the field, and leaving nothing
 * behind. The CLI and the stand-alone simulator run as processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

interface Finished {
  /** The exit code, or `running` when the process was still running after `waitMs` (then killed). */
  code: number | null | 'running';
  stdout: string;
  stderr: string;
}

/** Runs `script args` with tsx as a process, to its exit or until `waitMs` passed. */
async function run(
  script: string,
  args: readonly string[],
  env: Record<string, string | undefined> = {},
  waitMs = 60_000,
): Promise<Finished> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let running = false;
  const timer = setTimeout(() => {
    running = true;
    child.kill('SIGKILL');
  }, waitMs);
  const [code] = (await once(child, 'exit')) as [number | null];
  clearTimeout(timer);
  return { code: running ? 'running' : code, stdout, stderr };
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-flag-files-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pbs-export restate', () => {
  it('names --closed and the file when the closed snapshot is missing, exit 2 (as render --snapshot)', async () => {
    const missing = join(dir, 'closed.ndjson.gz');

    const result = await run('bin/pbs-export.ts', [
      'restate',
      '--closed',
      missing,
      '--corrected',
      join(dir, 'corrected.ndjson.gz'),
      '--out',
      join(dir, 'out'),
    ]);

    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `error: --closed: cannot read ${missing}: no such file\n`,
    });
  });
});

describe('the simulator --edits FILE', () => {
  /** The simulator started with `edits` written to a file; a refused file stops it at once. */
  async function simulatorWith(edits: string) {
    const file = join(dir, 'edits.json');
    await writeFile(file, edits);
    // A file it takes starts the simulator, which then runs until killed: 20 s say it did.
    return { file, result: await run('bin/simulator.ts', ['--port', '0', '--edits', file], {}, 20_000) };
  }

  it('names the flag and the file of invalid JSON, exit 2', async () => {
    const { file, result } = await simulatorWith('[{"kind": "delete",');

    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: expect.stringMatching(new RegExp(`^error: --edits ${file}: is not JSON \\(.+\\)\\n$`)),
    });
  });

  it.each([
    [
      'an unknown id',
      { kind: 'delete', profile: 'acme', id: 'tx_NOT_GENERATED' },
      'edits[0].id: no live transaction "tx_NOT_GENERATED" in profile "acme"',
    ],
    [
      'an unknown kind',
      { kind: 'remove', profile: 'acme', id: 'tx_x' },
      'edits[0].kind: expected "modify", "add" or "delete", got "remove"',
    ],
    [
      'an unknown profile',
      { kind: 'delete', profile: 'nobody', id: 'tx_x' },
      'edits[0].profile: no simulated profile "nobody"',
    ],
  ])('refuses %s at start, naming the file and the field, exit 2', async (_what, edit, message) => {
    const { file, result } = await simulatorWith(JSON.stringify([{ ...edit, at: '2026-01-01T00:00:00Z' }]));

    expect({ code: result.code, first: result.stderr.split(' (')[0]?.trimEnd() }).toEqual({
      code: 2,
      first: `error: --edits ${file}: ${message}`,
    });
  });
});

describe('pbs-export run --adjustments FILE of another profile', () => {
  it('is refused before the first request, naming --adjustments and both profiles, exit 2, no scratch folder left', async () => {
    const adjustments = join(dir, 'adjustments');
    const add = join(dir, 'add.json');
    await writeFile(
      add,
      JSON.stringify({
        id: 's1',
        kind: 'spam',
        token: 'ETHG-CLAIM',
        by: 'ann',
        at: '2026-01-01T00:00:00Z',
        why: 'spam',
      }),
    );
    const made = await run('bin/pbs-export.ts', [
      'adjustments',
      '--profile',
      'acme',
      '--dir',
      adjustments,
      '--add',
      add,
    ]);
    expect(made.code, made.stderr).toBe(0);
    const scratch = join(dir, 'tmp');
    await mkdir(scratch);

    const result = await run(
      'bin/pbs-export.ts',
      [
        'run',
        '--simulator',
        '--profile',
        'demo',
        '--period',
        '2024-06',
        '--report',
        'gains',
        '--adjustments',
        join(adjustments, 'acme', 'adjustments-v1.json'),
        '--out',
        join(dir, 'out'),
      ],
      { TMPDIR: scratch },
    );

    expect({ code: result.code, stderr: result.stderr, stdout: result.stdout }).toEqual({
      code: 2,
      stderr: `error: --adjustments: ${join(adjustments, 'acme', 'adjustments-v1.json')} holds profile acme's adjustments, and the run is of profile demo\n`,
      stdout: '',
    });
    expect((await readdir(scratch)).filter((name) => name.startsWith('pbs-export-'))).toEqual([]);
  });
});
