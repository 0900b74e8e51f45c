import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { StorageError } from './errors.ts';
import { createLocalSink } from './local-sink.ts';
import type { ProcessOwner } from './owner.ts';
import type { SinkSet } from './sink.ts';

let root: string;
let out: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pbs-local-staging-'));
  out = join(root, 'out');
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Stores `content` as `name` in `set`; resolves with done()'s outcome (the error when it fails). */
async function store(set: SinkSet, name: string, content: string): Promise<unknown> {
  const object = set.create(name, 'text/csv');
  object.stream.end(content);
  return object.done().catch(async (error: unknown) => {
    await object.abort(error);
    return error;
  });
}

/** The outcome of a promise: undefined when it resolved, its error when it rejected. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (error: unknown) => error,
  );
}

/** The one staging folder under `parent`. */
async function stagingIn(parent: string): Promise<string> {
  const [name] = (await readdir(parent)).filter((entry) => entry.includes('.staging-'));
  if (name === undefined) throw new Error(`no staging folder in ${parent}`);
  return join(parent, name);
}

describe('a local set whose staging folder is taken away', () => {
  it('fails the file written after the staging folder was removed, never re-creating it, and publishes nothing', async () => {
    const set = await createLocalSink(out).openSet('reports/run-1');
    await store(set, 'a.csv', 'a\n');
    const staging = await stagingIn(join(out, 'reports'));
    await rm(staging, { recursive: true });

    const manifest = await store(set, 'manifest.json', '{}\n');
    const commit = await failureOf(set.commit());
    await set.discard();

    expect(manifest).toBeInstanceOf(StorageError);
    expect((manifest as Error).message).toMatch(/staging folder was removed while the run wrote it/);
    expect(commit).toBeInstanceOf(StorageError);
    expect(await exists(staging)).toBe(false);
    expect(await readdir(join(out, 'reports'))).toEqual([]);
  });

  it('refuses to commit a staging folder removed and re-created with the same files', async () => {
    const set = await createLocalSink(out).openSet('reports/run-2');
    await store(set, 'a.csv', 'a\n');
    await store(set, 'manifest.json', '{}\n');
    const staging = await stagingIn(join(out, 'reports'));
    await rm(staging, { recursive: true });
    await mkdir(staging);
    await writeFile(join(staging, 'a.csv'), 'a\n');
    await writeFile(join(staging, 'manifest.json'), '{}\n');

    const error = await failureOf(set.commit());

    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/staging folder was removed/);
    expect(await exists(join(out, 'reports', 'run-2'))).toBe(false);
  });

  it('refuses to verify or commit when a staged file is not the one written, naming it', async () => {
    const set = await createLocalSink(out).openSet('reports/run-3');
    await store(set, 'a.csv', 'abc\n');
    await store(set, 'nested/b.csv', 'b\n');
    const staging = await stagingIn(join(out, 'reports'));
    await writeFile(join(staging, 'a.csv'), 'abd\n');
    await rm(join(staging, 'nested', 'b.csv'));
    await writeFile(join(staging, 'intruder.csv'), 'x\n');

    const verified = await failureOf(set.verify());
    const committed = await failureOf(set.commit());

    expect(verified).toBeInstanceOf(StorageError);
    expect((verified as Error).message).toMatch(
      /"a\.csv" has another sha256 than the one written; "nested\/b\.csv" is missing; "intruder\.csv" was not written by the run/,
    );
    expect(committed).toBeInstanceOf(StorageError);
    expect(await exists(join(out, 'reports', 'run-3'))).toBe(false);
  });

  it('names both sizes when a staged file was cut short', async () => {
    const set = await createLocalSink(out).openSet('reports/run-4');
    await store(set, 'a.csv', 'abcdef\n');
    await writeFile(join(await stagingIn(join(out, 'reports')), 'a.csv'), 'abc');

    await expect(set.commit()).rejects.toThrow(/"a\.csv" has 3 bytes, 7 were written/);
  });

  it('commits a set it still holds, without its owner record', async () => {
    const set = await createLocalSink(out).openSet('reports/run-5');
    await store(set, 'a.csv', 'a\n');
    await store(set, 'nested/b.csv', 'b\n');

    await set.verify();
    await set.commit();

    expect((await readdir(join(out, 'reports', 'run-5'), { recursive: true })).sort()).toEqual([
      'a.csv',
      'nested',
      'nested/b.csv',
    ]);
  });

  it("refuses an object named as the staging folder's owner record", async () => {
    const set = await createLocalSink(out).openSet('reports/run-6');

    expect(() => set.create('.staging-owner.json', 'application/json')).toThrow(ValidationError);
    await set.discard();
  });
});

/** A process `pid` in container `instance` of host `aaaaaaaa`, seeing only its own pid alive. */
function containerProcess(instance: string, pid: number): ProcessOwner {
  return { host: 'aaaaaaaa', pid, instance, isAlive: (other) => other === pid };
}

describe('two containers with the same host name writing beside each other', () => {
  it("keep each other's staging folders (their pids say nothing about each other), and both publish", async () => {
    const first = await createLocalSink(out, { owner: containerProcess('container-a', 7) }).openSet(
      'reports/run-a',
    );
    await store(first, 'a.csv', 'a\n');

    const second = await createLocalSink(out, { owner: containerProcess('container-b', 8) }).openSet(
      'reports/run-b',
    );
    await store(second, 'b.csv', 'b\n');
    await store(first, 'manifest.json', '{}\n');
    await first.commit();
    await second.commit();

    expect((await readdir(join(out, 'reports'), { recursive: true })).sort()).toEqual([
      'run-a',
      'run-a/a.csv',
      'run-a/manifest.json',
      'run-b',
      'run-b/b.csv',
    ]);
  });

  it('keep the staging folder of a process of the same pid in the other container', async () => {
    const first = await createLocalSink(out, { owner: containerProcess('container-a', 7) }).openSet(
      'reports/run-a',
    );
    await store(first, 'a.csv', 'a\n');
    const dead = { ...containerProcess('container-b', 7), isAlive: () => false };

    const second = await createLocalSink(out, { owner: dead }).openSet('reports/run-b');
    await second.discard();
    await first.commit();

    expect(await readdir(join(out, 'reports'))).toEqual(['run-a']);
  });

  it('still remove the staging folder a dead process of the same container left', async () => {
    const killed = await createLocalSink(out, { owner: containerProcess('container-a', 7) }).openSet(
      'reports/run-a',
    );
    await store(killed, 'a.csv', 'a\n');

    const next = await createLocalSink(out, { owner: containerProcess('container-a', 9) }).openSet(
      'reports/run-b',
    );
    await store(next, 'b.csv', 'b\n');
    await next.commit();

    expect(await readdir(join(out, 'reports'))).toEqual(['run-b']);
  });
});
