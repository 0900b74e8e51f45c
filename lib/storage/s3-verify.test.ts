import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { HeadObjectCommand, ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Corruption, isUploadTo, startCorruptingProxy } from '../../test/support/corrupting-proxy.ts';
import { recordCommands, type S3TestServer, startS3rver } from '../../test/support/s3.ts';
import { StorageError } from './errors.ts';
import { createS3Client } from './s3-client.ts';
import { createS3Sink } from './s3-sink.ts';
import { verifyStoredObject } from './s3-verify.ts';

const MIB = 1024 * 1024;

let s3: S3TestServer;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  s3 = await startS3rver();
});
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
afterAll(async () => {
  await s3.close();
});

/** A client of s3rver through a proxy that damages the first upload `pick` chooses. */
async function corruptingClient(
  pick: [suffix: string, part?: number],
  corruption: Corruption,
): Promise<{ client: S3Client; corrupted: () => number }> {
  const [suffix, part] = pick;
  const proxy = await startCorruptingProxy(s3.endpoint, {
    pick: (incoming) => isUploadTo(incoming, suffix, part),
    corruption,
  });
  const client = await createS3Client({
    region: 'us-east-1',
    endpoint: proxy.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  cleanups.push(async () => {
    client.destroy();
    await proxy.close();
  });
  return { client, corrupted: () => proxy.corrupted };
}

/**
 * Makes `client` see every HEAD's ETag as S3 shows a multipart upload's (`<hex>-<parts>`, no
 * MD5 of the content): s3rver gives even those a plain MD5.
 */
function partCountEtags(client: S3Client): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const output = result.output as { ETag?: string };
      if (context.commandName === 'HeadObjectCommand' && output.ETag !== undefined) {
        output.ETag = output.ETag.replace(/"$/, '-2"');
      }
      return result;
    },
    { step: 'initialize', name: 'testPartCountEtags' },
  );
}

async function exists(key: string): Promise<boolean> {
  return s3.client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key })).then(
    () => true,
    () => false,
  );
}

async function keysUnder(prefix: string): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key ?? '').sort();
}

/** Writes `content` through a sink on `client` and returns done()'s outcome. */
async function store(client: S3Client, name: string, content: Buffer): Promise<unknown> {
  const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'verify' });
  const object = sink.create(name, 'text/csv');
  await pipeline(Readable.from([content]), object.stream).catch(() => {});
  return object.done().then(
    (stored) => stored,
    (error: unknown) => error,
  );
}

describe('createS3Sink against a store that does not keep what it is sent', () => {
  it('rejects done() and deletes the object when a single-part body was changed (its ETag is not the MD5 sent)', async () => {
    const { client, corrupted } = await corruptingClient(['/verify/flipped.csv'], 'flip');

    const outcome = await store(client, 'flipped.csv', Buffer.from('date,amount\n2025-01-01,12.50\n'));

    expect(corrupted()).toBe(1);
    expect(outcome).toBeInstanceOf(StorageError);
    expect((outcome as Error).message).toMatch(/other content than was sent \(its ETag/);
    expect(await exists('verify/flipped.csv')).toBe(false);
  });

  it('rejects done() naming both sizes when the body was truncated', async () => {
    const { client } = await corruptingClient(['/verify/short.csv'], 'truncate');

    const outcome = await store(client, 'short.csv', Buffer.from('0123456789'));

    expect(outcome).toBeInstanceOf(StorageError);
    expect((outcome as Error).message).toMatch(/the store kept 5 bytes, 10 were sent/);
    expect(await exists('verify/short.csv')).toBe(false);
  });

  it('rejects done() and deletes the object when one part of a multipart upload was changed', async () => {
    const { client, corrupted } = await corruptingClient(['/verify/big.csv', 2], 'flip');

    const outcome = await store(client, 'big.csv', randomBytes(12 * MIB));

    expect(corrupted()).toBe(1);
    expect(outcome).toBeInstanceOf(StorageError);
    expect((outcome as Error).message).toMatch(/the store kept other content than was sent/);
    expect(await exists('verify/big.csv')).toBe(false);
  });

  it('reads the object back when its ETag is no MD5 (as S3 answers for multipart uploads), and finds the change', async () => {
    const { client } = await corruptingClient(['/verify/multi.csv'], 'flip');
    partCountEtags(client);

    const outcome = await store(client, 'multi.csv', Buffer.from('date,amount\n2025-01-01,12.50\n'));

    expect(outcome).toBeInstanceOf(StorageError);
    expect((outcome as Error).message).toMatch(/read back, its sha256 differs/);
    expect(await exists('verify/multi.csv')).toBe(false);
  });

  it('stores an intact object, checked by its ETag, or read back when its ETag is no MD5', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    const small = Buffer.from('intact\n');
    const stored = [await store(client, 'small.csv', small)];
    partCountEtags(client);
    stored.push(await store(client, 'read-back.csv', small));

    const described = expect.objectContaining({
      bytes: small.length,
      sha256: createHash('sha256').update(small).digest('hex'),
    });
    expect(stored).toEqual([described, described]);
    expect(commands.filter((name) => name === 'HeadObjectCommand')).toHaveLength(2);
    expect(commands.filter((name) => name === 'GetObjectCommand')).toHaveLength(1);
    expect(await exists('verify/read-back.csv')).toBe(true);
  });
});

/**
 * The ETag S3 gives a multipart upload of `content` in parts of `partSize` bytes (the MD5 of the
 * parts' MD5s, `-`, their number), computed here on its own.
 */
function s3MultipartEtag(content: Buffer, partSize: number): string {
  const digests: Buffer[] = [];
  for (let start = 0; start < content.length; start += partSize) {
    digests.push(
      createHash('md5')
        .update(content.subarray(start, start + partSize))
        .digest(),
    );
  }
  return `"${createHash('md5').update(Buffer.concat(digests)).digest('hex')}-${digests.length}"`;
}

/** Makes `client` see the ETag `etag` on every HEAD of a key ending with `suffix`, as S3 would answer it. */
function headEtag(client: S3Client, suffix: string, etag: string): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const key = (args.input as { Key?: string }).Key ?? '';
      if (context.commandName === 'HeadObjectCommand' && key.endsWith(suffix)) {
        (result.output as { ETag?: string }).ETag = etag;
      }
      return result;
    },
    { step: 'initialize', name: 'testHeadEtag' },
  );
}

describe('createS3Sink and the ETag S3 gives a multipart upload', () => {
  it('checks a multipart object by that ETag, with no read-back', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    const content = randomBytes(12 * MIB);
    headEtag(client, '/aws-multi.csv', s3MultipartEtag(content, 5 * MIB));

    const stored = await store(client, 'aws-multi.csv', content);

    expect(stored).toEqual(
      expect.objectContaining({
        bytes: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
      }),
    );
    expect(commands.filter((name) => name === 'UploadPartCommand')).toHaveLength(3);
    expect(commands.filter((name) => name === 'GetObjectCommand')).toHaveLength(0);
  });

  it('reads the object back when its multipart ETag is not the one of the parts sent', async () => {
    const client = s3.createClient();
    const commands = recordCommands(client);
    const content = randomBytes(12 * MIB);
    const other = Buffer.from(content);
    other[6 * MIB] = (other[6 * MIB] ?? 0) ^ 1;
    headEtag(client, '/aws-other.csv', s3MultipartEtag(other, 5 * MIB));

    const stored = await store(client, 'aws-other.csv', content);

    // What the store kept is what was sent (s3rver kept it): read back, it is found intact.
    expect(stored).toEqual(expect.objectContaining({ bytes: content.length }));
    expect(commands.filter((name) => name === 'GetObjectCommand')).toHaveLength(1);
  });
});

describe('createS3Sink set commit against a store whose copy differs from the staged object', () => {
  it('fails the commit before the manifest is copied when the copy answers another ETag, and discard() leaves nothing', async () => {
    const client = s3.createClient();
    // The store copies a.csv and says the copy holds other bytes (its ETag: the MD5 of 'a,B\n').
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const input = args.input as { Key?: string };
        if (context.commandName === 'CopyObjectCommand' && String(input.Key).endsWith('/a.csv')) {
          const output = result.output as { CopyObjectResult?: { ETag?: string } };
          output.CopyObjectResult = { ETag: `"${createHash('md5').update('a,B\n').digest('hex')}"` };
        }
        return result;
      },
      { step: 'initialize', name: 'testCopyAnswersOtherEtag' },
    );
    const sink = createS3Sink({ client, bucket: s3.bucket, prefix: 'copies' });
    const set = await sink.openSet('reports/run-1');
    for (const [name, content] of [
      ['a.csv', 'a,b\n'],
      ['manifest.json', '{}'],
    ] as const) {
      const object = set.create(name, 'text/plain');
      object.stream.end(content);
      await object.done();
    }

    const error = await set.commit().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    const placedBeforeDiscard = await keysUnder('copies/reports/run-1/');
    await set.discard();

    expect(error).toBeInstanceOf(StorageError);
    expect((error as Error).message).toMatch(/copy put in place has other content than was staged/);
    expect(placedBeforeDiscard).toEqual(['copies/reports/run-1/a.csv']);
    expect(await keysUnder('copies/')).toEqual([]);
  });
});

describe('verifyStoredObject', () => {
  it('names the object and its size when the store lacks it', async () => {
    const sent = { bytes: 3, sha256: 'x', md5: 'y' };

    await expect(verifyStoredObject(s3.client, s3.bucket, 'verify/none.csv', sent)).rejects.toThrow(
      /s3:\/\/test-bucket\/verify\/none\.csv: could not check what the store kept/,
    );
  });
});
