/**
 * A run that never talks to AWS never loads the AWS SDK (issue 30: `@aws-sdk/client-s3` alone
 * costs about 25 MB of memory; `lib/aws-sdk.ts` loads each package at its first use).
 *
 * Observed from outside: the real CLI (`bin/pbs-export.ts` under tsx) and the benchmark's child
 * (its esbuild bundle, as `npm run bench:cpu` runs it) run as processes with
 * `test/support/loads/record.mjs` preloaded, which records every module they load: each URL an ESM
 * import resolves to (a module hook) and each CommonJS module (`require.cache` at exit: the SDK's
 * packages resolve to their CommonJS builds under Node). The record of an S3 run shows that it
 * does see the SDK when it is loaded, so an empty finding is not an empty record.
 */
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildChildren } from '../../bench/children.ts';
import type { BenchTask } from '../../bench/run-child.ts';
import { profilesWithCounts, startSimulator } from '../../lib/simulator/index.ts';
import type { RunningSimulator } from '../../lib/simulator/types.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDER = join(ROOT, 'test/support/loads/record.mjs');
/** A module of the AWS SDK or of the Smithy runtime it brings in. */
const AWS_SDK = /\/node_modules\/@(aws-sdk|smithy)\//;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-lazy-sdk-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The environment of a child: no AWS settings to fall back on, the record file named. */
function childEnv(record: string, extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AWS_') && !name.startsWith('PBS_')) env[name] = value;
  }
  return {
    ...env,
    AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    PBS_RECORD_LOADS: record,
    ...extra,
  };
}

/** The distinct URLs of the record, which must exist and name modules of the project. */
async function loadedModules(record: string): Promise<string[]> {
  return [...new Set((await readFile(record, 'utf8')).split('\n').filter((line) => line !== ''))];
}

/** Runs `pbs-export` with `args` as a process, recording what it loads. */
async function cliLoads(
  name: string,
  args: readonly string[],
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stderr: string; loaded: string[] }> {
  const record = join(dir, `${name}.loads`);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', '--import', RECORDER, 'bin/pbs-export.ts', ...args],
    {
      cwd: ROOT,
      env: childEnv(record, extraEnv),
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr, loaded: await loadedModules(record) };
}

describe('the CLI (bin/pbs-export.ts as a process, embedded simulator)', () => {
  const run = ['run', '--simulator', '--profile', 'demo', '--period', '2025-01'];

  it('exports to a folder without loading any module of the AWS SDK', async () => {
    const out = join(dir, 'folder-out');
    const { code, stderr, loaded } = await cliLoads('folder', [...run, '--out', out]);

    expect({ code, stderr: stderr.replace(/^Using the embedded simulator.*\n/, '') }).toEqual({
      code: 0,
      stderr: '',
    });
    const written = await readdir(out, { recursive: true });
    expect(written).toContainEqual(expect.stringMatching(/manifest\.json$/));
    // The record is that of the run: its own modules and the packages it writes with.
    expect(loaded).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/lib\/cli\/main\.ts$/),
        expect.stringMatching(/\/lib\/storage\/local-sink\.ts$/),
        expect.stringMatching(/\/node_modules\/csv-stringify\//),
      ]),
    );
    expect(loaded.filter((url) => AWS_SDK.test(url))).toEqual([]);
  });

  describe('to S3 (s3rver on loopback)', () => {
    let s3: S3TestServer;
    beforeAll(async () => {
      s3 = await startS3rver();
    });
    afterAll(async () => {
      await s3.close();
    });

    it('loads the SDK, and the record shows it', async () => {
      const { code, loaded } = await cliLoads(
        's3',
        [...run, '--s3', `s3://${s3.bucket}/exports`, '--s3-endpoint', s3.endpoint],
        { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
      );

      expect(code).toBe(0);
      expect(loaded).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/\/node_modules\/@aws-sdk\/client-s3\//),
          expect.stringMatching(/\/node_modules\/@aws-sdk\/lib-storage\//),
          expect.stringMatching(/\/node_modules\/@aws-sdk\/s3-request-presigner\//),
        ]),
      );
    });
  });
});

describe("the benchmark's child (bench/run-child.ts, bundled as bench:cpu runs it)", () => {
  let bundles: string;
  let simulator: RunningSimulator;
  beforeAll(async () => {
    // Inside the checkout, as `.bench/` is: the bundle imports its packages from node_modules.
    await mkdir(join(ROOT, '.bench'), { recursive: true });
    bundles = await mkdtemp(join(ROOT, '.bench', 'lazy-sdk-test-'));
    await buildChildren(bundles);
    simulator = await startSimulator({ profiles: profilesWithCounts({ demo: 300 }) });
  });
  afterAll(async () => {
    await simulator?.close();
    if (bundles !== undefined) await rm(bundles, { recursive: true, force: true });
  });

  it('runs its export-csv mode (an export to a folder) without loading any module of the AWS SDK', async () => {
    const profile = simulator.profiles.find((candidate) => candidate.name === 'demo');
    if (profile === undefined) throw new Error('the simulator has no demo profile');
    const task: BenchTask = {
      mode: 'export-csv',
      url: simulator.url,
      profile,
      rows: 300,
      period: { from: '2023-01-01', to: '2025-12-31' },
      concurrency: 2,
      pageSize: 1000,
    };
    const record = join(dir, 'bench-child.loads');
    const child = fork(join(bundles, 'run-child.mjs'), [JSON.stringify(task)], {
      execArgv: ['--import', RECORDER],
      env: childEnv(record),
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    const [figures] = (await once(child, 'message')) as [{ rows: number }];
    const [code] = (await once(child, 'exit')) as [number | null];
    const loaded = await loadedModules(record);

    expect({ code, exported: figures.rows > 0 }).toEqual({ code: 0, exported: true });
    expect(loaded).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/\/run-child\.mjs$/),
        expect.stringMatching(/\/node_modules\/csv-stringify\//),
      ]),
    );
    expect(loaded.filter((url) => AWS_SDK.test(url))).toEqual([]);
  });
});
