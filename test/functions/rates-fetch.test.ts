/**
 * The rates fetch function: published files served by a loopback server in the owners' layouts,
 * kept in s3rver on loopback (checksums only when required), read back and compared byte for byte.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createObservability, createRatesFetchHandler, createRuntime } from '../../lib/lambda/index.ts';
import {
  ecbHistZip,
  hmrcMonthXml,
  type RatesServer,
  startRatesServer,
  zerosZipBomb,
} from '../support/rates.ts';
import { recordCommands, type S3TestServer, startS3rver } from '../support/s3.ts';
import { captureOutput } from '../support/workflow.ts';

const sha256 = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

let s3: S3TestServer;
let site: RatesServer;
let output: ReturnType<typeof captureOutput>;
beforeAll(async () => {
  s3 = await startS3rver();
  site = await startRatesServer();
});
afterAll(async () => {
  await site.close();
  await s3.close();
});
beforeEach(() => {
  output = captureOutput();
});
afterEach(() => {
  output.stop();
});

/** The handler over the loopback site and s3rver, at 2024-05-20 (HMRC months 2024-05 and 2024-06). */
function handler(client = s3.client) {
  return createRatesFetchHandler({
    obs: createObservability('rates-fetch-test'),
    s3: client,
    bucket: s3.bucket,
    now: () => new Date('2024-05-20T06:00:00Z'),
    urls: {
      ecb: `${site.url}/stats/eurofxref/eurofxref-hist.zip`,
      hmrc: `${site.url}/api/v2/exchange_rates/files/monthly_xml_{month}.xml`,
    },
  });
}

async function keys(prefix = 'rates/'): Promise<string[]> {
  const listed = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
  return (listed.Contents ?? []).map((object) => object.Key as string).sort();
}

async function bytesOf(key: string): Promise<Buffer> {
  const object = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from((await object.Body?.transformToByteArray()) ?? []);
}

describe('rates fetch function', () => {
  const zip = ecbHistZip('2024-05-17');
  const may = hmrcMonthXml(2024, 5);

  it('keeps the ECB history and the HMRC month published under rates/{source}/{sha256}/{name}; a month not published yet is no failure', async () => {
    site.files.clear();
    site.files.set('/stats/eurofxref/eurofxref-hist.zip', zip);
    site.files.set('/api/v2/exchange_rates/files/monthly_xml_2024-05.xml', may);

    const result = await handler()({});

    expect(await keys()).toEqual(
      [
        `rates/ecb/${sha256(zip)}/eurofxref-hist.zip`,
        `rates/hmrc/${sha256(may)}/monthly_xml_2024-05.xml`,
      ].sort(),
    );
    expect(await bytesOf(`rates/ecb/${sha256(zip)}/eurofxref-hist.zip`)).toEqual(zip);
    expect(await bytesOf(`rates/hmrc/${sha256(may)}/monthly_xml_2024-05.xml`)).toEqual(Buffer.from(may));
    expect(result.files.map((file) => [file.name, file.outcome])).toEqual([
      ['eurofxref-hist.zip', 'kept'],
      ['monthly_xml_2024-05.xml', 'kept'],
      ['monthly_xml_2024-06.xml', 'not-published'],
    ]);
  });

  it('writes nothing when fetching the same content again, and keeps a changed file beside the earlier one', async () => {
    const before = await keys();
    const client = s3.createClient();
    const sent = recordCommands(client);

    const again = await handler(client)({});

    expect(sent.filter((name) => name === 'PutObjectCommand')).toEqual([]);
    expect(await keys()).toEqual(before);
    expect(again.files.map((file) => file.outcome)).toEqual(['unchanged', 'unchanged', 'not-published']);

    const newer = ecbHistZip('2024-05-20');
    site.files.set('/stats/eurofxref/eurofxref-hist.zip', newer);
    await handler()({});
    expect(await keys('rates/ecb/')).toEqual(
      [`rates/ecb/${sha256(zip)}/eurofxref-hist.zip`, `rates/ecb/${sha256(newer)}/eurofxref-hist.zip`].sort(),
    );
    expect(await bytesOf(`rates/ecb/${sha256(zip)}/eurofxref-hist.zip`)).toEqual(zip);
  });

  it('refuses a file that is not in a published layout, keeps none of it, keeps the others and fails naming it', async () => {
    const june = hmrcMonthXml(2024, 6);
    const broken = june.replace('</exchangeRateMonthList>', '');
    site.files.set('/api/v2/exchange_rates/files/monthly_xml_2024-06.xml', broken);
    const hmrcBefore = await keys('rates/hmrc/');
    const newest = ecbHistZip('2024-05-21');
    site.files.set('/stats/eurofxref/eurofxref-hist.zip', newest);

    await expect(handler()({})).rejects.toMatchObject({
      name: 'RatesFetchError',
      message: expect.stringContaining('monthly_xml_2024-06.xml: <exchangeRateMonthList> is not closed'),
    });

    expect(await keys('rates/hmrc/')).toEqual(hmrcBefore);
    expect(await keys('rates/ecb/')).toContain(`rates/ecb/${sha256(newest)}/eurofxref-hist.zip`);
  });

  it('refuses an HTML page served in place of the ECB archive', async () => {
    site.files.set('/stats/eurofxref/eurofxref-hist.zip', '<html><body>Maintenance</body></html>');
    const before = await keys('rates/ecb/');

    await expect(handler()({})).rejects.toMatchObject({
      message: expect.stringMatching(/eurofxref-hist\.zip: is none of the published layouts/),
    });

    expect(await keys('rates/ecb/')).toEqual(before);
  });

  it('refuses an ECB archive that would exhaust memory (a ZIP bomb, a body past 32 MiB), keeping none of it', async () => {
    const before = await keys('rates/ecb/');
    site.files.set('/stats/eurofxref/eurofxref-hist.zip', zerosZipBomb('eurofxref-hist.csv', 1024, 4096));
    await expect(handler()({})).rejects.toMatchObject({
      message: expect.stringContaining(
        'eurofxref-hist.zip: the entry eurofxref-hist.csv inflates to more than 32 MiB, the most a rates file may hold',
      ),
    });
    site.files.set('/stats/eurofxref/eurofxref-hist.zip', Buffer.alloc(33 * 1024 * 1024));
    await expect(handler()({})).rejects.toMatchObject({
      message: expect.stringContaining(
        `eurofxref-hist.zip: ${site.url}/stats/eurofxref/eurofxref-hist.zip sent more than 32 MiB, the most a rates file may hold`,
      ),
    });
    expect(await keys('rates/ecb/')).toEqual(before);
  });
});

describe('rates fetch settings', () => {
  it('default to the owners published URLs and refuse an HMRC URL without {month}', () => {
    const urls = createRuntime({ PBS_BUCKET: 'b' }).ratesFetchContext().urls;
    expect(urls).toEqual({
      ecb: 'https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip',
      hmrc: 'https://www.trade-tariff.service.gov.uk/api/v2/exchange_rates/files/monthly_xml_{month}.xml',
    });
    expect(() =>
      createRuntime({
        PBS_BUCKET: 'b',
        PBS_RATES_HMRC_URL: 'https://example.com/rates.xml',
      }).ratesFetchContext(),
    ).toThrow(/PBS_RATES_HMRC_URL.*\{month\}/);
  });
});
