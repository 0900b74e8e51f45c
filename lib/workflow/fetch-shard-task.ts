/**
 * The fetch-shard task (`functions/export-fetch-shard.ts`, one per Map item): the pipeline
 * (`runPipeline`) through its fetch stage for one shard of the stored plan, its part file stored
 * in S3 for the finish, or its window's piece instead when the run joins windows and the window
 * can be joined (docs/pipeline.md).
 */
import { dirname } from 'node:path';
import {
  describePiece,
  type ExportPlan,
  type ExportRequest,
  type FetchedShard,
  fetchNow,
  joinsWindows,
  makeWindowPiece,
  type PieceDeps,
  parseExportRequest,
  plannedBefore,
  runPipeline,
} from '../export/index.ts';
import { KEYS } from '../jobs/index.ts';
import { WorkFileError } from './errors.ts';
import { uploadPart } from './parts.ts';
import { deletePiece, type PiecesAt, uploadPiece } from './pieces.ts';
import type { ServiceFactory } from './services.ts';
import { loadJob, loadPlan, type TaskDeps } from './task-deps.ts';
import type { FetchShardTask } from './tasks.ts';

/** What the fetch-shard task uses. */
export interface FetchShardTaskDeps extends TaskDeps {
  services: ServiceFactory;
  /** Parent of the task's scratch folder. Default: the OS temp folder (`/tmp` on Lambda). */
  workDir?: string;
  /** Whole-shard attempts on an incomplete fetch. Default 3. */
  shardAttempts?: number;
}

/** The fetch-shard task: shard `shard` of the job's plan fetched in full and uploaded as its part. */
export function createFetchShardTask(deps: FetchShardTaskDeps): FetchShardTask {
  const { s3, bucket } = deps;
  return async ({ jobId, shard }) => {
    // Both reads at once: each is a round trip the Map's slot would otherwise wait for in turn.
    const [job, planned] = await Promise.all([loadJob(deps, jobId), loadPlan(deps, jobId)]);
    const target = planned.plan.shards[shard];
    if (target === undefined) throw new WorkFileError(KEYS.plan(jobId), `has no shard ${shard}`);
    const request = parseExportRequest(job.request);
    // A window joined by the finish travels as its piece alone: its part is read back here only,
    // so it is not compressed (nor uploaded, unless the window makes no piece).
    const joins = joinsWindows(request, planned.plan);
    const service = await deps.services(job.profile);
    const [fetched] = await runPipeline(
      request,
      {
        through: 'fetch',
        source: {
          kind: 'service',
          client: service.client,
          fields: service.fields,
          // The stored plan, narrowed to this task's shard.
          plan: plannedBefore({ ...planned, plan: { ...planned.plan, shards: [target] } }),
          // The part travels to the finish: kept compressed.
          fetch: fetchNow({
            concurrency: 1,
            ...(deps.shardAttempts !== undefined ? { shardAttempts: deps.shardAttempts } : {}),
            compressParts: !joins,
          }),
        },
        keep: async ([part], demo) => {
          if (part === undefined) throw new WorkFileError(KEYS.part(jobId, shard), 'nothing fetched');
          const kept =
            joins &&
            (await keepPiece({ s3, bucket, jobId }, shard, request, planned.plan, part, {
              demo,
              fields: service.fields,
              startedAt: planned.startedAt,
              workDir: dirname(part.partFile),
            }));
          // The part, for the finish to assemble, when the window made no piece.
          if (!kept) await uploadPart(s3, bucket, KEYS.part(jobId, shard), part, demo);
        },
      },
      { now: deps.now, ...(deps.workDir !== undefined ? { workDir: deps.workDir } : {}) },
    );
    if (fetched === undefined) throw new WorkFileError(KEYS.part(jobId, shard), 'nothing fetched');
    deps.metrics?.addMetric('ExportRows', 'Count', fetched.rows);
    return { jobId, shard, rows: fetched.rows, totalReported: fetched.totalReported };
  };
}

/**
 * The window's piece (assembled and rendered here, see `makeWindowPiece`) stored for the finish to
 * join; when this window cannot be joined, no piece (an earlier attempt's is removed). Whether one
 * was stored.
 */
async function keepPiece(
  at: PiecesAt,
  shard: number,
  request: ExportRequest,
  plan: ExportPlan,
  part: FetchedShard,
  deps: PieceDeps & { demo: boolean },
): Promise<boolean> {
  const piece = await makeWindowPiece(request, plan, part, deps);
  if (piece === null) {
    await deletePiece(at, shard);
    return false;
  }
  await uploadPiece(at, shard, await describePiece(piece, part, deps.demo));
  return true;
}
