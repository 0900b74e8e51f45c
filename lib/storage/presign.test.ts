import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type S3TestServer, startS3rver } from '../../test/support/s3.ts';
import { ValidationError } from '../errors.ts';
import { attachmentDisposition, presignDownload } from './presign.ts';
import { createS3Sink } from './s3-sink.ts';

let s3: S3TestServer;
const content = Buffer.from('date,amount\n2025-01-01,1.5\n');
const key = 'exports/run 1/transactions.csv';

beforeAll(async () => {
  s3 = await startS3rver();
  const object = createS3Sink({ client: s3.client, bucket: s3.bucket, prefix: 'exports' }).create(
    'run 1/transactions.csv',
    'text/csv',
  );
  object.stream.end(content);
  await object.done();
});

afterAll(async () => {
  await s3.close();
});

function presign(
  overrides: { fileName?: string; expiresInSeconds?: number; signingDate?: Date } = {},
): Promise<string> {
  return presignDownload({
    client: s3.client,
    bucket: s3.bucket,
    key,
    fileName: 'transactions.csv',
    ...overrides,
  });
}

describe('presignDownload', () => {
  it('returns a URL that downloads the object bytes', async () => {
    const response = await fetch(await presign());

    expect(response.status).toBe(200);
    expect(Buffer.from(await response.arrayBuffer()).equals(content)).toBe(true);
  });

  it('returns a URL whose response names the file as an attachment', async () => {
    const response = await fetch(await presign({ fileName: 'Übersicht 2025 €.csv' }));
    await response.arrayBuffer();

    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="_bersicht 2025 _.csv"; filename*=UTF-8''%C3%9Cbersicht%202025%20%E2%82%AC.csv`,
    );
  });

  it('returns a URL naming exactly the one object in its path', async () => {
    const url = new URL(await presign());

    expect(decodeURIComponent(url.pathname)).toBe(`/${s3.bucket}/${key}`);
  });

  it('returns a URL whose X-Amz-Expires is the requested expiry', async () => {
    const url = new URL(await presign({ expiresInSeconds: 3600 }));

    expect(url.searchParams.get('X-Amz-Expires')).toBe('3600');
  });

  it('returns a URL valid for 900 seconds by default', async () => {
    const url = new URL(await presign());

    expect(url.searchParams.get('X-Amz-Expires')).toBe('900');
  });

  it('accepts the 7-day maximum', async () => {
    const url = new URL(await presign({ expiresInSeconds: 604_800 }));

    expect(url.searchParams.get('X-Amz-Expires')).toBe('604800');
  });

  it.each([0, -1, 604_801, 1.5, Number.NaN])(
    'refuses an expiry of %s seconds, naming expiresInSeconds',
    async (expiresInSeconds) => {
      const error = await presign({ expiresInSeconds }).catch((caught: unknown) => caught);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).field).toBe('expiresInSeconds');
    },
  );

  it('returns a URL that S3 refuses once its expiry has passed', async () => {
    const url = await presign({ expiresInSeconds: 60, signingDate: new Date('2020-01-01T00:00:00Z') });

    const response = await fetch(url);

    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Request has expired');
  });
});

describe('attachmentDisposition', () => {
  it('returns an ASCII fallback without quotes or backslashes', () => {
    expect(attachmentDisposition('a"b\\c.csv')).toBe(
      `attachment; filename="a_b_c.csv"; filename*=UTF-8''a%22b%5Cc.csv`,
    );
  });

  it("percent-encodes the characters RFC 5987 excludes from attr-char, such as ' ( ) *", () => {
    expect(attachmentDisposition("it's (1)*.csv")).toContain(`filename*=UTF-8''it%27s%20%281%29%2A.csv`);
  });

  it.each(['', 'a\r\nSet-Cookie: x.csv', 'tab\t.csv'])('refuses the file name %j', (fileName) => {
    expect(() => attachmentDisposition(fileName)).toThrow(ValidationError);
  });
});
