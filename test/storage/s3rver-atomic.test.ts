import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetObjectCommand, NoSuchKey, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3?.close();
});

/** A body that sends its first half, then waits until `release` before the second. */
function slowBody(text: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  const half = Math.floor(text.length / 2);
  async function* chunks() {
    yield Buffer.from(text.slice(0, half));
    await released;
    yield Buffer.from(text.slice(half));
  }
  return { body: Readable.from(chunks()), release };
}

async function read(key: string): Promise<string | 'missing'> {
  try {
    const response = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
    return (await response.Body?.transformToString('utf8')) ?? '';
  } catch (error) {
    if (error instanceof NoSuchKey) return 'missing';
    throw error;
  }
}

describe('s3rver with atomic object writes (the test and local S3)', () => {
  it('shows no object while its first write is under way, and the whole object after', async () => {
    const text = JSON.stringify({ state: 'running', padding: 'x'.repeat(200_000) });
    const { body, release } = slowBody(text);
    const put = s3.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: 'a.json', Body: body, ContentLength: text.length }),
    );
    await sleep(150);

    const during = await read('a.json');
    release();
    await put;

    expect(during).toBe('missing');
    expect(await read('a.json')).toBe(text);
  });

  it('shows the old object whole while a new one is written over it', async () => {
    await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: 'b.json', Body: '{"v":1}' }));
    const text = JSON.stringify({ v: 2, padding: 'y'.repeat(200_000) });
    const { body, release } = slowBody(text);
    const put = s3.client.send(
      new PutObjectCommand({ Bucket: s3.bucket, Key: 'b.json', Body: body, ContentLength: text.length }),
    );
    await sleep(150);

    const during = await read('b.json');
    release();
    await put;

    expect(during).toBe('{"v":1}');
    expect(await read('b.json')).toBe(text);
  });
});
