/** What the export tasks share: their common deps, the job they work on, and the stored plan. */
import type { S3Client } from '@aws-sdk/client-s3';
import {
  type ExportPlan,
  type PlanJson,
  type PlannedRun,
  planFromJson,
  planToJson,
} from '../export/index.ts';
import {
  getJson,
  type JobObserver,
  type JobRecord,
  type JobStore,
  KEYS,
  type MetricsSink,
  putJson,
} from '../jobs/index.ts';
import { WorkFileError } from './errors.ts';

/** What every export task uses; built once per process by the caller. */
export interface TaskDeps {
  jobs: JobStore;
  s3: S3Client;
  bucket: string;
  now: () => Date;
  metrics?: MetricsSink;
  onJob?: JobObserver;
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

/** The job `jobId` (throws `JobNotFoundError`), told to `onJob` (the invocation's log keys). */
export async function loadJob(deps: Pick<TaskDeps, 'jobs' | 'onJob'>, jobId: string): Promise<JobRecord> {
  const job = await deps.jobs.require(jobId);
  deps.onJob?.(job);
  return job;
}

/** Stores the plan stage's result for the fetch-shard tasks and the finish. */
export async function storePlan(
  deps: Pick<TaskDeps, 's3' | 'bucket'>,
  jobId: string,
  planned: PlannedRun,
): Promise<void> {
  const stored: StoredPlan = {
    jobId,
    startedAt: planned.startedAt.toISOString(),
    plan: planToJson(planned.plan),
    ...(planned.demo === true ? { demo: true as const } : {}),
  };
  await putJson(deps.s3, deps.bucket, KEYS.plan(jobId), stored);
}

/** The plan task's result (`work/{jobId}/plan.json`); throws `WorkFileError` when it has not run. */
export async function loadPlan(
  deps: Pick<TaskDeps, 's3' | 'bucket'>,
  jobId: string,
): Promise<PlannedRun & { plan: ExportPlan; demo: boolean }> {
  const stored = await getJson<StoredPlan>(deps.s3, deps.bucket, KEYS.plan(jobId));
  if (stored === null) throw new WorkFileError(KEYS.plan(jobId), 'no plan: the plan task has not run');
  return {
    startedAt: new Date(stored.value.startedAt),
    plan: planFromJson(stored.value.plan),
    demo: stored.value.demo === true,
  };
}
