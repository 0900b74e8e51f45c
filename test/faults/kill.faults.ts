/**
 * CLI runs killed at seeded random instants, in both sinks (a folder, and s3rver on loopback), as
 * a user kills them: `kill -9`, Ctrl-C (SIGINT) and SIGTERM sent to the process. After each kill a
 * reader of the folder or bucket must never find a set that looks finished (a manifest) while
 * incomplete; a run stopped by SIGINT/SIGTERM must exit 130/143 having removed its scratch folder
 * and what it staged; and once the next run has run, no scratch folder (raw portfolio data in the
 * temp folder), no run with files at final names but no manifest (in S3, a kill -9 during the
 * copy phase leaves one; the next run completes it) and, in the folder sink, no staging folder
 * may be left. Half the instants fall anywhere in the run, half in its publishing phase (measured
 * on a clean run first), where sets are staged and put in place; in S3 one more kill -9 is made to
 * land in the copy phase. `PBS_KILL_RUNS` runs per sink (default 8) from `PBS_FAULT_SEED`.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Rng } from '../../lib/simulator/random.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';
import { recordFigures } from './support/figures.ts';
import { isCopyInto, startHoldingProxy } from './support/holding-proxy.ts';
import {
  type Findings,
  inspectBucket,
  inspectFolder,
  scratchFolders,
  startCliRun,
} from './support/killed-runs.ts';

function envInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? '');
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

const RUNS = envInt('PBS_KILL_RUNS', 8);
const SEED = envInt('PBS_FAULT_SEED', 1);
const PERIOD_PATH = 'reports/demo/2025';
const STARTED = /Using the embedded simulator/;
const SIGNALS = ['SIGKILL', 'SIGKILL', 'SIGINT', 'SIGTERM'] as const;
const STOP_CODES: Record<string, number> = { SIGINT: 130, SIGTERM: 143 };

type SinkKind = 'folder' | 's3';

describe.each<SinkKind>(['folder', 's3'])('CLI runs killed at seeded random instants (%s sink)', (kind) => {
  let dir: string;
  let tmpDir: string;
  let s3: S3TestServer | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-faults-kill-'));
    tmpDir = join(dir, 'tmp');
    await mkdir(tmpDir);
    if (kind === 's3') s3 = await startS3rver();
  });
  afterAll(async () => {
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The command line of a run; in S3, `endpoint` (default: s3rver itself) may be a proxy in front of it. */
  const args = (endpoint = s3?.endpoint) => [
    '--simulator',
    '--profile',
    'demo',
    '--period',
    '2025',
    ...(s3 === undefined
      ? ['--out', join(dir, 'out')]
      : ['--s3', `s3://${s3.bucket}/exports`, '--s3-endpoint', endpoint ?? s3.endpoint]),
  ];
  const env = (): Record<string, string> =>
    s3 === undefined ? {} : { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
  const inspect = (): Promise<Findings> =>
    s3 === undefined
      ? inspectFolder(join(dir, 'out', ...PERIOD_PATH.split('/')))
      : inspectBucket(s3.client, s3.bucket, 'exports', PERIOD_PATH);

  it(`kills ${RUNS} runs; no set looks finished while incomplete, and the next run leaves no scratch folder`, {
    timeout: 600_000,
  }, async () => {
    // A clean run first: it must finish, and says when the run starts and when it publishes.
    const clean = startCliRun(args(), tmpDir, env());
    const cleanExit = await clean.exited;
    expect(cleanExit.code, clean.output()).toBe(0);
    const begun = await clean.printed(STARTED);
    const publishing = await clean.printed(/^written /m);
    const runMs = cleanExit.ms - begun;
    const publishMs = cleanExit.ms - publishing;

    const rng = new Rng(Math.imul(SEED, 0x9e3779b1) ^ (kind === 's3' ? 0x5353 : 0xf01d));
    const problems: string[] = [];
    const emptyRow = () => ({
      killed: 0,
      killedWhilePublishing: 0,
      stopped: 0,
      finishedAnyway: 0,
      lookedFinishedIncomplete: 0,
      filesWithoutManifest: 0,
    });
    const rows = { SIGKILL: emptyRow(), 'SIGINT/SIGTERM': emptyRow() };
    const judged = new Set<string>();
    /** Runs that a reader found with files at final names and no manifest at some point. */
    const everWithoutManifest = new Set<string>();
    /** Counts and checks the run folders a kill left in a new state. */
    const judge = (label: string, row: ReturnType<typeof emptyRow>, after: Findings) => {
      for (const [runId, state] of after.runs) {
        if (judged.has(`${runId}:${state}`)) continue;
        judged.add(`${runId}:${state}`);
        if (state === 'lookedFinishedIncomplete') {
          row.lookedFinishedIncomplete += 1;
          problems.push(`${label}: ${runId} has a manifest but is not complete`);
        } else if (state === 'noManifest') {
          row.filesWithoutManifest += 1;
          everWithoutManifest.add(runId);
          // S3 has no multi-object rename: only a run killed while copying its complete staged set
          // into place (its commit marker written) may leave some of its files at their final
          // names, never its manifest; the next run completes it.
          if (kind === 'folder' || !after.stagedComplete.has(runId) || !after.marked.has(runId)) {
            problems.push(
              `${label}: ${runId} has files at final names without a complete, marked set behind them`,
            );
          }
        }
      }
    };
    let before = await inspect();
    for (let k = 1; k <= RUNS; k += 1) {
      const signal = rng.pick(SIGNALS);
      const row = rows[signal === 'SIGKILL' ? 'SIGKILL' : 'SIGINT/SIGTERM'];
      // Half anywhere in the run, half in (or just before) its publishing phase.
      const delay = rng.chance(0.5)
        ? rng.next() * runMs * 1.05
        : runMs - publishMs * 1.5 + rng.next() * publishMs * 1.6;
      const run = startCliRun(args(), tmpDir, env());
      const label = `run ${k} (${signal} ${Math.round(delay)} ms after start, seed ${SEED})`;
      const started = await Promise.race([run.printed(STARTED), run.exited.then(() => null)]);
      if (started === null) {
        problems.push(`${label}: exited before starting: ${run.output().slice(0, 300)}`);
        continue;
      }
      await sleep(Math.max(0, delay));
      run.child.kill(signal);
      row.killed += 1;
      const exit = await run.exited;
      const pid = run.child.pid as number;
      const after = await inspect();

      // A kill -9 that left a staging folder or staged keys came while the set was being published.
      if (signal === 'SIGKILL' && after.staging.some((name) => !before.staging.includes(name))) {
        row.killedWhilePublishing += 1;
      }
      if (exit.code === 0) row.finishedAnyway += 1;
      else if (signal !== 'SIGKILL' && exit.code === STOP_CODES[signal]) row.stopped += 1;
      else if (exit.signal !== signal) {
        problems.push(`${label}: exited with ${exit.code ?? exit.signal}: ${run.output().slice(-300)}`);
      }
      judge(label, row, after);
      if (exit.code === STOP_CODES[signal]) {
        const scratch = await scratchFolders(tmpDir, pid);
        if (scratch.length > 0) problems.push(`${label}: stopped, but left its scratch folder ${scratch}`);
        const staged = after.staging.filter((name) => !before.staging.includes(name));
        if (staged.length > 0) problems.push(`${label}: stopped, but left what it staged: ${staged}`);
      }
      before = after;
    }

    if (s3 !== undefined) {
      // The S3 copy phase is one round of server-side copies, rarely hit at random: one kill -9
      // made certain to land in it, the manifest's copy into place held by a proxy in front of
      // s3rver (the other files' copies done) while the run is killed.
      const row = emptyRow();
      const label = 'kill -9 while copying (manifest copy held)';
      const proxy = await startHoldingProxy(s3.endpoint, (incoming) => isCopyInto(incoming, 'manifest.json'));
      try {
        const run = startCliRun(args(proxy.endpoint), tmpDir, env());
        const held = await Promise.race([proxy.held, run.exited.then(() => null)]);
        if (held === null) {
          problems.push(`${label}: the run exited before copying its manifest: ${run.output().slice(-300)}`);
        } else {
          run.child.kill('SIGKILL');
          await run.exited;
          row.killed += 1;
          const after = await inspect();
          if (after.staging.some((name) => !before.staging.includes(name))) row.killedWhilePublishing += 1;
          judge(label, row, after);
          if (row.filesWithoutManifest !== 1) {
            problems.push(
              `${label}: expected one run with files and no manifest, found ${row.filesWithoutManifest}`,
            );
          }
          before = after;
        }
      } finally {
        await proxy.close();
      }
      recordFigures('kills', `${kind}: ${label}`, row);
    }

    // The next run: finishes, completes the sets killed while copying (S3), and removes the
    // scratch (and staging) folders the killed runs left.
    const next = startCliRun(args(), tmpDir, env());
    const nextExit = await next.exited;
    if (nextExit.code !== 0)
      problems.push(`the next run exited with ${nextExit.code}: ${next.output().slice(-300)}`);
    const scratchLeft = (await scratchFolders(tmpDir)).length;
    const final = await inspect();
    // In a bucket, sets staged by runs killed with -9 before their copy phase stay for the
    // lifecycle rule (nothing of them is at a final key).
    const stagingLeft = final.staging.length;

    recordFigures('kills', `${kind}: kill -9`, rows.SIGKILL);
    recordFigures('kills', `${kind}: SIGINT/SIGTERM`, rows['SIGINT/SIGTERM']);
    // What a reader finds once the next run has run: no run with files but no manifest.
    const withoutManifest = [...final.runs]
      .filter(([, state]) => state === 'noManifest')
      .map(([runId]) => runId);
    const completedLater = [...everWithoutManifest].filter((runId) => final.runs.get(runId) === 'complete');
    recordFigures('kills', `${kind}: after the next run`, {
      completedLater: completedLater.length,
      withoutManifestAfterNextRun: withoutManifest.length,
      scratchLeft,
      stagingLeft,
    });

    expect(problems).toEqual([]);
    expect(withoutManifest).toEqual([]);
    expect(completedLater).toEqual([...everWithoutManifest]);
    expect(scratchLeft).toBe(0);
    if (kind === 'folder') expect(stagingLeft).toBe(0);
    expect(rows.SIGKILL.killed + rows['SIGINT/SIGTERM'].killed).toBe(RUNS);
  });
});
