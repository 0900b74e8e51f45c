/**
 * The operator's and the accountant's first hour (issue 29): a bad destination fails before the
 * first request, `render` applies what only changes presentation and refuses the rest by name,
 * and every message speaks in flags. The CLI runs as a process (`bin/pbs-export.ts` under tsx);
 * the real service is a loopback server that counts the requests it gets.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The environment of a child: no AWS credentials, files or instance metadata to fall back on (so
 * a missing credential is missing, and no request leaves the machine), no service configured.
 */
function baseEnv(home: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('AWS_') && !name.startsWith('PBS_')) env[name] = value;
  }
  return {
    ...env,
    HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
  };
}

/** Runs `pbs-export` with `args` and `env` as a process, to its exit. */
async function cli(args: readonly string[], env: Record<string, string>): Promise<Finished> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/pbs-export.ts', ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

/** A stand-in for the real service on loopback that answers 500 to everything and counts requests. */
async function countingService(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server: Server = createServer((_request, response) => {
    requests += 1;
    response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"counting only"}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

let dir: string;
let env: Record<string, string>;
let service: Awaited<ReturnType<typeof countingService>>;
/** The environment of a run against the counting service. */
let serviceEnv: Record<string, string>;
const realRun = ['run', '--profile', 'acme', '--period', '2024-06'];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-first-hour-'));
  env = baseEnv(dir);
  service = await countingService();
  serviceEnv = { ...env, PBS_BASE_URL: service.url, PBS_API_KEY: 'key', PBS_API_SECRET: 'secret' };
});
afterEach(async () => {
  await service.close();
  await rm(dir, { recursive: true, force: true });
});

describe('a destination that cannot take the files fails before the first request, exit 2 naming the flag', () => {
  it('--out naming a file', async () => {
    const file = join(dir, 'a-file');
    await writeFile(file, 'not a folder');

    const result = await cli([...realRun, '--out', file], serviceEnv);

    expect({ code: result.code, requests: service.requests(), stderr: result.stderr }).toEqual({
      code: 2,
      requests: 0,
      stderr: `error: --out: ${file} is a file, not a folder\n`,
    });
  });

  it('--out naming a folder no file can be written into (/proc), and a folder inside a file', async () => {
    const readOnly = await cli([...realRun, '--out', '/proc'], serviceEnv);
    const underFile = join(dir, 'a-file');
    await writeFile(underFile, '');
    const inside = await cli([...realRun, '--out', join(underFile, 'out')], serviceEnv);

    expect({ codes: [readOnly.code, inside.code], requests: service.requests() }).toEqual({
      codes: [2, 2],
      requests: 0,
    });
    expect(readOnly.stderr).toMatch(/^error: --out: cannot write into \/proc: /);
    expect(inside.stderr).toMatch(/^error: --out: cannot create .*: .*a-file is a file\n$/);
  });

  it('creates nothing when it checks a folder that does not exist yet and the run then fails', async () => {
    const out = join(dir, 'new', 'folder');

    const result = await cli([...realRun, '--out', out], serviceEnv);

    // The counting service fails the run: the check's folders and probe file are gone again.
    expect({ failed: result.code !== 0, requests: service.requests() > 0 }).toEqual({
      failed: true,
      requests: true,
    });
    expect(await readdir(dir)).toEqual([]);
  });

  describe('--s3 (s3rver on loopback)', () => {
    let s3: S3TestServer;
    beforeEach(async () => {
      s3 = await startS3rver();
    });
    afterEach(async () => {
      await s3.close();
    });
    const credentials = { AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };

    it('without AWS credentials: one line naming what to set, and no "killed run" warning', async () => {
      const result = await cli(
        [...realRun, '--s3', `s3://${s3.bucket}/exports`, '--s3-endpoint', s3.endpoint],
        serviceEnv,
      );

      expect({ code: result.code, requests: service.requests() }).toEqual({ code: 2, requests: 0 });
      expect(result.stderr).toMatch(
        /^error: --s3: no AWS credentials found: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/m,
      );
      expect(result.stderr).not.toMatch(/killed run|Error:/);
    });

    it('naming a bucket that does not exist', async () => {
      const result = await cli([...realRun, '--s3', 's3://no-such-bucket/x', '--s3-endpoint', s3.endpoint], {
        ...serviceEnv,
        ...credentials,
      });

      expect({ code: result.code, requests: service.requests() }).toEqual({ code: 2, requests: 0 });
      expect(result.stderr).toMatch(
        /^error: --s3: the bucket of s3:\/\/no-such-bucket\/x\/ does not exist$/m,
      );
    });

    it('says a failed look for killed runs\' sets is that, not a set "left by a killed run"', async () => {
      // A store that refuses listings (the credentials may write, not list): a proxy to s3rver.
      const proxy = createServer((request, response) => {
        if (request.method === 'GET' && (request.url ?? '').includes('list-type=2')) {
          response.writeHead(403, { 'content-type': 'application/xml' });
          response.end('<Error><Code>AccessDenied</Code><Message>no listing</Message></Error>');
          return;
        }
        const forwarded = httpRequest(`${s3.endpoint}${request.url}`, {
          method: request.method,
          headers: request.headers,
        });
        forwarded.on('response', (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(response);
        });
        request.pipe(forwarded);
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      const endpoint = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
      try {
        const result = await cli(
          [
            'run',
            '--simulator',
            '--period',
            '2024-06',
            '--format',
            'csv',
            '--s3',
            `s3://${s3.bucket}/exports`,
            '--s3-endpoint',
            endpoint,
          ],
          { ...env, ...credentials },
        );

        expect(result.stderr).toContain(
          `warning: could not look for sets that killed runs left in s3://${s3.bucket}/exports/_staging/: `,
        );
        expect(result.stderr).not.toContain('left by a killed run');
      } finally {
        proxy.closeAllConnections();
        await new Promise((resolve) => proxy.close(resolve));
      }
    });

    it('leaves no probe object behind in a bucket that takes the files, and says once that Node 22 is recommended', async () => {
      const result = await cli(
        [
          'run',
          '--simulator',
          '--period',
          '2024-06',
          '--format',
          'csv',
          '--s3',
          `s3://${s3.bucket}/exports`,
          '--s3-endpoint',
          s3.endpoint,
        ],
        { ...env, ...credentials },
      );
      const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));
      const keys = (listed.Contents ?? []).map((object) => object.Key ?? '');

      expect(result.code).toBe(0);
      expect(keys.filter((key) => !key.startsWith('exports/reports/demo/2024-06/'))).toEqual([]);
      // On Node 20 the AWS SDK's nine-line notice is replaced by one line of the CLI's, once.
      expect({
        sdkNotice: result.stderr.includes('NodeVersionSupportWarning'),
        notices: result.stderr.match(/Node 22 is recommended/g)?.length ?? 0,
      }).toEqual({ sdkNotice: false, notices: Number(process.versions.node.split('.')[0]) < 22 ? 1 : 0 });
    });
  });
});

describe('render applies the flags that change only presentation, and refuses the others by name', () => {
  /** A run's snapshot, made once for the tests below (each renders it into its own folder). */
  let snapshot: string;
  let snapshotDir: string;
  beforeAll(async () => {
    snapshotDir = await mkdtemp(join(tmpdir(), 'pbs-first-hour-snapshot-'));
    const result = await cli(
      ['run', '--simulator', '--period', '2024-06', '--format', 'csv', '--out', snapshotDir],
      baseEnv(snapshotDir),
    );
    expect(result.code, result.stderr).toBe(0);
    snapshot = (await filesUnder(snapshotDir)).find((file) => file.endsWith('_snapshot.ndjson.gz')) as string;
  });
  afterAll(async () => {
    await rm(snapshotDir, { recursive: true, force: true });
  });

  it('writes the CSV dialect and the reports asked for: the files a run with those flags writes', async () => {
    const flags = ['--delimiter', ';', '--decimal-separator', ',', '--report', 'transactions'];
    // The expectation: a run of the same simulated data with the same flags.
    const direct = await cli(
      [
        'run',
        '--simulator',
        '--period',
        '2024-06',
        '--format',
        'csv',
        ...flags,
        '--out',
        join(dir, 'direct'),
      ],
      env,
    );
    const rendered = await cli(
      ['render', '--snapshot', snapshot, ...flags, '--out', join(dir, 'rendered')],
      env,
    );
    const csvFiles = async (folder: string) =>
      (await filesUnder(join(dir, folder))).filter((file) => file.endsWith('.csv'));
    const [expected] = await csvFiles('direct');
    const renderedCsv = await csvFiles('rendered');

    expect({
      direct: direct.code,
      rendered: rendered.code,
      names: renderedCsv.map((f) => f.split('/').pop()),
    }).toEqual({
      direct: 0,
      rendered: 0,
      names: ['demo_2024-06_transactions.csv'],
    });
    const text = await readFile(renderedCsv[0] as string, 'utf8');
    expect(text).toBe(await readFile(expected as string, 'utf8'));
    expect(text.split('\n')[1]).toMatch(/;-?\d+,\d+;/);
  });

  it.each([
    [['--period', '2024-07'], /^error: --period: render cannot apply it: .*needs a new fetch/],
    [['--token', 'ETH'], /^error: --token: render cannot apply it: .*needs a new fetch/],
    [
      ['--report', 'gains'],
      /^error: --report: gains: render cannot add it: .*run an export with --report gains/,
    ],
    [['--report', 'changes'], /^error: --report: changes: render cannot add it/],
    [['--tax-rules', 'uk'], /^error: --tax-rules: only allowed when --report includes "gains"/],
  ])('refuses %j on a snapshot without it, exit 2, writing nothing', async (flags, message) => {
    const result = await cli(
      ['render', '--snapshot', snapshot, ...flags, '--out', join(dir, 'rendered')],
      env,
    );

    expect({ code: result.code, files: await filesUnder(join(dir, 'rendered')).catch(() => []) }).toEqual({
      code: 2,
      files: [],
    });
    expect(result.stderr).toMatch(message);
  });
});

describe('messages in the words of the command line', () => {
  it('names the flags of an invalid request, the value at fault of a repeated one, never a field path', async () => {
    const result = await cli(
      ['run', '--simulator', '--period', '2024', '--report', 'transactions,foo', '--time-zone', 'Mars/Base'],
      env,
    );

    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^error: --time-zone: expected an IANA time zone/);
    expect(result.stderr).toContain('--report "foo": ');
    expect(result.stderr).not.toMatch(/reports\[|timeZone|filters\./);
  });

  it('says a missing --period is required', async () => {
    const result = await cli(['run', '--simulator', '--out', join(dir, 'out')], env);

    expect({ code: result.code, first: result.stderr.split('\n')[0] }).toEqual({
      code: 2,
      first: expect.stringMatching(/^error: --period: is required/),
    });
  });

  it('suggests the closest flag for a misspelt one, in two lines instead of the whole usage', async () => {
    const result = await cli(['run', '--profil', 'acme', '--period', '2024'], env);

    expect({ code: result.code, lines: result.stderr.trimEnd().split('\n') }).toEqual({
      code: 2,
      lines: [
        'error: --profil: unknown flag (did you mean --profile?); pbs-export help lists the flags',
        'Run "pbs-export help" for the usage.',
      ],
    });
  });

  it('prints its version with --version', async () => {
    const { version } = JSON.parse(await readFile('package.json', 'utf8')) as { version: string };

    const result = await cli(['--version'], env);

    expect({ code: result.code, stdout: result.stdout }).toEqual({
      code: 0,
      stdout: `pbs-export ${version}\n`,
    });
  });

  it('names a missing snapshot in one line, exit 2, without an Error: prefix or a stack', async () => {
    const missing = join(dir, 'missing.ndjson.gz');

    const result = await cli(['render', '--snapshot', missing, '--out', join(dir, 'out')], env);

    expect({ code: result.code, stderr: result.stderr }).toEqual({
      code: 2,
      stderr: `error: --snapshot: cannot read ${missing}: no such file\n`,
    });
  });

  it('names every missing credential at once', async () => {
    const result = await cli(realRun, { ...env, PBS_BASE_URL: service.url });

    expect({ code: result.code, first: result.stderr.split('\n')[0] }).toEqual({
      code: 2,
      first: expect.stringMatching(/^error: PBS_API_KEY, PBS_API_SECRET: are required/),
    });
  });
});
