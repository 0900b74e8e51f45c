/**
 * The minimal Lambda program (`bench/minimal-lambda.ts`, issue #38's yardstick) does the Lambda
 * path's CSV job: its shards' objects in S3 (s3rver on loopback) joined by its finish give the
 * transactions CSV the export writes, byte for byte, and a snapshot of the same item texts in the
 * same order; on the hostile profile too, whose windows bring different extra columns (the finish
 * renders those windows again with the run's columns).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalLambdaFetch, minimalLambdaFinish } from '../../bench/minimal-lambda.ts';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../../lib/pbs/index.ts';
import { DEFAULT_PROFILES, HOSTILE_PROFILE, profilesWithCounts } from '../../lib/simulator/profiles.ts';
import { startExportHarness } from '../support/export.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

const PERIOD = { from: '2023-01-01', to: '2025-12-31' };

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3.close();
});

/** Every transaction line of a gzipped snapshot, in order. */
function recordsOf(gzipped: Buffer): string[] {
  return gunzipSync(gzipped)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"kind":"transaction"'));
}

async function objectBytes(key: string): Promise<Buffer> {
  const answer = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
}

/** Our export (transactions, CSV) and the minimal Lambda program of `profile`, against one simulator. */
async function runBoth(profile: string, profiles: { name: string }[]) {
  const harness = await startExportHarness(
    profile,
    { profiles: profiles as never },
    { shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: 1000 } } },
  );
  const workDir = await mkdtemp(join(tmpdir(), 'minimal-lambda-'));
  try {
    const request = parseExportRequest({
      profile,
      period: PERIOD,
      reports: ['transactions'],
      formats: ['csv'],
    });
    const result = await runExport(request, harness.deps({ concurrency: 8 }));
    const file = (suffix: string) => {
      const found = result.manifest.files.find((f) => f.name.endsWith(suffix));
      if (found === undefined) throw new Error(`the export published no ${suffix}`);
      return readFile(join(harness.outDir, found.key));
    };
    const simulated = harness.simulator.profiles.find((p) => p.name === profile);
    if (simulated === undefined) throw new Error(`no ${profile} profile`);
    const task = {
      url: harness.simulator.url,
      period: PERIOD,
      concurrency: 8,
      s3: { endpoint: s3.endpoint, bucket: s3.bucket },
    };
    const fetched = await minimalLambdaFetch(task, harness.client, simulated);
    const finished = await minimalLambdaFinish({ ...task, jobId: fetched.jobId, shardCount: fetched.shards });
    const out = `minimal/${fetched.jobId}/out`;
    return {
      ours: { csv: await file('_transactions.csv'), records: recordsOf(await file('_snapshot.ndjson.gz')) },
      minimal: {
        csv: await objectBytes(`${out}/transactions.csv`),
        records: recordsOf(await objectBytes(`${out}/snapshot.ndjson.gz`)),
        rows: finished.rows,
        shards: fetched.shards,
      },
    };
  } finally {
    await harness.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

describe("the minimal Lambda program beside our export, on the benchmark's data", () => {
  it('joins its shards into the export CSV, byte for byte, and the same snapshot lines', async () => {
    const { ours, minimal } = await runBoth('demo', profilesWithCounts({ demo: 2_000 }));
    expect(minimal.shards).toBeGreaterThan(12);
    expect(minimal.rows).toBe(ours.records.length);
    expect(minimal.csv.equals(ours.csv)).toBe(true);
    expect(minimal.records).toEqual(ours.records);
  }, 120_000);
});

describe('the minimal Lambda program beside our export, on the hostile profile', () => {
  it('writes the same CSV and snapshot lines, windows with other extra columns rendered again', async () => {
    const { ours, minimal } = await runBoth('hostile', [
      ...DEFAULT_PROFILES.map((p) => ({ ...p })),
      { ...HOSTILE_PROFILE },
    ]);
    expect(minimal.csv.toString('utf8').split('\r\n')).toEqual(ours.csv.toString('utf8').split('\r\n'));
    expect(minimal.records).toEqual(ours.records);
  }, 120_000);
});
