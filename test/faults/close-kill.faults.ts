/**
 * A close killed with SIGKILL while writing its record (issue 37, item 10), in a folder: the
 * `close` process is killed at the instant its record file exists and holds no byte yet (see
 * support/kill-on-write.ts). A reader must not trip on what it left: `close` run again closes
 * the period and `check-closes` checks it. A record an earlier version left empty under its final
 * name stops both, with an error that names the file and says what to do.
 */
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { startCliRun } from './support/killed-runs.ts';

const PRELOAD = join(import.meta.dirname, 'support', 'kill-on-write.ts');

/** Runs the CLI in this process; returns its exit code and what it printed. */
async function cli(...argv: string[]): Promise<{ code: number; output: string }> {
  const out: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => out.push(text) },
    env: {},
    now: () => new Date(),
  };
  const code = await main(argv, io);
  return { code, output: out.join('') };
}

describe('a close killed while writing its record (folder)', () => {
  let dir: string;
  let books: string;
  let runId: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-faults-close-kill-'));
    books = join(dir, 'books');
    await mkdir(join(dir, 'tmp'));
    const exported = await cli(
      'run',
      '--simulator',
      '--profile',
      'acme',
      '--period',
      '2025-10',
      '--out',
      books,
    );
    expect(exported.code, exported.output).toBe(0);
    runId = (await readdir(join(books, 'reports/acme/2025-10')))[0] as string;
  }, 120_000);
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const closeArgs = () => [
    '--profile',
    'acme',
    '--period',
    '2025-10',
    '--run',
    runId,
    '--by',
    'ann',
    '--out',
    books,
  ];
  const period = () => join(books, 'closes/acme/2025-10');

  it('leaves nothing that stops close or check-closes: run again, they close and check the period', async () => {
    const killed = startCliRun(
      closeArgs(),
      join(dir, 'tmp'),
      { PBS_TEST_KILL_WRITE_UNDER: join(books, 'closes') },
      {
        command: 'close',
        preload: PRELOAD,
      },
    );
    const exit = await killed.exited;
    expect(exit.signal, killed.output()).toBe('SIGKILL');
    // It was killed writing: something of the record is there (what depends on how it writes).
    expect(await readdir(period())).toHaveLength(1);

    const closed = await cli('close', ...closeArgs());
    const checked = await cli('check-closes', '--simulator', '--profile', 'acme', '--out', books);

    expect([closed.code, closed.output]).toEqual([0, expect.stringMatching(/^Closed acme 2025-10 /)]);
    expect([checked.code, checked.output]).toEqual([
      0,
      expect.stringContaining('1 closed period checked: no change\n'),
    ]);
  }, 120_000);

  it('names an empty record an earlier version left and says what to do, and works once it is moved aside', async () => {
    // What a version that wrote records in place left when killed: the final name, no byte.
    const empty = join(period(), '20251103T091500000Z-reopen-0a1b2c.json');
    await writeFile(empty, '');

    const stopped = await cli('check-closes', '--simulator', '--profile', 'acme', '--out', books);

    expect(stopped.code).toBe(1);
    expect(stopped.output).toContain(empty);
    expect(stopped.output).toMatch(/move the file out of closes\/ and run that close or reopen again/);
    await rename(empty, join(dir, 'moved-aside.json'));
    const checked = await cli('check-closes', '--simulator', '--profile', 'acme', '--out', books);
    expect([checked.code, checked.output]).toEqual([
      0,
      expect.stringContaining('1 closed period checked: no change\n'),
    ]);
  }, 120_000);
});
