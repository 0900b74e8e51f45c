import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type StopSignal, StopSignalReceived } from '../../lib/cli/errors.ts';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { currentProcessOwner } from '../../lib/storage/owner.ts';
import { createS3Sink } from '../../lib/storage/s3-sink.ts';
import { failCommands, type S3TestServer, startS3rver } from '../support/s3.ts';

function captureIo(env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const io: CliIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    now: () => new Date('2026-11-22T10:00:00.000Z'),
  };
  return { io, stdout: () => out.join(''), stderr: () => err.join('') };
}

async function filesUnder(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** Io whose signal is aborted by `signal` when stdout first gets a line `when` matches. */
function stoppingIo(signal: StopSignal, when: RegExp) {
  const captured = captureIo();
  const controller = new AbortController();
  const write = captured.io.stdout.write;
  captured.io.stdout = {
    write(text: string) {
      if (when.test(text) && !controller.signal.aborted) controller.abort(new StopSignalReceived(signal));
      return write(text);
    },
  };
  captured.io.signal = controller.signal;
  return captured;
}

const sha256 = async (path: string) =>
  createHash('sha256')
    .update(await readFile(path))
    .digest('hex');

describe('pbs-export CLI', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-cli-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 0 after publishing every file of a run on the embedded simulator', async () => {
    const { io, stdout } = captureIo();
    const code = await main(['run', '--profile', 'acme', '--period', '2024-06', '--out', dir], io);
    const files = await filesUnder(dir);
    expect({
      code,
      manifest: files.some((f) => f.endsWith('manifest.json')),
      xlsx: files.some((f) => f.endsWith('.xlsx')),
    }).toEqual({
      code: 0,
      manifest: true,
      xlsx: true,
    });
    expect(stdout()).toMatch(/Export .* finished: 2024-06 in UTC/);
  });

  it('exits 2 naming the field of an invalid request, and writes nothing', async () => {
    const { io, stderr } = captureIo();
    const code = await main(['run', '--period', '2024-13', '--out', dir], io);
    expect({ code, files: await filesUnder(dir) }).toEqual({ code: 2, files: [] });
    expect(stderr()).toMatch(/^error: --period "2024-13": month 13 does not exist/);
  });

  it('exits 2 naming the profile the simulator does not have', async () => {
    const { io, stderr } = captureIo();
    expect(await main(['run', '--profile', 'nobody', '--period', '2024', '--out', dir], io)).toBe(2);
    expect(stderr()).toContain('--profile: the embedded simulator has no profile "nobody"');
  });

  it('exits 2 with the missing setting named when the real service is not fully configured', async () => {
    const { io, stderr } = captureIo({ PBS_BASE_URL: 'http://127.0.0.1:9', PBS_API_KEY: 'k' });
    expect(await main(['run', '--profile', 'acme', '--period', '2024', '--out', dir], io)).toBe(2);
    expect(stderr()).toContain('PBS_API_SECRET: is required');
  });

  it('exits 2 naming --profile when it is left out against the real service, so no file is named demo', async () => {
    const { io, stderr } = captureIo({
      PBS_BASE_URL: 'http://127.0.0.1:9',
      PBS_API_KEY: 'k',
      PBS_API_SECRET: 's',
    });
    const code = await main(['run', '--period', '2024', '--out', dir], io);
    expect({ code, files: await filesUnder(dir) }).toEqual({ code: 2, files: [] });
    expect(stderr()).toMatch(/^error: --profile: is required against the real service/);
  });

  it('exits 2 naming --config when the config file cannot be read', async () => {
    const { io, stderr } = captureIo();
    const code = await main(
      ['run', '--config', join(dir, 'missing.json'), '--profile', 'acme', '--period', '2024', '--out', dir],
      io,
    );
    expect({ code, files: await filesUnder(dir) }).toEqual({ code: 2, files: [] });
    expect(stderr()).toMatch(/^error: --config: cannot read config file /);
  });

  it('prints control characters of a hostile argument escaped, so they cannot drive the terminal', async () => {
    const { io, stderr } = captureIo();
    expect(await main(['run', '--col\u001b]0;owned\u0007our'], io)).toBe(2);
    const controls = [...stderr()].filter((c) => c.charCodeAt(0) < 32 && c !== '\n' && c !== '\t');
    expect({ controls, line: stderr().split('\n')[0] }).toEqual({
      controls: [],
      line: expect.stringContaining('--col\\u001b]0;owned\\u0007our'),
    });
  });

  it('exits 130 when SIGINT stops the run mid-fetch, saying nothing was published, and leaves no file', async () => {
    const { io, stderr } = stoppingIo('SIGINT', /^fetched shard/);

    const code = await main(['run', '--profile', 'acme', '--period', '2024', '--out', dir], io);

    expect({ code, files: await filesUnder(dir) }).toEqual({ code: 130, files: [] });
    expect(stderr()).toContain('stopped by SIGINT: nothing was published');
  });

  it('exits 143 when SIGTERM stops the run while it writes its files, and leaves no file', async () => {
    const { io, stderr } = stoppingIo('SIGTERM', /^written /);

    const code = await main(['run', '--profile', 'acme', '--period', '2024', '--out', dir], io);

    expect({ code, files: await filesUnder(dir) }).toEqual({ code: 143, files: [] });
    expect(stderr()).toContain('stopped by SIGTERM');
  });

  it('rebuilds byte-identical reports from a snapshot without calling the service', async () => {
    const first = captureIo();
    await main(
      ['run', '--profile', 'acme', '--period', '2024-06', '--format', 'csv', '--out', join(dir, 'a')],
      first.io,
    );
    const original = await filesUnder(join(dir, 'a'));
    const snapshot = original.find((f) => f.endsWith('_snapshot.ndjson.gz')) as string;
    const second = captureIo();
    const code = await main(['render', '--snapshot', snapshot, '--out', join(dir, 'b')], second.io);
    const rebuilt = await filesUnder(join(dir, 'b'));
    const csvOf = (files: string[]) => files.find((f) => f.endsWith('_transactions.csv')) as string;
    expect(code).toBe(0);
    expect(await sha256(csvOf(rebuilt))).toBe(await sha256(csvOf(original)));
  });
});

describe('pbs-export CLI with --s3 (s3rver on loopback)', () => {
  let s3: S3TestServer;
  const saved = { ...process.env };
  beforeEach(async () => {
    s3 = await startS3rver();
    process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
    process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  });
  afterEach(async () => {
    process.env = { ...saved };
    await s3.close();
  });

  it('prints a presigned download link per file that downloads that file', async () => {
    const { io, stdout } = captureIo();
    await main(
      [
        'run',
        '--profile',
        'acme',
        '--period',
        '2024-06',
        '--format',
        'csv',
        '--s3',
        `s3://${s3.bucket}/x`,
        '--s3-endpoint',
        s3.endpoint,
      ],
      io,
    );
    const link = /acme_2024-06_transactions\.csv\n\s+(http\S+)/.exec(stdout())?.[1] as string;
    const response = await fetch(link);
    expect({
      status: response.status,
      disposition: response.headers.get('content-disposition'),
      header: new TextDecoder('utf-8', { ignoreBOM: true }).decode(await response.arrayBuffer()).slice(0, 4),
    }).toEqual({
      status: 200,
      disposition: expect.stringContaining('filename="acme_2024-06_transactions.csv"'),
      header: '\ufeffid,',
    });
  });

  it('leaves no object in the bucket, staged ones included, when SIGTERM stops the run while it writes', async () => {
    const { io } = stoppingIo('SIGTERM', /^written /);
    const s3Args = ['--s3', `s3://${s3.bucket}/exports`, '--s3-endpoint', s3.endpoint];

    const code = await main(['run', '--profile', 'acme', '--period', '2024', ...s3Args], io);
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket }));

    expect({ code, keys: listed.Contents ?? [] }).toEqual({ code: 143, keys: [] });
  });

  it('completes a set that a killed run of this host left half copied into place, and says so', async () => {
    // A run killed while copying its complete set into place: one file at its final key, no
    // manifest, the staged set with its commit marker. Its pid is a real process that has exited.
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    const client = s3.createClient();
    let copies = 0;
    failCommands(
      client,
      (command) => command === 'CopyObjectCommand' && ++copies > 1,
      new Error('killed while copying'),
    );
    const killed = createS3Sink({
      client,
      bucket: s3.bucket,
      prefix: 'exports',
      owner: { ...currentProcessOwner(), pid: gone.pid as number },
    });
    const set = await killed.openSet('reports/acme/2024-05/20261101T000000Z-dead01');
    for (const [name, content] of [
      ['acme_2024-05_transactions.csv', 'id\n'],
      ['manifest.json', '{}'],
    ] as const) {
      const object = set.create(name, 'text/plain');
      object.stream.end(content);
      await object.done();
    }
    await set.commit().catch(() => {});
    const { io, stderr } = captureIo();

    const code = await main(
      [
        'run',
        '--profile',
        'acme',
        '--period',
        '2024-06',
        '--format',
        'csv',
        '--s3',
        `s3://${s3.bucket}/exports`,
        '--s3-endpoint',
        s3.endpoint,
      ],
      io,
    );
    const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'exports/' }));
    const keys = (listed.Contents ?? []).map((object) => object.Key);

    expect(code).toBe(0);
    expect(stderr()).toContain(
      `Completed s3://${s3.bucket}/exports/reports/acme/2024-05/20261101T000000Z-dead01/: a killed run had left it without its manifest.`,
    );
    expect(keys).toContain('exports/reports/acme/2024-05/20261101T000000Z-dead01/manifest.json');
    expect(keys.filter((key) => key?.startsWith('exports/_staging/'))).toEqual([]);
  });

  it('publishes the run under the prefix with the manifest readable from the bucket', async () => {
    const { io } = captureIo();
    const code = await main(
      [
        'run',
        '--profile',
        'acme',
        '--period',
        '2024-06',
        '--s3',
        `s3://${s3.bucket}/exports`,
        '--s3-endpoint',
        s3.endpoint,
      ],
      io,
    );
    const listed = await s3.client.send(
      new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'exports/reports/acme/' }),
    );
    const manifestKey = listed.Contents?.map((o) => o.Key).find((k) =>
      k?.endsWith('manifest.json'),
    ) as string;
    const manifest = JSON.parse(
      (await (
        await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: manifestKey }))
      ).Body?.transformToString()) ?? '{}',
    );
    expect({ code, files: manifest.files.length, location: manifest.files[0].location }).toEqual({
      code: 0,
      files: 7,
      location: expect.stringMatching(new RegExp(`^s3://${s3.bucket}/exports/reports/acme/2024-06/`)),
    });
  });
});

describe('bin/pbs-export.ts as a process', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-cli-process-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('exits 130 on a real SIGINT mid-run, leaving no file in the folder and no scratch folder', async () => {
    const temp = join(dir, 'tmp');
    await mkdir(temp);
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'bin/pbs-export.ts',
        'run',
        '--profile',
        'acme',
        '--period',
        '2024',
        '--out',
        join(dir, 'out'),
      ],
      { env: { ...process.env, TMPDIR: temp }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    // One signal: a second one means "exit now" and leaves the scratch folder to the next run.
    let sent = false;
    child.stdout.on('data', (chunk: Buffer) => {
      if (!sent && chunk.toString().includes('fetched shard')) sent = child.kill('SIGINT');
    });
    const [code] = (await once(child, 'exit')) as [number | null];

    const scratch = (await readdir(temp)).filter((name) => name.startsWith('pbs-export-'));
    expect({ code, files: await filesUnder(join(dir, 'out')).catch(() => []), scratch }).toEqual({
      code: 130,
      files: [],
      scratch: [],
    });
    expect(stderr).toContain('stopped by SIGINT');
  });
});
