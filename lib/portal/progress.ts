/**
 * Progress of a running export as the portal shows it: shards fetched of the plan's total. Read
 * from what the workers leave in S3 (the plan, one part per fetched shard), so the workers need
 * not report progress anywhere else.
 */
import { ListObjectsV2Command, type S3Client } from '@aws-sdk/client-s3';
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
    // The parts' prefix: KEYS.part(jobId, n) without the shard's own name.
    const prefix = KEYS.part(jobId, 0).replace(/[^/]*$/, '');
    let done = 0;
    let token: string | undefined;
    do {
      const page = await s3.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
      );
      done += page.KeyCount ?? page.Contents?.length ?? 0;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    return { done: Math.min(done, total), total };
  };
}
