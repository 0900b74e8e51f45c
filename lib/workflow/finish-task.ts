/**
 * The finish task (`functions/export-finish.ts`): the pipeline (`runPipeline`, docs/pipeline.md)
 * from the plan the plan task stored and the parts the fetch-shard tasks stored, with the rates
 * and adjustments kept in the bucket, the monthly close check, and the bucket's close-guarded
 * sink; then the publication recorded and the job succeeded.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3AdjustmentsStore, loadRequestedAdjustments } from '../adjustments/index.ts';
import { type ChangedAfterCloseNotice, closedPeriodBefore, createS3CloseStore } from '../close/index.ts';
import {
  EXPORT_DEFAULTS,
  type ExportRequest,
  type FetchStage,
  type InputsStage,
  type JoinStage,
  joinsWindows,
  joinWindowPieces,
  type ManifestFile,
  newRunId,
  type PlannedRun,
  PUBLISHING,
  parseExportRequest,
  pieceAsPart,
  plannedBefore,
  runPipeline,
} from '../export/index.ts';
import {
  getJson,
  type JobFile,
  type JobRecord,
  type JobResult,
  jobReconciliation,
  KEYS,
  putJson,
} from '../jobs/index.ts';
import { findPreviousSet, type ManifestSigner, s3SetStore } from '../proof/index.ts';
import { closeGuardedSink, monthlyCloseCheck } from './close-step.ts';
import type { Notifier } from './notify.ts';
import { downloadParts } from './parts.ts';
import { downloadPiece, downloadPieces, listPieces } from './pieces.ts';
import { withKeptRates } from './rates.ts';
import type { ProfileService, ServiceFactory } from './services.ts';
import { loadJob, loadPlan, type TaskDeps } from './task-deps.ts';
import type { FinishTask } from './tasks.ts';

/** What the finish task uses. */
export interface FinishTaskDeps extends TaskDeps {
  services: ServiceFactory;
  /** Parent of the task's scratch folder. Default: the OS temp folder (`/tmp` on Lambda). */
  workDir?: string;
  /** Tells the profile's subscribers that its export ended (`notify.ts`); never throws. */
  notify?: Notifier;
  /** Tells the profile's subscribers that a closed period changed (`close-step.ts`); never throws. */
  notifyClose?: (notice: ChangedAfterCloseNotice) => Promise<void>;
  /**
   * Whether the finish writes the PDF tax pack (see `renderReports`). Default true: the finish
   * function ships the font files beside its bundle (`infra/bundling.ts`).
   */
  taxPack?: boolean;
  /**
   * Signs each manifest (README: Proof): the stack's KMS key. Asked once per published set;
   * absent, the sets are not signed.
   */
  signer?: () => Promise<ManifestSigner>;
}

/** The finish task: the run published (or the one a failed attempt published, recorded), the job succeeded. */
export function createFinishTask(deps: FinishTaskDeps): FinishTask {
  const { jobs, s3, bucket } = deps;
  return async ({ jobId }) => {
    // The plan and the publication are read while the job is: three round trips at once. Both
    // are used only once the job is found unfinished (a finished job's work area may be gone).
    const reads = Promise.all([loadPlan(deps, jobId), getJson<JobResult>(s3, bucket, KEYS.published(jobId))]);
    reads.catch(() => {});
    const job = await loadJob(deps, jobId);
    if (job.state === 'succeeded' && job.result) {
      return { jobId, state: 'succeeded', files: job.result.files.length };
    }
    const request = parseExportRequest(job.request);
    // A finish that published everything but could not record it (the job update failed, the
    // invocation ended) is retried: its publication, written once the set was in place, is
    // recorded as it is instead of rewritten under a manifest that would describe it meanwhile.
    const [planned, published] = await reads;
    const outcome = published?.value ?? (await publishRun(deps, job, request, planned));
    const finishedAt = deps.now();
    const finished = await jobs.update(jobId, (current) => ({
      ...current,
      state: 'succeeded',
      updatedAt: finishedAt.toISOString(),
      result: outcome,
    }));
    deps.metrics?.addMetric('ExportBytes', 'Bytes', sum(outcome.files.map((file) => file.bytes)));
    deps.metrics?.addMetric(
      'ExportDuration',
      'Milliseconds',
      finishedAt.getTime() - planned.startedAt.getTime(),
    );
    deps.metrics?.addMetric('ExportsSucceeded', 'Count', 1);
    await deps.notify?.(finished);
    return { jobId, state: 'succeeded', files: outcome.files.length };
  };
}

/**
 * Runs the pipeline from the stored plan and parts (manifest last), then records what was stored
 * in the work area before anything else can fail: `work/{jobId}/published.json` holds the run as
 * soon as its set is in place, so a retried finish records that run instead of publishing it again.
 */
async function publishRun(
  deps: FinishTaskDeps,
  job: JobRecord,
  request: ExportRequest,
  planned: PlannedRun,
): Promise<JobResult> {
  const { s3, bucket } = deps;
  const service = await deps.services(job.profile);
  const result = await runPipeline(
    request,
    {
      inputs: keptInputs(s3, bucket),
      source: {
        kind: 'service',
        client: service.client,
        fields: service.fields,
        apiBase: service.apiBase,
        plan: plannedBefore(planned),
        fetch: downloadedParts(s3, bucket, job.jobId, service),
        join: joinedPieces(s3, bucket, job.jobId, service),
      },
      describe: () => closeCheckOf(deps, job, service),
      sink: closeGuardedSink(s3, bucket),
      previous: (asked, start) => findPreviousSet(s3SetStore(s3, bucket), asked.profile, start),
      closedPrevious: (asked, start) =>
        closedPeriodBefore(createS3CloseStore({ client: s3, bucket }), asked.profile, start),
      publishing: PUBLISHING,
    },
    {
      now: deps.now,
      // Tagged with the job, so a retried finish writes the same objects instead of a second set.
      runId: newRunId(planned.startedAt, job.jobId.slice(0, 6)),
      taxPack: deps.taxPack !== false,
      ...(deps.workDir !== undefined ? { workDir: deps.workDir } : {}),
      ...(deps.signer ? { signer: await deps.signer() } : {}),
    },
  );
  const reconciliation = jobReconciliation(result.manifest);
  const publication: JobResult = {
    runId: result.runId,
    prefix: result.prefix,
    files: result.files.map(jobFile),
    ...(reconciliation === undefined ? {} : { reconciliation }),
  };
  await putJson(s3, bucket, KEYS.published(job.jobId), publication);
  return publication;
}

/**
 * Stage 0 on AWS: `gains.rates` from the rates files the bucket keeps (`withKeptRates`), the
 * adjustments the request names from the bucket's adjustments store.
 */
function keptInputs(s3: S3Client, bucket: string): InputsStage {
  return async (asked) => {
    const { request, rates } = await withKeptRates({ s3, bucket }, asked);
    const adjustments =
      request.adjustments === undefined
        ? undefined
        : await loadRequestedAdjustments(
            createS3AdjustmentsStore({ client: s3, bucket }),
            request.profile,
            request.adjustments,
          );
    return { request, ...(rates ? { rates } : {}), ...(adjustments ? { adjustments } : {}) };
  };
}

/**
 * Stage 2 on AWS: the parts the fetch-shard tasks stored, downloaded in plan order while the
 * windows are assembled; each says whether its answers were demo data. A task that stored its
 * window's piece stored no part: its part is made of the piece (`pieceAsPart`).
 */
function downloadedParts(s3: S3Client, bucket: string, jobId: string, service: ProfileService): FetchStage {
  return (plan, { request, workDir }) => {
    const at = { s3, bucket, jobId };
    const pieces = joinsWindows(request, plan) ? listPieces(at) : Promise.resolve(new Set<number>());
    pieces.catch(() => {});
    const parts = downloadParts({
      s3,
      bucket,
      jobId,
      shards: plan.shards,
      dir: workDir,
      concurrency: EXPORT_DEFAULTS.concurrency,
      madeOtherwise: async (index, shard) => {
        if (!(await pieces).has(index)) return undefined;
        const piece = await downloadPiece(at, index, workDir);
        const part = await pieceAsPart(piece, shard, service.fields, workDir);
        return { ...part, demo: piece.description.demo };
      },
    });
    let demo = false;
    // Registered before the assembly takes any part, so each part has said it by the time it is assembled.
    for (const index of plan.shards.keys()) {
      parts.shard(index).then(
        (part) => {
          demo ||= part.demo;
        },
        () => {},
      );
    }
    return { run: parts, demo: () => demo };
  };
}

/**
 * Stage 3 on AWS, when every shard's task stored its window's piece: the pieces joined
 * (`joinWindowPieces`) instead of the parts assembled; null (the parts are) otherwise.
 */
function joinedPieces(s3: S3Client, bucket: string, jobId: string, service: ProfileService): JoinStage {
  return async (request, plan, context) => {
    if (!joinsWindows(request, plan)) return null;
    const at = { s3, bucket, jobId };
    if ((await listPieces(at)).size !== plan.shards.length) return null;
    const pieces = await downloadPieces(at, plan.shards.length, context.workDir, EXPORT_DEFAULTS.concurrency);
    pieces.sort((a, b) => a.description.window - b.description.window);
    return joinWindowPieces(request, plan, pieces, {
      fields: service.fields,
      apiBase: service.apiBase,
      startedAt: context.startedAt,
      workDir: context.workDir,
      demo: context.demo,
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
    });
  };
}

/** The monthly close check's line of the manifest (`closeCheck`), for a scheduled job. */
async function closeCheckOf(
  deps: FinishTaskDeps,
  job: JobRecord,
  service: ProfileService,
): Promise<{ closeCheck: string } | null> {
  const closeCheck = await monthlyCloseCheck(job, {
    s3: deps.s3,
    bucket: deps.bucket,
    service,
    now: deps.now,
    ...(deps.workDir !== undefined ? { workDir: deps.workDir } : {}),
    ...(deps.notifyClose ? { notifyClose: deps.notifyClose } : {}),
  });
  return closeCheck === null ? null : { closeCheck };
}

/** A manifest's file as the job lists it. */
function jobFile(file: ManifestFile): JobFile {
  return {
    name: file.name,
    key: file.key,
    bytes: file.bytes,
    sha256: file.sha256,
    ...(file.rows !== undefined ? { rows: file.rows } : {}),
  };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
