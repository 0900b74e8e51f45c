import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3rver } from '../../test/support/s3.ts';
import { addConditionalWrites } from './local-s3.ts';
import { getJson, isPreconditionFailed, putJson } from './s3-objects.ts';

let server: S3TestServer;
let client: S3Client;
beforeAll(async () => {
  server = await startS3rver();
  client = server.createClient();
  addConditionalWrites(client);
});
afterAll(async () => {
  await server.close();
});

let keys = 0;
const freshKey = () => {
  keys += 1;
  return `jobs/conditional-${keys}.json`;
};

describe('addConditionalWrites over s3rver', () => {
  it('lets exactly one of many racing If-None-Match: * creates win, the others get 412', async () => {
    const key = freshKey();

    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, writer) =>
        putJson(client, server.bucket, key, { writer }, { ifNoneMatch: '*' }),
      ),
    );

    const won = results.filter((result) => result.status === 'fulfilled');
    const refused = results.filter((result) => result.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(refused.every((result) => isPreconditionFailed(result.reason))).toBe(true);
  });

  it('never lets a create overwrite an existing object', async () => {
    const key = freshKey();
    await putJson(client, server.bucket, key, { state: 'succeeded' }, { ifNoneMatch: '*' });

    const again = putJson(client, server.bucket, key, { state: 'queued' }, { ifNoneMatch: '*' });

    await expect(again).rejects.toSatisfy(isPreconditionFailed);
    expect((await getJson(client, server.bucket, key))?.value).toEqual({ state: 'succeeded' });
  });

  it('lets exactly one of two compare-and-swap writes from the same ETag win', async () => {
    const key = freshKey();
    await putJson(client, server.bucket, key, { version: 1 }, { ifNoneMatch: '*' });
    const read = await getJson(client, server.bucket, key);

    const results = await Promise.allSettled(
      [2, 3].map((version) =>
        putJson(client, server.bucket, key, { version }, { ifMatch: read?.etag ?? '' }),
      ),
    );

    expect(results.map((result) => result.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect([2, 3]).toContain((await getJson<{ version: number }>(client, server.bucket, key))?.value.version);
  });

  it('answers 412 to If-Match on an object that does not exist', async () => {
    const write = putJson(client, server.bucket, freshKey(), { version: 1 }, { ifMatch: '"0123"' });

    await expect(write).rejects.toSatisfy(isPreconditionFailed);
  });

  it('passes unconditional writes through', async () => {
    const key = freshKey();
    await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: '{"a":1}' }));

    await client.send(new PutObjectCommand({ Bucket: server.bucket, Key: key, Body: '{"a":2}' }));

    expect((await getJson(client, server.bucket, key))?.value).toEqual({ a: 2 });
  });
});
