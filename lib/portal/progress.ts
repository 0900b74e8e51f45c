/**
 * Progress of a running export as the portal shows it: shards fetched of the plan's total. Read
 * from what the workers leave in S3 (the plan, one part per fetched shard), so the workers need
 * not report progress anywhere else.
 */
import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import type { PlanJson } from '../export/plan/index.ts';
import { getJson, KEYS } from '../jobs/index.ts';

/** Shards fetched and planned. */
export interface ShardProgress {
  done: number;
  total: number;
}

/** Reads a job's progress; `null` before its plan exists (queued, or planning). */
export type ProgressReader = (jobId: string) => Promise<ShardProgress | null>;

/** The progress reader over the bucket the workers write to. */
export function createProgressReader(s3: S3Client, bucket: string): ProgressReader {
  return async (jobId) => {
    const plan = await getJson<{ plan: PlanJson }>(s3, bucket, KEYS.plan(jobId));
    if (plan === null) return null;
    const total = plan.value.plan.shards.length;
    let done = 0;
    for await (const page of paginateListObjectsV2(
      { client: s3 },
      { Bucket: bucket, Prefix: KEYS.partsPrefix(jobId) },
    )) {
      done += page.KeyCount ?? page.Contents?.length ?? 0;
    }
    return { done: Math.min(done, total), total };
  };
}
