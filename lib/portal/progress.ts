/**
 * Progress of a running export as the portal shows it: the plan's windows (months, weeks, days
 * or years of the period) whose every shard is fetched, of all the windows. Read from what the
 * workers leave in S3 (the plan, one part per fetched shard, named by the shard's number), so the
 * workers need not report progress anywhere else.
 */
import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import type { PlanJson } from '../export/index.ts';
import { getJson, KEYS } from '../jobs/index.ts';

/** Shards fetched and planned, and the windows done of all the plan's windows. */
export interface ShardProgress {
  done: number;
  total: number;
  windowsDone: number;
  windows: number;
  /** What a window is, from its label: `month` (`2025-10`), `week`, `day` or `year`. */
  unit: 'month' | 'week' | 'day' | 'year' | 'window';
}

/** Reads a job's progress; `null` before its plan exists (queued, or planning). */
export type ProgressReader = (jobId: string) => Promise<ShardProgress | null>;

/** What a window of the plan is, by its label's shape. */
function windowUnit(label: string | undefined): ShardProgress['unit'] {
  if (label === undefined) return 'window';
  if (/^\d{4}-\d{2}$/.test(label)) return 'month';
  if (/^\d{4}-W\d{2}$/.test(label)) return 'week';
  if (/^\d{4}-\d{2}-\d{2}$/.test(label)) return 'day';
  if (/^\d{4}$/.test(label)) return 'year';
  return 'window';
}

/** The progress reader over the bucket the workers write to. */
export function createProgressReader(s3: S3Client, bucket: string): ProgressReader {
  return async (jobId) => {
    const plan = await getJson<{ plan: PlanJson }>(s3, bucket, KEYS.plan(jobId));
    if (plan === null) return null;
    const { shards, windows } = plan.value.plan;
    const prefix = KEYS.partsPrefix(jobId);
    const fetched = new Set<number>();
    for await (const page of paginateListObjectsV2({ client: s3 }, { Bucket: bucket, Prefix: prefix })) {
      for (const object of page.Contents ?? []) {
        const shard = /^(\d+)\./.exec(object.Key?.slice(prefix.length) ?? '')?.[1];
        if (shard !== undefined) fetched.add(Number(shard));
      }
    }
    const pending = new Set(shards.filter((_, index) => !fetched.has(index)).map((shard) => shard.window));
    const total = shards.length;
    return {
      done: Math.min(fetched.size, total),
      total,
      windowsDone: windows.filter((window) => !pending.has(window.index)).length,
      windows: windows.length,
      unit: windowUnit(windows[0]?.label),
    };
  };
}
