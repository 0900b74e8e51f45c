import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emulateUploadPartCopy,
  failCommands,
  recordCommands,
  type S3TestServer,
  startS3rver,
} from '../../test/support/s3.ts';
import { ValidationError } from '../errors.ts';
import { StorageError } from './errors.ts';
import { createS3Sink, MIN_PART_SIZE } from './s3-sink.ts';
import type { Sink, SinkObject, SinkSet } from './sink.ts';

let s3: S3TestServer;

beforeAll(async () => {
  s3 = await startS3rver();
});

afterAll(async () => {
  await s3.close();
});

const MIB = 1024 * 1024;

/** `total` random bytes in 256 KiB chunks. */
function randomChunks(total: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let offset = 0; offset < total; offset += 256 * 1024) {
    chunks.push(randomBytes(Math.min(256 * 1024, total - offset)));
  }
  return chunks;
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

async function getObject(client: S3Client, key: string): Promise<{ body: Buffer; contentType?: string }> {
  const response = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return {
    body: Buffer.from((await response.Body?.transformToByteArray()) ?? []),
    contentType: response.ContentType,
  };
}

async function headStatus(key: string): Promise<number> {
  try {
    await s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key }));
    return 200;
  } catch (error) {
    return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode ?? 0;
  }
}

async function listedKeys(prefix: string): Promise<string[]> {
  const page = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (page.Contents ?? []).map((object) => object.Key ?? '');
}

/** Resolves once `client` has completed a command named `commandName`. */
function completed(client: S3Client, commandName: string): Promise<void> {
  return new Promise((resolve) => {
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        if (context.commandName === commandName) resolve();
        return result;
      },
      { step: 'initialize', name: `testCompleted${commandName}` },
    );
  });
}

interface FailedUpload {
  object: SinkObject;
  error: unknown;
  commands: string[];
  key: string;
}

/** Streams 12 MiB into a fresh sink whose client fails as `arrange` sets up, and awaits done(). */
async function failedUpload(
  name: string,
  arrange: (client: S3Client) => void,
  source: Readable = Readable.from(randomChunks(12 * MIB)),
): Promise<FailedUpload> {
  const client = s3.createClient();
  const commands = recordCommands(client);
  arrange(client);
  const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'failures' });
  const object = sink.create(name, 'text/csv');
  await pipeline(source, object.stream).catch(() => {});
  const error = await object.done().then(
    () => undefined,
    (caught: unknown) => caught,
  );
  return { object, error, commands, key: `failures/${name}` };
}

const injected = new Error('injected UploadPart failure');
const failSecondPart = (client: S3Client): void =>
  failCommands(
    client,
    (command, input) => command === 'UploadPartCommand' && input.PartNumber === 2,
    injected,
  );

describe('createS3Sink', () => {
  it('returns the bucket and prefix as its root', () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: '/exports/' });

    expect(sink.root).toBe(`s3://${s3.bucket}/exports`);
  });

  it('stores a small object byte-equal with its content type', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'small' });
    const content = Buffer.from('date,amount\n2025-01-01,1.5\n');
    const object = sink.create('run/transactions.csv', 'text/csv; charset=utf-8');

    object.stream.end(content);
    await object.done();

    const stored = await getObject(s3.client, 'small/run/transactions.csv');
    expect(stored.body.equals(content)).toBe(true);
    expect(stored.contentType).toBe('text/csv; charset=utf-8');
  });

  it('returns the key, location, sha256 and bytes of a stored object', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: '/described/' });
    const content = Buffer.from('a,b\n1,2\n');
    const object = sink.create('run/t.csv', 'text/csv');

    object.stream.end(content);
    const stored = await object.done();

    expect(stored).toEqual({
      name: 'run/t.csv',
      location: `s3://${s3.bucket}/described/run/t.csv`,
      key: 'described/run/t.csv',
      bytes: content.byteLength,
      sha256: sha256(content),
      contentType: 'text/csv',
    });
  });

  it('stores an empty object', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'empty' });
    const object = sink.create('nothing.csv', 'text/csv');

    object.stream.end();
    const stored = await object.done();

    expect(stored.bytes).toBe(0);
    expect((await getObject(s3.client, 'empty/nothing.csv')).body.byteLength).toBe(0);
  });

  it('stores a 12 MiB stream byte-equal through a multipart upload', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'multipart' });
    const chunks = randomChunks(12 * MIB);
    const object = sink.create(
      'big.xlsx',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
    );

    await pipeline(Readable.from(chunks), object.stream);
    await object.done();

    const stored = await getObject(s3.client, 'multipart/big.xlsx');
    expect(stored.body.equals(Buffer.concat(chunks))).toBe(true);
    expect(stored.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(commands.filter((command) => command === 'UploadPartCommand')).toHaveLength(3);
  });

  it('shows nothing under the key until done() completes the multipart upload', async () => {
    const client = s3.createClient();
    const partUploaded = completed(client, 'UploadPartCommand');
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'visibility' });
    const object = sink.create('big.csv', 'text/csv');
    const chunks = randomChunks(12 * MIB);
    const writing = pipeline(Readable.from(chunks), object.stream);
    await partUploaded;

    expect(await headStatus('visibility/big.csv')).toBe(404);
    await writing;
    await object.done();
    expect(await headStatus('visibility/big.csv')).toBe(200);
  });

  it('returns the sha256 and bytes of a multipart upload', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'multipart-hash' });
    const chunks = randomChunks(11 * MIB + 123);
    const object = sink.create('big.csv', 'text/csv');

    await pipeline(Readable.from(chunks), object.stream);
    const stored = await object.done();

    expect(stored.sha256).toBe(sha256(Buffer.concat(chunks)));
    expect(stored.bytes).toBe(11 * MIB + 123);
  });

  it('uploads parts of the configured size', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    const sink = createS3Sink({
      client,
      bucket: s3.bucket,
      prefix: 'part-size',
      partSize: 6 * MIB,
      queueSize: 1,
    });
    const object = sink.create('big.csv', 'text/csv');

    await pipeline(Readable.from(randomChunks(12 * MIB)), object.stream);
    await object.done();

    expect(commands.filter((command) => command === 'UploadPartCommand')).toHaveLength(2);
  });

  it('refuses a part size below 5 MiB', () => {
    expect(() => createS3Sink({ client: s3.client, bucket: s3.bucket, partSize: MIN_PART_SIZE - 1 })).toThrow(
      ValidationError,
    );
  });

  it('refuses a name that climbs out of the prefix', () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'names' });

    expect(() => sink.create('../other/x.csv', 'text/csv')).toThrow(ValidationError);
  });

  describe('when the second UploadPart fails', () => {
    let failure: FailedUpload;

    beforeAll(async () => {
      failure = await failedUpload('part-failure.csv', failSecondPart);
    });

    it('rejects done() with a StorageError naming the key and keeping the cause', () => {
      expect(failure.error).toBeInstanceOf(StorageError);
      expect((failure.error as StorageError).message).toContain(failure.key);
      expect((failure.error as StorageError).cause).toBe(injected);
    });

    it('leaves no object under the key', async () => {
      expect(await headStatus(failure.key)).toBe(404);
      expect(await listedKeys(failure.key)).toEqual([]);
    });

    it('attempts AbortMultipartUpload', () => {
      expect(failure.commands).toContain('AbortMultipartUploadCommand');
      expect(failure.commands).not.toContain('CompleteMultipartUploadCommand');
    });

    it('reports the refused abort beside the original error, not instead of it', () => {
      expect((failure.error as StorageError).cleanupError).toBeDefined();
      expect((failure.error as StorageError).cause).toBe(injected);
    });

    it('destroys the body stream', () => {
      expect(failure.object.stream.destroyed).toBe(true);
    });
  });

  describe('when the source stream fails after some parts', () => {
    const sourceError = new Error('source failed');
    let failure: FailedUpload;

    beforeAll(async () => {
      const source = Readable.from(
        (async function* () {
          for (const chunk of randomChunks(11 * MIB)) yield chunk;
          throw sourceError;
        })(),
      );
      failure = await failedUpload('source-failure.csv', () => {}, source);
    });

    it('rejects done() with a StorageError whose cause is the source error', () => {
      expect(failure.error).toBeInstanceOf(StorageError);
      expect((failure.error as StorageError).cause).toBe(sourceError);
    });

    it('leaves no object under the key', async () => {
      expect(await headStatus(failure.key)).toBe(404);
    });

    it('attempts AbortMultipartUpload after uploading parts', () => {
      expect(failure.commands).toContain('UploadPartCommand');
      expect(failure.commands).toContain('AbortMultipartUploadCommand');
    });
  });

  describe('when CompleteMultipartUpload fails', () => {
    const completeError = new Error('injected complete failure');
    let failure: FailedUpload;

    beforeAll(async () => {
      failure = await failedUpload('complete-failure.csv', (client) =>
        failCommands(client, (command) => command === 'CompleteMultipartUploadCommand', completeError),
      );
    });

    it('rejects done() with a StorageError whose cause is the failure', () => {
      expect(failure.error).toBeInstanceOf(StorageError);
      expect((failure.error as StorageError).cause).toBe(completeError);
    });

    it('leaves no object under the key', async () => {
      expect(await headStatus(failure.key)).toBe(404);
    });

    it('attempts AbortMultipartUpload', () => {
      expect(failure.commands).toContain('AbortMultipartUploadCommand');
    });
  });

  describe('abort()', () => {
    it('leaves no object, attempts AbortMultipartUpload and reports its refusal without throwing', async () => {
      const client = s3.createClient();
      const commands = recordCommands(client);
      const partUploaded = completed(client, 'UploadPartCommand');
      const cleanupErrors: StorageError[] = [];
      const sink = createS3Sink({
        client,
        bucket: s3.bucket,
        prefix: 'aborted',
        onCleanupError: (error) => cleanupErrors.push(error),
      });
      const object = sink.create('mid.csv', 'text/csv');
      const writing = pipeline(Readable.from(randomChunks(12 * MIB)), object.stream).catch(() => {});
      await partUploaded;

      await object.abort(new Error('run cancelled'));
      await writing;

      expect(await headStatus('aborted/mid.csv')).toBe(404);
      expect(commands).toContain('AbortMultipartUploadCommand');
      expect(cleanupErrors).toHaveLength(1);
      expect(object.stream.destroyed).toBe(true);
    });

    it('resolves when called again', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'aborted' });
      const object = sink.create('twice.csv', 'text/csv');
      object.stream.write('abc');
      await object.abort();

      await expect(object.abort()).resolves.toBeUndefined();
    });

    it('makes done() reject', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'aborted' });
      const object = sink.create('then-done.csv', 'text/csv');
      object.stream.write('abc');
      await object.abort();

      await expect(object.done()).rejects.toBeInstanceOf(StorageError);
    });

    it('deletes an object whose upload completed before done() was called', async () => {
      const client = s3.createClient();
      const stored = completed(client, 'PutObjectCommand');
      const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'aborted' });
      const object = sink.create('ended.csv', 'text/csv');
      object.stream.end('abc');
      await stored;

      await object.abort();

      expect(await headStatus('aborted/ended.csv')).toBe(404);
    });

    it('keeps an object once done() has resolved', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'aborted' });
      const object = sink.create('kept.csv', 'text/csv');
      object.stream.end('abc');
      await object.done();

      await object.abort();

      expect(await headStatus('aborted/kept.csv')).toBe(200);
    });
  });

  describe('list()', () => {
    beforeAll(async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'listing' });
      for (const name of ['runs/2025-01/a.csv', 'runs/2025-02/b.csv', 'runs/2024-12/c.csv', 'other.csv']) {
        const object = sink.create(name, 'text/csv');
        object.stream.end('x');
        await object.done();
      }
      const outside = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'listing-other' });
      const object = outside.create('runs/2025-01/z.csv', 'text/csv');
      object.stream.end('x');
      await object.done();
    });

    it('returns the names under a prefix relative to the sink prefix', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'listing' });

      expect(await sink.list('runs/2025')).toEqual(['runs/2025-01/a.csv', 'runs/2025-02/b.csv']);
    });

    // s3rver cannot paginate ListObjectsV2 on Node 20 (its continuation tokens use DES, which
    // OpenSSL 3 lacks), so this client answers ListObjectsV2 itself with two pages.
    it('returns every page of a paginated listing', async () => {
      const client = s3.createClient();
      const tokensSent: (string | undefined)[] = [];
      const pages = [
        { Contents: [{ Key: 'listing/a.csv' }], IsTruncated: true, NextContinuationToken: 'page-2' },
        { Contents: [{ Key: 'listing/b.csv' }], IsTruncated: false },
      ];
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (context.commandName !== 'ListObjectsV2Command') return next(args);
          const token = (args.input as { ContinuationToken?: string }).ContinuationToken;
          tokensSent.push(token);
          return { output: { ...pages[token === 'page-2' ? 1 : 0], $metadata: {} }, response: {} };
        },
        { step: 'initialize', name: 'testTwoPages' },
      );
      const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'listing' });

      const names = await sink.list('');

      expect(names).toEqual(['a.csv', 'b.csv']);
      expect(tokensSent).toEqual([undefined, 'page-2']);
    });

    it('refuses a prefix that climbs out of the sink prefix', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'listing' });

      await expect(sink.list('../')).rejects.toBeInstanceOf(ValidationError);
    });
  });

  describe('remove()', () => {
    it('deletes a stored object and answers without error for one that does not exist', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'removing' });
      const object = sink.create('run/a.csv', 'text/csv');
      object.stream.end('x');
      await object.done();

      await sink.remove?.('run/a.csv');
      await sink.remove?.('run/never.csv');

      expect(await headStatus('removing/run/a.csv')).toBe(404);
    });

    it('refuses a name that climbs out of the sink prefix', async () => {
      const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'removing' });

      await expect(sink.remove?.('../x.csv')).rejects.toBeInstanceOf(ValidationError);
    });
  });
});

/** Writes `files` into `set`, each stored in turn; returns what done() reported. */
async function writeSet(set: SinkSet, files: [string, Buffer | string, string?][]) {
  const stored = [];
  for (const [name, content, contentType] of files) {
    const object = set.create(name, contentType ?? 'text/csv');
    await pipeline(Readable.from([content]), object.stream);
    stored.push(await object.done());
  }
  return stored;
}

/** The keys of every `commandName` sent through `client`, in order. */
function keysOf(client: S3Client, commandName: string): string[] {
  const keys: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === commandName) keys.push(String((args.input as { Key?: string }).Key));
      return next(args);
    },
    { step: 'initialize', name: `testKeysOf${commandName}` },
  );
  return keys;
}

describe('createS3Sink openSet()', () => {
  const files = (): [string, string][] => [
    ['a.csv', 'a,b\n1,2\n'],
    ['b.csv', 'c\n3\n'],
    ['manifest.json', '{"files":[]}\n'],
  ];

  it('stages a set under _staging/ and shows nothing at its final keys until commit()', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'sets' });
    const set = await sink.openSet('reports/run-1');
    await writeSet(set, files());

    const before = {
      final: await listedKeys('sets/reports/run-1/'),
      staged: await listedKeys('sets/_staging/reports/run-1/'),
    };
    await set.commit();

    expect(before).toEqual({
      final: [],
      staged: [
        'sets/_staging/reports/run-1/a.csv',
        'sets/_staging/reports/run-1/b.csv',
        'sets/_staging/reports/run-1/manifest.json',
      ],
    });
    expect(await listedKeys('sets/reports/run-1/')).toEqual([
      'sets/reports/run-1/a.csv',
      'sets/reports/run-1/b.csv',
      'sets/reports/run-1/manifest.json',
    ]);
    expect((await getObject(s3.client, 'sets/reports/run-1/a.csv')).body.toString()).toBe('a,b\n1,2\n');
    expect(await listedKeys('sets/_staging/')).toEqual([]);
  });

  it('describes each object at its final key and location', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'sets' });
    const set = await sink.openSet('reports/run-2');

    const [stored] = await writeSet(set, [['a.csv', 'x\n']]);

    expect(stored).toEqual({
      name: 'a.csv',
      key: 'sets/reports/run-2/a.csv',
      location: `s3://${s3.bucket}/sets/reports/run-2/a.csv`,
      bytes: 2,
      sha256: sha256(Buffer.from('x\n')),
      contentType: 'text/csv',
    });
    await set.discard();
  });

  it('copies the object stored last (the manifest) after every other one, keeping content types', async () => {
    const client = s3.createClient();
    const copies = keysOf(client, 'CopyObjectCommand');
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'sets' });
    const set = await sink.openSet('reports/run-3');
    await writeSet(set, [
      ['a.csv', 'a\n', 'text/csv; charset=utf-8'],
      ['b.xlsx', 'b', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['manifest.json', '{}', 'application/json'],
    ]);

    await set.commit();

    expect(copies.at(-1)).toBe('sets/reports/run-3/manifest.json');
    expect(copies.slice(0, -1).sort()).toEqual(['sets/reports/run-3/a.csv', 'sets/reports/run-3/b.xlsx']);
    expect((await getObject(s3.client, 'sets/reports/run-3/a.csv')).contentType).toBe(
      'text/csv; charset=utf-8',
    );
    expect((await getObject(s3.client, 'sets/reports/run-3/manifest.json')).contentType).toBe(
      'application/json',
    );
  });

  it('copies an object over copyThreshold in parts (UploadPartCopy), byte-equal with its content type', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    emulateUploadPartCopy(client, s3.client);
    const sink = createS3Sink({
      client,
      bucket: s3.bucket,
      prefix: 'sets',
      copyThreshold: MIN_PART_SIZE,
      copyPartSize: MIN_PART_SIZE,
    });
    const set = await sink.openSet('reports/run-4');
    const content = Buffer.concat(randomChunks(12 * MIB));
    await writeSet(set, [
      ['big.xlsx', content, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['manifest.json', '{}', 'application/json'],
    ]);

    await set.commit();

    const big = await getObject(s3.client, 'sets/reports/run-4/big.xlsx');
    expect(sha256(big.body)).toBe(sha256(content));
    expect(big.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(commands.filter((command) => command === 'UploadPartCopyCommand')).toHaveLength(3);
    // The small manifest still goes by one CopyObject.
    expect(commands.filter((command) => command === 'CopyObjectCommand')).toHaveLength(1);
  });

  it('removes the final keys already copied (the last one first) and the staged keys when a commit fails', async () => {
    const client = s3.createClient();
    failCommands(
      client,
      (command, input) => command === 'CopyObjectCommand' && String(input.Key).endsWith('/manifest.json'),
      new Error('injected CopyObject failure'),
    );
    const deletes = keysOf(client, 'DeleteObjectCommand');
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'sets' });
    const set = await sink.openSet('reports/run-5');
    await writeSet(set, files());

    const error = await set.commit().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const copiedBeforeDiscard = await listedKeys('sets/reports/run-5/');
    await set.discard();

    expect(error).toBeInstanceOf(StorageError);
    expect(copiedBeforeDiscard).toEqual(['sets/reports/run-5/a.csv', 'sets/reports/run-5/b.csv']);
    expect(deletes[0]).toBe('sets/reports/run-5/manifest.json');
    expect(await listedKeys('sets/reports/run-5/')).toEqual([]);
    expect(await listedKeys('sets/_staging/reports/run-5/')).toEqual([]);
  });

  it('copies nothing when its signal has fired, and discard() then leaves nothing', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'sets' });
    const set = await sink.openSet('reports/run-6');
    await writeSet(set, files());
    const controller = new AbortController();
    const reason = new Error('stopped');
    controller.abort(reason);

    await expect(set.commit({ signal: controller.signal })).rejects.toBe(reason);
    await set.discard();

    expect(commands).not.toContain('CopyObjectCommand');
    expect(await listedKeys('sets/reports/run-6/')).toEqual([]);
    expect(await listedKeys('sets/_staging/reports/run-6/')).toEqual([]);
  });

  it('does not list staged objects', async () => {
    const sink: Sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'sets-listing' });
    const set = await sink.openSet('reports/run-7');
    await writeSet(set, files());

    expect(await sink.list('')).toEqual([]);
    await set.discard();
  });

  it('refuses a set or an object inside the staging area', async () => {
    const sink = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'sets' });

    await expect(sink.openSet('_staging/reports/x')).rejects.toBeInstanceOf(ValidationError);
    expect(() => sink.create('_staging/x.csv', 'text/csv')).toThrow(ValidationError);
  });

  it('refuses a copy threshold over 5 GiB and a copy part size under 5 MiB', () => {
    expect(() =>
      createS3Sink({ client: s3.client, bucket: s3.bucket, copyThreshold: 5 * 1024 * MIB + 1 }),
    ).toThrow(/copyThreshold/);
    expect(() => createS3Sink({ client: s3.client, bucket: s3.bucket, copyPartSize: MIB })).toThrow(
      /copyPartSize/,
    );
  });
});
