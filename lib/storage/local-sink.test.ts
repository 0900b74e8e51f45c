import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import { StorageError } from './errors.ts';
import { createLocalSink } from './local-sink.ts';
import type { ProcessOwner } from './owner.ts';
import type { Sink, SinkSet } from './sink.ts';

let root: string;
let sink: Sink;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'pbs-local-sink-'));
  sink = createLocalSink(join(root, 'out'));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under `dir`, relative to it, including hidden temporaries. */
async function allFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
    .sort();
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

async function writeAll(stream: NodeJS.WritableStream, chunks: (string | Buffer)[]): Promise<void> {
  for (const chunk of chunks) {
    if (!stream.write(chunk)) await new Promise<void>((resolve) => stream.once('drain', () => resolve()));
  }
}

describe('createLocalSink', () => {
  it('returns the absolute root folder', () => {
    expect(sink.root).toBe(join(root, 'out'));
  });

  it('returns a stored object whose sha256 and bytes match the content', async () => {
    const content = Buffer.from('date,amount\n2025-01-01,1.5\nÄ,−2\n');
    const object = sink.create('reports/run/transactions.csv', 'text/csv');

    object.stream.end(content);
    const stored = await object.done();

    expect(stored).toEqual({
      name: 'reports/run/transactions.csv',
      location: join(root, 'out', 'reports', 'run', 'transactions.csv'),
      key: 'reports/run/transactions.csv',
      bytes: content.byteLength,
      sha256: createHash('sha256').update(content).digest('hex'),
      contentType: 'text/csv',
    });
  });

  it('writes the content to the final file', async () => {
    const chunks = Array.from({ length: 50 }, (_, index) => Buffer.alloc(64 * 1024, index));
    const object = sink.create('big.bin', 'application/octet-stream');

    await pipeline(Readable.from(chunks), object.stream);
    await object.done();

    expect((await readFile(join(root, 'out', 'big.bin'))).equals(Buffer.concat(chunks))).toBe(true);
  });

  it('shows no finished file before done() resolves', async () => {
    const object = sink.create('a/b.csv', 'text/csv');
    await writeAll(object.stream, ['x'.repeat(200_000)]);

    expect(await exists(join(root, 'out', 'a', 'b.csv'))).toBe(false);
    await object.done();
    expect(await exists(join(root, 'out', 'a', 'b.csv'))).toBe(true);
  });

  it('leaves only the finished file after done(), without temporaries', async () => {
    const object = sink.create('a/b.csv', 'text/csv');
    object.stream.end('x');
    await object.done();

    expect(await allFiles(join(root, 'out'))).toEqual([join('a', 'b.csv')]);
  });

  it('ends the stream itself when done() is called on an open stream', async () => {
    const object = sink.create('open.csv', 'text/csv');
    object.stream.write('abc');

    const stored = await object.done();

    expect(stored.bytes).toBe(3);
    expect(await readFile(join(root, 'out', 'open.csv'), 'utf8')).toBe('abc');
  });

  it('returns the same result when done() is called twice', async () => {
    const object = sink.create('twice.csv', 'text/csv');
    object.stream.end('abc');

    const [first, second] = await Promise.all([object.done(), object.done()]);

    expect(second).toEqual(first);
  });

  it('leaves neither the file nor a temporary after abort()', async () => {
    const object = sink.create('a/b.csv', 'text/csv');
    await writeAll(object.stream, ['x'.repeat(200_000)]);

    await object.abort(new Error('run failed'));

    expect(await allFiles(join(root, 'out'))).toEqual([]);
  });

  it('resolves when abort() is called again', async () => {
    const object = sink.create('a/b.csv', 'text/csv');
    await object.abort();

    await expect(object.abort()).resolves.toBeUndefined();
  });

  it('rejects done() after abort()', async () => {
    const object = sink.create('a/b.csv', 'text/csv');
    await object.abort();

    await expect(object.done()).rejects.toBeInstanceOf(StorageError);
  });

  it('keeps a finished file when abort() is called after done()', async () => {
    const object = sink.create('kept.csv', 'text/csv');
    object.stream.end('abc');
    await object.done();

    await object.abort();

    expect(await readFile(join(root, 'out', 'kept.csv'), 'utf8')).toBe('abc');
  });

  it('rejects done() with a StorageError naming the file when the source stream fails', async () => {
    const object = sink.create('fail.csv', 'text/csv');
    const source = Readable.from(
      (async function* () {
        yield 'a,b\n';
        throw new Error('source failed');
      })(),
    );
    await expect(pipeline(source, object.stream)).rejects.toThrow('source failed');

    const error = await object.done().catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(StorageError);
    expect((error as StorageError).message).toContain('fail.csv');
    expect((error as StorageError).cause).toMatchObject({ message: 'source failed' });
  });

  it('leaves nothing behind when the source stream fails', async () => {
    const object = sink.create('fail.csv', 'text/csv');
    const source = Readable.from(
      (async function* () {
        yield 'a,b\n';
        throw new Error('source failed');
      })(),
    );
    await pipeline(source, object.stream).catch(() => {});
    await object.done().catch(() => {});

    expect(await allFiles(join(root, 'out'))).toEqual([]);
  });

  it.each(['../escape.csv', 'a/../../escape.csv', '/tmp/escape.csv', 'a\\..\\escape.csv', 'a\0.csv'])(
    'refuses the name %j without creating anything',
    (name) => {
      expect(() => sink.create(name, 'text/csv')).toThrow(ValidationError);
    },
  );

  it('creates nothing outside the root for a refused name', async () => {
    expect(() => sink.create('../escape.csv', 'text/csv')).toThrow(ValidationError);

    expect(await allFiles(root)).toEqual([]);
  });

  it('lists finished files but not files still being written', async () => {
    const finished = sink.create('runs/r1/a.csv', 'text/csv');
    finished.stream.end('a');
    await finished.done();
    const pending = sink.create('runs/r1/b.csv', 'text/csv');
    await writeAll(pending.stream, ['x'.repeat(200_000)]);

    const names = await sink.list('runs/');

    expect(names).toEqual(['runs/r1/a.csv']);
    await pending.abort();
  });

  it('lists only names starting with the prefix', async () => {
    for (const name of ['runs/2025-01/a.csv', 'runs/2025-02/b.csv', 'runs/2024-12/c.csv', 'other.csv']) {
      const object = sink.create(name, 'text/csv');
      object.stream.end('x');
      await object.done();
    }

    expect(await sink.list('runs/2025')).toEqual(['runs/2025-01/a.csv', 'runs/2025-02/b.csv']);
  });

  it('returns an empty list for a prefix with no folder', async () => {
    expect(await sink.list('missing/')).toEqual([]);
  });

  it('refuses a listing prefix that leaves the root', async () => {
    await expect(sink.list('../')).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('createLocalSink remove()', () => {
  it('deletes a stored file and answers without error for one that does not exist', async () => {
    const object = sink.create('run/a.csv', 'text/csv');
    object.stream.end('x');
    await object.done();

    await sink.remove?.('run/a.csv');
    await sink.remove?.('run/never.csv');

    expect(await allFiles(join(root, 'out'))).toEqual([]);
  });

  it('refuses a name that climbs out of the folder', async () => {
    await expect(sink.remove?.('../x.csv')).rejects.toBeInstanceOf(ValidationError);
  });
});

/** An owner on host `aaaaaaaa` as pid 100, for whom exactly the pids in `alive` run. */
function ownerWith(alive: number[]): ProcessOwner {
  return { host: 'aaaaaaaa', pid: 100, isAlive: (pid) => alive.includes(pid) };
}

/** Writes `files` into `set`, each stored in turn. */
async function writeSet(set: SinkSet, files: [string, string][]): Promise<void> {
  for (const [name, content] of files) {
    const object = set.create(name, 'text/csv');
    object.stream.end(content);
    await object.done();
  }
}

describe('createLocalSink openSet()', () => {
  const files: [string, string][] = [
    ['a.csv', 'a\n'],
    ['b.csv', 'b\n'],
    ['manifest.json', '{}\n'],
  ];

  it('builds the set in a hidden staging folder beside its place and shows nothing at its final folder until commit()', async () => {
    const set = await sink.openSet('reports/demo/2025/run-1');
    await writeSet(set, files);
    const parent = join(root, 'out', 'reports', 'demo', '2025');

    const before = { entries: await readdir(parent), listed: await sink.list('reports/') };
    await set.commit();

    expect(before.entries).toEqual([expect.stringMatching(/^\.run-1\.staging-[0-9a-f]{8}-\d+-[0-9a-f]{6}$/)]);
    expect(before.listed).toEqual([]);
    expect(await readdir(parent)).toEqual(['run-1']);
    expect(await allFiles(parent)).toEqual(['run-1/a.csv', 'run-1/b.csv', 'run-1/manifest.json']);
    expect(await readFile(join(parent, 'run-1', 'a.csv'), 'utf8')).toBe('a\n');
  });

  it('describes each object at its final path', async () => {
    const set = await sink.openSet('reports/run-2');
    const object = set.create('a.csv', 'text/csv');
    object.stream.end('x');

    const stored = await object.done();

    expect(stored).toMatchObject({
      name: 'a.csv',
      key: 'reports/run-2/a.csv',
      location: join(root, 'out', 'reports', 'run-2', 'a.csv'),
    });
    await set.discard();
  });

  it('leaves nothing, staging folder included, after discard()', async () => {
    const set = await sink.openSet('reports/run-3');
    await writeSet(set, files);

    await set.discard();

    expect(await readdir(join(root, 'out', 'reports'))).toEqual([]);
  });

  it('refuses to put a set over an existing folder', async () => {
    const object = sink.create('reports/run-4/old.csv', 'text/csv');
    object.stream.end('old');
    await object.done();

    await expect(sink.openSet('reports/run-4')).rejects.toBeInstanceOf(StorageError);
    expect(await allFiles(join(root, 'out'))).toEqual(['reports/run-4/old.csv']);
  });

  it('refuses to commit while a file is still being written', async () => {
    const set = await sink.openSet('reports/run-5');
    const open = set.create('a.csv', 'text/csv');
    open.stream.write('partial');

    await expect(set.commit()).rejects.toThrow(/still being written/);
    await open.abort();
    await set.discard();
    expect(await allFiles(join(root, 'out'))).toEqual([]);
  });

  it('removes staging folders that dead processes of this host left beside it, and keeps the others', async () => {
    const parent = join(root, 'out', 'reports');
    const leftovers = {
      dead: '.run-a.staging-aaaaaaaa-201-abc123',
      live: '.run-b.staging-aaaaaaaa-202-abc123',
      otherHost: '.run-c.staging-bbbbbbbb-201-abc123',
      notStaging: '.run-d.staging-x',
    };
    for (const name of Object.values(leftovers)) await mkdir(join(parent, name), { recursive: true });
    await writeFile(join(parent, leftovers.dead, 'snapshot.ndjson.gz'), 'raw data');
    const owned = createLocalSink(join(root, 'out'), { owner: ownerWith([202]) });

    const set = await owned.openSet('reports/run-6');
    await set.discard();

    expect((await readdir(parent)).sort()).toEqual(
      [leftovers.live, leftovers.otherHost, leftovers.notStaging].sort(),
    );
  });
});
