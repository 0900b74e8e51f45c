/**
 * `pbs-export adjustments --add` killed with `kill -9` while it writes a version, as a user kills
 * it: each run in its own process, killed the instant a file of the new version appears in the
 * profile's folder (a temporary file, or the version's own name if it were written in place),
 * while its few MB are still being written. After each kill the folder must hold no version file
 * that cannot be read (the version is whole or absent), and the next `adjustments` commands must
 * work: naming the latest version, then adding one. `PBS_KILL_RUNS` runs (default 8).
 */
import { type FSWatcher, watch } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFileAdjustmentsStore, parseAdjustments } from '../../lib/adjustments/index.ts';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { isAtomicTempName } from '../../lib/storage/index.ts';
import { recordFigures } from './support/figures.ts';
import { startCli } from './support/killed-runs.ts';

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? '');
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const RUNS = envInt('PBS_KILL_RUNS', 8);
/** Adjustments each killed run adds: about 3 MB of version, so the kill lands while it is written. */
const ADDED = 20_000;
const BY = { by: 'ann', at: '2026-11-21T09:00:00Z', why: 'airdrop' };

function captureIo() {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: {},
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  return { io, output: () => `${out.join('')}${err.join('')}` };
}

/** `adjustments …` run in this process, as the next command after a kill; its exit code and output. */
async function adjustments(args: readonly string[]): Promise<{ code: number; output: string }> {
  const io = captureIo();
  const code = await main(['adjustments', ...args], io.io);
  return { code, output: io.output() };
}

/** The version files of a folder that cannot be read as a version, with why. */
async function unreadableVersions(folder: string): Promise<string[]> {
  const problems: string[] = [];
  for (const name of await readdir(folder)) {
    if (!/^adjustments-v\d+\.json$/.test(name)) continue;
    try {
      parseAdjustments(await readFile(join(folder, name)));
    } catch (error) {
      problems.push(`${name}: ${(error as Error).message}`);
    }
  }
  return problems;
}

describe('adjustments --add killed with kill -9 while writing a version', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-faults-kill-records-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it(`kills ${RUNS} writes; every version is whole or absent, and the next commands work`, {
    timeout: 600_000,
  }, async () => {
    const store = join(dir, 'store');
    const row = { killed: 0, killedWhilePublishing: 0, finishedAnyway: 0, lookedFinishedIncomplete: 0 };
    const problems: string[] = [];
    for (let k = 1; k <= RUNS; k += 1) {
      const profile = `p${k}`;
      const folder = join(store, profile);
      const spam = (id: string, token: string) => ({ ...BY, id, kind: 'spam', token });
      await createFileAdjustmentsStore(store).put(
        profile,
        {
          schema: 'pbs-export/adjustments@1',
          profile,
          version: 1,
          adjustments: [spam('s0', 'SCAM')] as never,
        },
        0,
      );
      const added = join(dir, `added-${k}.json`);
      await writeFile(
        added,
        JSON.stringify(Array.from({ length: ADDED }, (_, i) => spam(`k${k}-${i}`, `T${k}X${i}`))),
      );

      const run = startCli(['adjustments', '--profile', profile, '--dir', store, '--add', added], dir);
      // Killed the instant the new version's first file appears (inotify), while it is written.
      let watcher: FSWatcher | undefined;
      const appeared = new Promise<string>((resolve) => {
        watcher = watch(folder, (_event, name) => {
          if (name?.includes('adjustments-v2.json')) {
            run.child.kill('SIGKILL');
            resolve(name);
          }
        });
      });
      const first = await Promise.race([appeared, run.exited.then(() => null)]);
      watcher?.close();
      const exit = await run.exited;
      const label = `run ${k}`;
      if (first === null) {
        problems.push(`${label}: exited (${exit.code}) before writing: ${run.output().slice(-300)}`);
        continue;
      }
      row.killed += 1;
      const names = await readdir(folder);
      if (names.some(isAtomicTempName)) row.killedWhilePublishing += 1;
      const unreadable = await unreadableVersions(folder);
      row.lookedFinishedIncomplete += unreadable.length;
      for (const problem of unreadable) problems.push(`${label}: left ${problem}`);
      if (names.includes('adjustments-v2.json') && unreadable.length === 0) row.finishedAnyway += 1;

      const listed = await adjustments(['--profile', profile, '--dir', store]);
      if (listed.code !== 0) problems.push(`${label}: the next adjustments command: ${listed.output}`);
      const more = join(dir, `more-${k}.json`);
      await writeFile(more, JSON.stringify(spam(`m${k}`, 'FAKE')));
      const again = await adjustments(['--profile', profile, '--dir', store, '--add', more]);
      if (again.code !== 0) problems.push(`${label}: the next --add: ${again.output}`);
      if ((await unreadableVersions(folder)).length > 0)
        problems.push(`${label}: a version unreadable after`);
    }
    recordFigures('kills', 'adjustments: kill -9 while writing a version', row);

    expect(problems).toEqual([]);
    expect(row.killed).toBe(RUNS);
    // The kills must have hit writes part-way, or the test showed nothing.
    expect(row.killedWhilePublishing).toBeGreaterThan(0);
  });
});
