/**
 * `gains.rates` on AWS: the export jobs convert with the rates files the daily rates fetch keeps
 * in the bucket, and record them. The files are served by a loopback site in the ECB's and HMRC's
 * layouts and kept by the rates fetch function itself; the expected figures are worked out here.
 */
import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import BigJs from 'big.js';
import { parse } from 'csv-parse/sync';
import { DateTime } from 'luxon';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createApiHandler,
  createFetchShardHandler,
  createFinishHandler,
  createObservability,
  createPlanHandler,
  createRatesFetchHandler,
} from '../../lib/lambda/index.ts';
import {
  ecbHistZip,
  ecbPublished,
  type RatesServer,
  startRatesServer,
  usdPerEuro,
} from '../support/rates.ts';
import { captureOutput, loadEvent, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

const Exact = BigJs();
Exact.DP = 40;
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let h: WorkflowHarness;
let site: RatesServer;
let output: ReturnType<typeof captureOutput>;
beforeAll(async () => {
  h = await startWorkflowHarness();
  site = await startRatesServer();
  output = captureOutput();
});
afterAll(async () => {
  output.stop();
  await site.close();
  await h.close();
});

const GERMAN_GAINS = {
  profile: 'demo',
  period: '2024',
  timeZone: 'Europe/Berlin',
  reports: ['gains'],
  formats: ['csv'],
  gains: { taxRules: 'de', rates: { source: 'ecb' } },
};

/** Keeps `zip` as the ECB's history through the rates fetch function. */
async function fetchEcb(zip: Buffer) {
  site.files.set('/eurofxref-hist.zip', zip);
  await createRatesFetchHandler({
    obs: createObservability('rates-fetch-test'),
    s3: h.client,
    bucket: h.bucket,
    now: () => new Date('2026-01-05T06:00:00Z'),
    urls: { ecb: `${site.url}/eurofxref-hist.zip`, hmrc: `${site.url}/monthly_xml_{month}.xml` },
  })({});
}

async function text(key: string): Promise<string> {
  const object = await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: key }));
  return Buffer.from((await object.Body?.transformToByteArray()) ?? []).toString('utf8');
}

async function post(body: unknown) {
  const event = await loadEvent('post-reports.json');
  const handler = createApiHandler(h.apiContext());
  return handler({ ...event, body: JSON.stringify(body), isBase64Encoded: false });
}

describe('an export job with gains.rates {source: ecb} and no files', () => {
  it('is refused at submission (400 naming gains.rates) while the bucket keeps no ECB rates, and plans nothing', async () => {
    const answer = await post(GERMAN_GAINS);

    expect(answer.statusCode).toBe(400);
    const body = JSON.parse(String(answer.body)) as { error: { field: string; message: string } };
    expect(body.error.field).toBe('gains.rates');
    expect(body.error.message).toMatch(/no ECB rates files are kept yet \(rates\/ecb\//);
    expect(h.startCalls()).toEqual([]);
  });

  it('fails at the plan task, before anything is fetched, when queued (as the monthly schedule does) for rates the bucket does not keep', async () => {
    const job = await h.queueJob({
      ...GERMAN_GAINS,
      timeZone: 'Europe/London',
      gains: { taxRules: 'uk', rates: { source: 'hmrc' } },
    });

    await expect(createPlanHandler(h.workerContext())({ jobId: job.jobId })).rejects.toMatchObject({
      field: 'gains.rates',
      message: expect.stringContaining('no HMRC rates files are kept yet'),
    });
    expect(await h.keysUnder(`work/${job.jobId}/`)).toEqual([]);
  });

  it('converts at the kept ECB history (the newest kept version) and records its name and sha256 in the manifest', async () => {
    const older = ecbHistZip('2025-06-30');
    const newest = ecbHistZip('2025-12-31');
    await fetchEcb(older);
    await fetchEcb(newest);
    const accepted = await post(GERMAN_GAINS);
    expect(accepted.statusCode).toBe(202);
    const { jobId } = JSON.parse(String(accepted.body)) as { jobId: string };

    await runJob(jobId);

    const job = await h.jobs.require(jobId);
    expect(job.state).toBe('succeeded');
    const manifestKey = job.result?.files.find((file) => file.name === 'manifest.json')?.key as string;
    const manifest = JSON.parse(await text(manifestKey)) as { request: { gains: { rates: unknown } } };
    expect(manifest.request.gains.rates).toEqual({
      source: 'ecb',
      files: { 'eurofxref-hist.zip': sha256(newest) },
    });

    const conversions = job.result?.files.find((file) => file.name.endsWith('_fx_conversions_exact.csv'));
    const lines = parse(await text(conversions?.key as string), { bom: true, columns: true }) as Record<
      string,
      string
    >[];
    expect(lines.length).toBeGreaterThan(0);
    const checked = lines.filter((_, index) => index % 11 === 0);
    const expected = checked.map((line) => {
      // The conversions' date is UTC wall time (no offset: README "Dates in CSV").
      let day = DateTime.fromISO(line.date as string, { zone: 'utc' })
        .setZone('Europe/Berlin')
        .startOf('day');
      while (!ecbPublished(day)) day = day.minus({ days: 1 });
      const of = day.toISODate() as string;
      const value = new Exact(line.value as string).div(usdPerEuro(of)).round(18, BigJs.roundHalfEven);
      return { of, value: value.toFixed() };
    });
    expect(
      checked.map((line) => ({
        of: line.rate_of,
        value: new Exact(line.value_converted as string).toFixed(),
      })),
    ).toEqual(expected);
  }, 120_000);

  it('converts with exactly the kept files gains.rates.files lists, an earlier version included', async () => {
    const older = ecbHistZip('2025-06-30');
    const job = await h.queueJob({
      ...GERMAN_GAINS,
      period: '2024-03',
      gains: { taxRules: 'de', rates: { source: 'ecb', files: { 'eurofxref-hist.zip': sha256(older) } } },
    });

    await runJob(job.jobId);

    const done = await h.jobs.require(job.jobId);
    const manifestKey = done.result?.files.find((file) => file.name === 'manifest.json')?.key as string;
    const manifest = JSON.parse(await text(manifestKey)) as { request: { gains: { rates: unknown } } };
    expect(manifest.request.gains.rates).toEqual({
      source: 'ecb',
      files: { 'eurofxref-hist.zip': sha256(older) },
    });
  }, 60_000);

  it('refuses a kept copy whose content is not the one its key names, naming gains.rates', async () => {
    const zip = ecbHistZip('2025-12-30');
    const named = '0'.repeat(64);
    await h.client.send(
      new PutObjectCommand({ Bucket: h.bucket, Key: `rates/ecb/${named}/seeded.zip`, Body: zip }),
    );
    const job = await h.queueJob({
      ...GERMAN_GAINS,
      period: '2024-03',
      gains: { taxRules: 'de', rates: { source: 'ecb', files: { 'seeded.zip': named } } },
    });

    await expect(runJob(job.jobId)).rejects.toMatchObject({
      field: 'gains.rates',
      message: expect.stringContaining(
        `rates/ecb/${named}/seeded.zip: its content's SHA-256 is ${sha256(zip)}`,
      ),
    });
  }, 60_000);
});

describe('GET /rates on AWS', () => {
  it('lists what the rates fetch kept, not marked DEMO, and nothing of a source it kept none of', async () => {
    await fetchEcb(ecbHistZip('2025-12-31'));
    const event = await loadEvent('get-report.json');
    event.routeKey = 'GET /rates';
    event.rawPath = '/rates';
    event.pathParameters = {};
    event.requestContext.http.path = '/rates';

    const answer = await createApiHandler(h.apiContext())(event);
    const body = JSON.parse(String(answer.body)) as {
      sources: { source: string; files: number; demo: boolean }[];
    };

    expect(answer.statusCode).toBe(200);
    expect(body.sources.map((kept) => kept.source)).toEqual(['ecb', 'hmrc']);
    expect(body.sources[0]).toMatchObject({ source: 'ecb', demo: false });
    expect(body.sources[0]?.files).toBeGreaterThan(0);
    expect(body.sources[1]).toMatchObject({ source: 'hmrc', files: 0, demo: false });
  });
});

/** Runs plan → every shard → finish as the state machine would. */
async function runJob(jobId: string) {
  const context = h.workerContext();
  const plan = await createPlanHandler(context)({ jobId });
  for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId, shard });
  await createFinishHandler(context)({ jobId });
}
