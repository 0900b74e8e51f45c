/**
 * The export state machine's tasks: plan → fetch shard (one per Map item) → finish, or fail.
 * Each task reads what it needs from S3 (job record, plan, parts) and writes what the next task
 * reads, so the payloads stay ids and the tasks can run in separate Lambda invocations.
 */

import { rm } from 'node:fs/promises';
import type { S3Client } from '@aws-sdk/client-s3';
import { createS3AdjustmentsStore, loadRequestedAdjustments } from '../adjustments/index.ts';
import type { ChangedAfterCloseNotice } from '../close/index.ts';
import { ValidationError } from '../errors.ts';
import {
  assembleExport,
  EXPORT_DEFAULTS,
  type ExportPlan,
  type ExportRequest,
  fetchShards,
  GENERATOR,
  type ManifestFile,
  newRunId,
  openRunScratch,
  type PlanJson,
  parseExportRequest,
  planExport,
  planFromJson,
  planToJson,
  publishReports,
  renderReports,
  runPrefix,
  servedDemoData,
} from '../export/index.ts';
import {
  getJson,
  type JobFile,
  type JobObserver,
  type JobRecord,
  type JobResult,
  type JobStore,
  KEYS,
  type MetricsSink,
  putJson,
} from '../jobs/index.ts';
import { closeGuardedSink, monthlyCloseCheck } from './close-step.ts';
import { JobStateError, WorkFileError } from './errors.ts';
import type { Notifier } from './notify.ts';
import { downloadParts, uploadPart } from './parts.ts';
import { requireKeptRates, withKeptRates } from './rates.ts';
import { failureReason } from './redact.ts';
import type { ServiceFactory } from './services.ts';
import {
  EXECUTION_END_STATUSES,
  type ExportInput,
  type FailInput,
  type FailOutput,
  type FetchShardInput,
  type FetchShardOutput,
  type FinishOutput,
  type PlanOutput,
} from './tasks.ts';

/** Everything the workers use; built once per process by the caller. */
export interface WorkerDeps {
  jobs: JobStore;
  s3: S3Client;
  bucket: string;
  services: ServiceFactory;
  now: () => Date;
  /** Parent of each task's scratch folder. Default: the OS temp folder (`/tmp` on Lambda). */
  workDir?: string;
  /** Whole-shard attempts on an incomplete fetch. Default 3. */
  shardAttempts?: number;
  metrics?: MetricsSink;
  onJob?: JobObserver;
  /** Tells the profile's subscribers that its export ended (`notify.ts`); never throws. */
  notify?: Notifier;
  /** Tells the profile's subscribers that a closed period changed (`close-step.ts`); never throws. */
  notifyClose?: (notice: ChangedAfterCloseNotice) => Promise<void>;
  /**
   * Whether the finish writes the PDF tax pack (see `renderReports`). Default false: the
   * functions' bundles ship no font files (pdfkit is a stand-in there); `serve` sets it.
   */
  taxPack?: boolean;
}

/** What `work/{jobId}/plan.json` holds. */
export interface StoredPlan {
  jobId: string;
  /** When the export started (the plan task), recorded in the snapshot and manifest. */
  startedAt: string;
  plan: PlanJson;
  /** The plan's answers came from the project's simulator: the run's files are demo data. */
  demo?: true;
}

/** The four tasks of the export state machine. */
export interface Workers {
  plan(input: ExportInput): Promise<PlanOutput>;
  fetchShard(input: FetchShardInput): Promise<FetchShardOutput>;
  finish(input: ExportInput): Promise<FinishOutput>;
  fail(input: FailInput): Promise<FailOutput>;
}

/** Builds the workers over their deps. */
export function createWorkers(deps: WorkerDeps): Workers {
  const { jobs, s3, bucket } = deps;

  const loadJob = async (jobId: string): Promise<JobRecord> => {
    const job = await jobs.require(jobId);
    deps.onJob?.(job);
    return job;
  };
  const loadPlan = async (jobId: string) => {
    const stored = await getJson<StoredPlan>(s3, bucket, KEYS.plan(jobId));
    if (stored === null) throw new WorkFileError(KEYS.plan(jobId), 'no plan: the plan task has not run');
    return {
      startedAt: new Date(stored.value.startedAt),
      plan: planFromJson(stored.value.plan),
      demo: stored.value.demo === true,
    };
  };
  const scratch = () => openRunScratch(deps);

  /**
   * Assembles the parts, renders and publishes the run (manifest last), then records what was
   * stored in the work area before anything else can fail: `work/{jobId}/published.json` holds
   * the run as soon as its set is in place, so a retried finish records that run instead of
   * publishing it again.
   */
  const publishRun = async (
    job: JobRecord,
    asked: ExportRequest,
    plan: ExportPlan,
    startedAt: Date,
    plannedOnDemoData: boolean,
  ): Promise<JobResult> => {
    // Tagged with the job, so a retried finish writes the same objects instead of a second set.
    const runId = newRunId(startedAt, job.jobId.slice(0, 6));
    const { request, rates } = await withKeptRates({ s3, bucket }, asked);
    const adjustments =
      request.adjustments === undefined
        ? undefined
        : await loadRequestedAdjustments(
            createS3AdjustmentsStore({ client: s3, bucket }),
            request.profile,
            request.adjustments,
          );
    const service = await deps.services(job.profile);
    const workDir = await scratch();
    try {
      const parts = downloadParts({
        s3,
        bucket,
        jobId: job.jobId,
        shards: plan.shards,
        dir: workDir,
        concurrency: EXPORT_DEFAULTS.concurrency,
      });
      // Demo data when any task had an answer from the simulator (see `pbs/demo-data.ts`). Known
      // before the parts when planning or this task had one; otherwise the parts' metadata says it,
      // read by the snapshot's header once every part is in. A workbook's print header needs it
      // at the start: then the parts are all downloaded first (the rare case that would differ).
      let demo = plannedOnDemoData || servedDemoData(service.client);
      // Registered before the assembly's own wait for every part, so it runs first; a failed
      // download reaches the assembly through its part instead.
      const demoOfParts = parts.done.then(
        (fetched) => {
          demo ||= fetched.some((part) => part.demo);
        },
        () => {},
      );
      if (!demo && request.formats.includes('xlsx')) await demoOfParts;
      const assembled = await assembleExport(request, plan, parts, {
        client: service.client,
        fields: service.fields,
        apiBase: service.apiBase,
        startedAt,
        workDir,
        get demo() {
          return demo;
        },
        ...(rates ? { rates } : {}),
        ...(adjustments ? { adjustments } : {}),
      });
      const rendered = await renderReports({
        ...assembled,
        runId,
        now: deps.now,
        generator: GENERATOR,
        workDir,
        taxPack: deps.taxPack === true,
      });
      const prefix = runPrefix(request, runId);
      const closeCheck = await monthlyCloseCheck(job, {
        s3,
        bucket,
        service,
        now: deps.now,
        ...optionalDeps(deps),
      });
      const described =
        closeCheck === null
          ? rendered
          : { ...rendered, description: { ...rendered.description, closeCheck } };
      const published = await publishReports(described, {
        sink: closeGuardedSink(s3, bucket),
        prefix,
        now: deps.now,
      });
      const publication: JobResult = { runId, prefix, files: published.files.map(jobFile) };
      await putJson(s3, bucket, KEYS.published(job.jobId), publication);
      return publication;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };

  return {
    async plan({ jobId }) {
      const job = await loadJob(jobId);
      if (job.state === 'succeeded') throw new JobStateError(jobId, 'already succeeded');
      const request = parseExportRequest(job.request);
      // A job asking for rates the bucket does not keep fails here, before anything is fetched.
      await requireKeptRates({ s3, bucket }, request);
      const service = await deps.services(job.profile);
      const plan = await planExport(request, service.client);
      const stored: StoredPlan = {
        jobId,
        startedAt: deps.now().toISOString(),
        plan: planToJson(plan),
        ...(servedDemoData(service.client) ? { demo: true as const } : {}),
      };
      await putJson(s3, bucket, KEYS.plan(jobId), stored);
      await jobs.update(jobId, (current) =>
        current.state === 'running'
          ? current
          : { ...current, state: 'running', updatedAt: deps.now().toISOString() },
      );
      return { jobId, shards: plan.shards.map((_, index) => index) };
    },

    async fetchShard({ jobId, shard }) {
      // Both reads at once: each is a round trip the Map's slot would otherwise wait for in turn.
      const [job, { plan }] = await Promise.all([loadJob(jobId), loadPlan(jobId)]);
      const target = plan.shards[shard];
      if (target === undefined) throw new WorkFileError(KEYS.plan(jobId), `has no shard ${shard}`);
      const request = parseExportRequest(job.request);
      const service = await deps.services(job.profile);
      const dir = await scratch();
      try {
        const [fetched] = await fetchShards(service.client, [target], request.filters, {
          workDir: dir,
          concurrency: 1,
          shardAttempts: deps.shardAttempts ?? EXPORT_DEFAULTS.shardAttempts,
          fields: service.fields,
          protocolField: service.fields.protocol,
        });
        if (fetched === undefined) throw new WorkFileError(KEYS.part(jobId, shard), 'nothing fetched');
        await uploadPart(s3, bucket, KEYS.part(jobId, shard), fetched, servedDemoData(service.client));
        deps.metrics?.addMetric('ExportRows', 'Count', fetched.rows);
        return { jobId, shard, rows: fetched.rows, totalReported: fetched.totalReported };
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },

    async finish({ jobId }) {
      // The plan and the publication are read while the job is: three round trips at once. Both
      // are used only once the job is found unfinished (a finished job's work area may be gone).
      const reads = Promise.all([loadPlan(jobId), getJson<JobResult>(s3, bucket, KEYS.published(jobId))]);
      reads.catch(() => {});
      const job = await loadJob(jobId);
      if (job.state === 'succeeded' && job.result) {
        return { jobId, state: 'succeeded', files: job.result.files.length };
      }
      const request = parseExportRequest(job.request);
      // A finish that published everything but could not record it (the job update failed, the
      // invocation ended) is retried: its publication, written once the set was in place, is
      // recorded as it is instead of rewritten under a manifest that would describe it meanwhile.
      const [{ startedAt, plan, demo }, published] = await reads;
      const outcome = published?.value ?? (await publishRun(job, request, plan, startedAt, demo));
      const finishedAt = deps.now();
      const finished = await jobs.update(jobId, (current) => ({
        ...current,
        state: 'succeeded',
        updatedAt: finishedAt.toISOString(),
        result: outcome,
      }));
      deps.metrics?.addMetric('ExportBytes', 'Bytes', sum(outcome.files.map((file) => file.bytes)));
      deps.metrics?.addMetric('ExportDuration', 'Milliseconds', finishedAt.getTime() - startedAt.getTime());
      deps.metrics?.addMetric('ExportsSucceeded', 'Count', 1);
      await deps.notify?.(finished);
      return { jobId, state: 'succeeded', files: outcome.files.length };
    },

    async fail({ jobId, error, executionStatus }) {
      // From the execution-end rule, the state machine's own catch may have marked the job already
      // (with the precise reason, kept) or the job may have ended otherwise: only a job still
      // queued or running is marked, so a repeated or late event changes nothing.
      const ended = executionStatus !== undefined;
      const reason = ended ? executionEndReason(executionStatus) : failureReason(error);
      if (!ended) deps.metrics?.addMetric('ExportFailures', 'Count', 1);
      const job = await jobs.get(jobId);
      if (job === null) return { jobId, state: 'failed' };
      deps.onJob?.(job);
      let marked = false;
      const updated = await jobs.update(jobId, (current) => {
        if (current.state === 'succeeded' || (ended && current.state === 'failed')) return current;
        marked = true;
        return { ...current, state: 'failed', reason, updatedAt: deps.now().toISOString() };
      });
      if (ended && marked) deps.metrics?.addMetric('ExportFailures', 'Count', 1);
      if (marked) await deps.notify?.(updated);
      return { jobId, state: 'failed' };
    },
  };
}

/**
 * The reason recorded for an execution that ended without its catch running: in words, since
 * Step Functions' event carries no error for a timeout or an abort.
 */
export function executionEndReason(status: string): string {
  if (!(EXECUTION_END_STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError('executionStatus', `expected one of ${EXECUTION_END_STATUSES.join(', ')}`);
  }
  if (status === 'TIMED_OUT') {
    return 'ExecutionTimedOut: the export ran longer than the state machine allows and was stopped; a smaller period or fewer filters per request may finish in time';
  }
  if (status === 'ABORTED') {
    return 'ExecutionAborted: the export was stopped (its execution aborted) before it ended';
  }
  return 'ExecutionFailed: the export execution failed before it could record why (see the execution of this job in Step Functions)';
}

/** The optional deps of the monthly close check, left out when absent. */
function optionalDeps(deps: WorkerDeps) {
  return {
    ...(deps.workDir !== undefined ? { workDir: deps.workDir } : {}),
    ...(deps.notifyClose ? { notifyClose: deps.notifyClose } : {}),
  };
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
