/**
 * Ctrl-C in a terminal under `npm run` signals the whole process group (npm, its shell, node and
 * node's children) at once: `npm run demo`, `npm run serve` and `npm run simulator` each stop
 * with a line that says so, the status a shell reports for Ctrl-C (130), and their temporary
 * folders removed, except the local S3 store's folder of `serve` once it holds closed sets.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv, startGroup } from '../support/process-group.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-ctrl-c-'));
  await mkdir(join(dir, 'tmp'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The folders under the children's temp folder whose names start with `prefix`. */
async function tempFolders(prefix: string): Promise<string[]> {
  return (await readdir(join(dir, 'tmp'))).filter((name) => name.startsWith(prefix));
}

/** serve's start takes tens of seconds on a busy machine (its modules, then the state machine). */
const SERVE_TIMEOUT = 180_000;

/** The last line of a text. */
const lastLine = (text: string) => text.trimEnd().split('\n').pop();

describe('Ctrl-C under npm run', () => {
  it('npm run demo: the run stops with its message, its scratch folder removed, status 130', async () => {
    const job = startGroup(
      'npm',
      [
        'run',
        '--silent',
        'demo',
        '--',
        '--transactions',
        '100000',
        '--format',
        'csv',
        '--out',
        join(dir, 'out'),
      ],
      childEnv(dir),
    );
    await job.printed('fetched shard');
    job.signalGroup('SIGINT');

    const ended = await job.ended;

    expect({ status: ended.status, last: lastLine(ended.stderr) }).toEqual({
      status: 130,
      last: "stopped by SIGINT: nothing was published, and the run's scratch files were removed",
    });
    expect(await tempFolders('pbs-export-')).toEqual([]);
  });

  it('npm run simulator: stops with a line that says so, status 130', async () => {
    const job = startGroup('npm', ['run', '--silent', 'simulator', '--', '--port', '0'], childEnv(dir));
    await job.printed('Stop with Ctrl+C.');
    job.signalGroup('SIGINT');

    const ended = await job.ended;

    expect({ status: ended.status, stderr: ended.stderr }).toEqual({
      status: 130,
      stderr: 'simulator stopped by SIGINT\n',
    });
  });

  it(
    "npm run serve: stops with a line that says so, the local S3 store's folder removed, status 130",
    async () => {
      const job = startGroup('npm', ['run', '--silent', 'serve', '--', '--port', '0'], childEnv(dir));
      await job.printed('Ctrl-C to stop.');
      const [store] = await tempFolders('pbs-serve-s3-');
      job.signalGroup('SIGINT');

      const ended = await job.ended;

      expect(store).toBeDefined();
      expect({ status: ended.status, last: lastLine(ended.stderr) }).toEqual({
        status: 130,
        last: `serve stopped by SIGINT: removed the local S3 store's data (${join(dir, 'tmp', store as string)})`,
      });
      expect(await tempFolders('pbs-serve-s3-')).toEqual([]);
    },
    SERVE_TIMEOUT,
  );
});

describe('serve stopped while its local S3 store holds closed sets', () => {
  it(
    'keeps the folder it says it keeps, exit 130',
    async () => {
      // node and the launcher alone (no npm in between): the exit code is serve's own.
      const job = startGroup(process.execPath, ['bin/serve.mjs', '--port', '0'], childEnv(dir));
      await job.printed('Ctrl-C to stop.');
      const endpoint = /local S3 store: (http:\/\/127\.0\.0\.1:\d+) bucket (\S+)/.exec(job.output.stdout);
      const s3 = new S3Client({
        region: 'us-east-1',
        endpoint: endpoint?.[1] as string,
        forcePathStyle: true,
        credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      });
      // A close record, where the closing commands and the portal write them.
      await s3.send(
        new PutObjectCommand({
          Bucket: endpoint?.[2] as string,
          Key: 'closes/demo/2025-10/000001.json',
          Body: '{"kind":"close"}',
        }),
      );
      s3.destroy();
      const [store] = await tempFolders('pbs-serve-s3-');
      job.signalGroup('SIGINT');

      const ended = await job.ended;

      const folder = join(dir, 'tmp', store as string);
      expect(ended.status).toBe(130);
      expect(ended.stderr).toContain(`kept the local S3 store's data in ${folder}: it holds closed sets`);
      expect(lastLine(ended.stderr)).toBe('serve stopped by SIGINT');
      expect(await tempFolders('pbs-serve-s3-')).toEqual([store]);
      expect(await readdir(join(folder, endpoint?.[2] as string, 'closes', 'demo', '2025-10'))).not.toEqual(
        [],
      );
    },
    SERVE_TIMEOUT,
  );
});
