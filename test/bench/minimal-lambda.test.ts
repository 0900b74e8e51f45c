/**
 * The minimal Lambda program (`bench/minimal-lambda.ts`, issue #38's yardstick) does the Lambda
 * path's CSV job: its shards' objects in S3 (s3rver on loopback) joined by its finish give the
 * transactions CSV the export writes, byte for byte, and a snapshot of the same item texts in the
 * same order; on the hostile profile too, whose windows bring different extra columns (the finish
 * renders those windows again with the run's columns).
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalLambdaFetch, minimalLambdaFinish } from '../../bench/minimal-lambda.ts';
import { profilesWithCounts } from '../../lib/simulator/profiles.ts';
import {
  BENCH_PERIOD,
  csvLines,
  exportBeside,
  snapshotRecords,
  withHostileProfile,
} from '../support/bench-export.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

let s3: S3TestServer;
beforeAll(async () => {
  s3 = await startS3rver();
});
afterAll(async () => {
  await s3.close();
});

async function objectBytes(key: string): Promise<Buffer> {
  const answer = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
}

/** Our export (transactions, CSV) and the minimal Lambda program of `profile`, against one simulator. */
async function runBoth(profile: string, profiles: { name: string }[]) {
  const { ours, theirs } = await exportBeside(profile, profiles, {}, async ({ url, client, simulated }) => {
    const task = {
      url,
      period: BENCH_PERIOD,
      concurrency: 8,
      s3: { endpoint: s3.endpoint, bucket: s3.bucket },
    };
    const fetched = await minimalLambdaFetch(task, client, simulated);
    const finished = await minimalLambdaFinish({ ...task, jobId: fetched.jobId, shardCount: fetched.shards });
    const out = `minimal/${fetched.jobId}/out`;
    return {
      csv: await objectBytes(`${out}/transactions.csv`),
      records: snapshotRecords(await objectBytes(`${out}/snapshot.ndjson.gz`)),
      rows: finished.rows,
      shards: fetched.shards,
    };
  });
  return { ours, minimal: theirs };
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
    const { ours, minimal } = await runBoth('hostile', withHostileProfile());
    expect(csvLines(minimal.csv)).toEqual(csvLines(ours.csv));
    expect(minimal.records).toEqual(ours.records);
  }, 120_000);
});
