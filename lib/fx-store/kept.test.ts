/**
 * Reading the kept rates files: an object over the 32 MiB a rates file may hold is refused naming
 * its key, before it is downloaded (by the size the listing gives), or, when the listing does not
 * tell, as soon as the download passes the limit. Over s3rver on loopback.
 */
import { createHash } from 'node:crypto';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ecbHistZip } from '../../test/support/rates.ts';
import { type S3TestServer, startS3rver } from '../../test/support/s3.ts';
import { ValidationError } from '../errors.ts';
import { MAX_RATES_FILE_BYTES } from '../fx/index.ts';
import { keptKey, readKeptRates } from './kept.ts';

let s3: S3TestServer;
let oversizedKey: string;
let smallSha256: string;
beforeAll(async () => {
  s3 = await startS3rver();
  // One byte more than a rates file may hold, kept under its own SHA-256 as the fetch keeps files.
  const oversized = Buffer.alloc(MAX_RATES_FILE_BYTES + 1);
  oversizedKey = keptKey('ecb', createHash('sha256').update(oversized).digest('hex'), 'eurofxref-hist.zip');
  await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: oversizedKey, Body: oversized }));
  const small = ecbHistZip('2024-05-17');
  smallSha256 = createHash('sha256').update(small).digest('hex');
  const key = keptKey('ecb', smallSha256, 'eurofxref-hist-small.zip');
  await s3.client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: small }));
}, 60_000);
afterAll(async () => {
  await s3?.close();
});

/** The keys `client` sends GetObject for, as they are sent. */
function recordGets(client: S3Client): string[] {
  const keys: string[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (context.commandName === 'GetObjectCommand') keys.push(String((args.input as { Key?: string }).Key));
      return next(args);
    },
    { step: 'initialize', name: 'testRecordGets' },
  );
  return keys;
}

/** A client of s3rver that understates the size of every listed object (1 byte). */
function understatingSizes(client: S3Client): S3Client {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName === 'ListObjectsV2Command') {
        const output = result.output as { Contents?: { Size?: number }[] };
        for (const object of output.Contents ?? []) object.Size = 1;
      }
      return result;
    },
    { step: 'initialize', name: 'testUnderstateSizes' },
  );
  return client;
}

describe('readKeptRates', () => {
  it('refuses a kept object over 32 MiB naming its key, without downloading it', async () => {
    const client = s3.createClient();
    const gets = recordGets(client);

    const reading = readKeptRates({ s3: client, bucket: s3.bucket }, 'ecb');

    await expect(reading).rejects.toThrow(ValidationError);
    await expect(reading).rejects.toThrow(
      `gains.rates: rates file ${oversizedKey} is ${MAX_RATES_FILE_BYTES + 1} bytes, more than the 32 MiB a rates file may hold`,
    );
    expect(gets).not.toContain(oversizedKey);
  });

  it('refuses a kept object over 32 MiB naming its key when the listing understates its size', async () => {
    const client = understatingSizes(s3.createClient());

    const reading = readKeptRates({ s3: client, bucket: s3.bucket }, 'ecb');

    await expect(reading).rejects.toThrow(ValidationError);
    await expect(reading).rejects.toThrow(`gains.rates: rates file ${oversizedKey} is `);
  });

  it('reads a kept file within the limit that a run lists, beside the oversized one', async () => {
    const files = { 'eurofxref-hist-small.zip': smallSha256 };

    const kept = await readKeptRates({ s3: s3.client, bucket: s3.bucket }, 'ecb', files);

    expect(kept.files).toEqual(files);
  });
});
