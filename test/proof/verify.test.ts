/**
 * Proof (README: Proof), as an auditor would try it: three monthly sets exported by the CLI as a
 * process, signed with a key made by OpenSSL; `pbs-export verify` holds on them, and fails, naming
 * the file or the link, once a byte changes, a file goes, a set is taken out of the middle of the
 * chain or a signature is replaced. OpenSSL itself checks each signature with the published key,
 * and `sha256sum` each file against the manifest: readers we did not write.
 */
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.ts';

const run = promisify(execFile);

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `pbs-export` with `args` as a process to its exit. */
async function cli(args: readonly string[]): Promise<Finished> {
  const child = spawn(process.execPath, [join(process.cwd(), 'bin', 'pbs-export.mjs'), ...args], {
    env: Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('PBS_'))),
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

/** `pbs-export verify …` in this process (the exports above run as processes). */
async function verify(args: readonly string[]): Promise<Finished> {
  let stdout = '';
  let stderr = '';
  const code = await main(['verify', ...args], {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    now: () => new Date(),
  });
  return { code, stdout, stderr };
}

const MONTHS = ['2025-01', '2025-02', '2025-03'];
let dir: string;
let pristine: string;
let key: string;

/** The folder of the one set of `month` under `out`. */
async function setOf(out: string, month: string): Promise<string> {
  const runs = await readdir(join(out, 'reports', 'demo', month));
  expect(runs).toHaveLength(1);
  return join(out, 'reports', 'demo', month, runs[0] as string);
}

/** A copy of the three sets to change. */
async function copy(name: string): Promise<string> {
  const out = join(dir, name);
  await cp(pristine, out, { recursive: true });
  return out;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-verify-'));
  key = join(dir, 'key.pem');
  await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
  pristine = join(dir, 'pristine');
  for (const month of MONTHS) {
    const args = ['run', '--simulator', '--period', month, '--report', 'transactions', '--format', 'csv'];
    const done = await cli([...args, '--out', pristine, '--signing-key', key]);
    expect(done.stderr).not.toMatch(/error/);
    expect(done.code).toBe(0);
  }
}, 120_000);
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('pbs-export verify', () => {
  it('holds on a fresh chain of signed sets: each file, each signature, each link', async () => {
    const done = await verify([pristine]);
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/All 3 set\(s\) hold/);
    expect(done.stdout).toMatch(/first set of its chain/);
    expect(done.stdout.match(/continues the previous set reports\/demo\/2025-0[12]\//g)).toHaveLength(2);
    expect(done.stdout.match(/signature holds/g)).toHaveLength(3);
  });

  it('OpenSSL verifies every signature with the published public key, and sha256sum every file', async () => {
    const keys = await readdir(join(pristine, 'signing'));
    expect(keys).toHaveLength(1);
    const published = join(pristine, 'signing', keys[0] as string);
    // The published key is the signing key's public half, as OpenSSL derives it.
    const derived = (await run('openssl', ['ec', '-in', key, '-pubout'])).stdout;
    expect(await readFile(published, 'utf8')).toBe(derived);
    for (const month of MONTHS) {
      const set = await setOf(pristine, month);
      const checked = await run('openssl', [
        'dgst',
        '-sha256',
        '-verify',
        published,
        '-signature',
        join(set, 'manifest.sig'),
        join(set, 'manifest.json'),
      ]);
      expect(checked.stdout.trim()).toBe('Verified OK');
      const manifest = JSON.parse(await readFile(join(set, 'manifest.json'), 'utf8'));
      for (const file of manifest.files as { name: string; sha256: string }[]) {
        const sum = (await run('sha256sum', [join(set, file.name)])).stdout.split(' ')[0];
        expect(sum, file.name).toBe(file.sha256);
      }
    }
  });

  it('each manifest names the set before it by the SHA-256 of its manifest, and the first names none', async () => {
    const manifests = await Promise.all(
      MONTHS.map(async (month) => readFile(join(await setOf(pristine, month), 'manifest.json'))),
    );
    const parsed = manifests.map((bytes) => JSON.parse(bytes.toString('utf8')));
    expect(parsed[0].previous).toBeNull();
    for (const at of [1, 2]) {
      const sum = (
        await run('sha256sum', [join(await setOf(pristine, MONTHS[at - 1] as string), 'manifest.json')])
      ).stdout.split(' ')[0];
      expect(parsed[at].previous.manifestSha256).toBe(sum);
      expect(parsed[at].previous.period.end).toBe(parsed[at].period.start);
    }
  });

  it('fails, naming the file, after one byte of a file is changed', async () => {
    const out = await copy('byte');
    const set = await setOf(out, '2025-02');
    const csv = (await readdir(set)).find((name) => name.endsWith('_transactions.csv')) as string;
    const bytes = await readFile(join(set, csv));
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 3) ^ 1, bytes.length - 3);
    await writeFile(join(set, csv), bytes);
    const done = await verify([out]);
    expect(done.code).toBe(1);
    expect(done.stdout).toContain(`✗ ${csv}: changed since it was published`);
    expect(done.stdout).toMatch(/1 of 3 set\(s\) do not hold/);
  });

  it('fails, naming the file, when a file is removed', async () => {
    const out = await copy('removed');
    const set = await setOf(out, '2025-03');
    await rm(join(set, 'README.txt'));
    const done = await verify([set]);
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('✗ README.txt: missing (the manifest lists it)');
  });

  it('fails, naming the link, when a set is taken out of the middle of the chain', async () => {
    const out = await copy('middle');
    const middle = await setOf(out, '2025-02');
    await rm(middle, { recursive: true });
    const done = await verify([await setOf(out, '2025-03')]);
    expect(done.code).toBe(1);
    expect(done.stdout).toMatch(
      /✗ chain broken: the previous set reports\/demo\/2025-02\/\S+ \(2025-02\) is missing/,
    );
  });

  it('fails when the signature is replaced by another key’s signature of the same manifest', async () => {
    const out = await copy('signature');
    const set = await setOf(out, '2025-01');
    const other = join(dir, 'other.pem');
    await run('openssl', ['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', other]);
    await run('openssl', [
      'dgst',
      '-sha256',
      '-sign',
      other,
      '-out',
      join(set, 'manifest.sig'),
      join(set, 'manifest.json'),
    ]);
    const done = await verify([out]);
    expect(done.code).toBe(1);
    expect(done.stdout).toContain('✗ manifest.sig does not sign this manifest.json');
  });

  it('with --public-key, fails on a set signed by another key and holds with the signer’s own', async () => {
    const other = join(dir, 'other-public.pem');
    await run('openssl', [
      'ecparam',
      '-name',
      'prime256v1',
      '-genkey',
      '-noout',
      '-out',
      join(dir, 'k2.pem'),
    ]);
    await run('openssl', ['ec', '-in', join(dir, 'k2.pem'), '-pubout', '-out', other]);
    const refused = await verify([pristine, '--public-key', other]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(
      /✗ signed with key [0-9a-f]{64}, but the public key given is [0-9a-f]{64}/,
    );
    const own = join(dir, 'own-public.pem');
    await run('openssl', ['ec', '-in', key, '-pubout', '-out', own]);
    expect((await verify([pristine, '--public-key', own])).code).toBe(0);
  });

  it('a --signing-key that cannot be read stops the run before anything is fetched, naming the flag', async () => {
    const out = join(dir, 'no-key');
    const done = await cli([
      'run',
      '--simulator',
      '--period',
      '2025-01',
      '--out',
      out,
      '--signing-key',
      join(dir, 'none.pem'),
    ]);
    expect(done.code).toBe(2);
    expect(done.stderr).toMatch(/^error: --signing-key: .*none\.pem: cannot read/m);
    expect(done.stderr).not.toMatch(/embedded simulator/);
  });
});
