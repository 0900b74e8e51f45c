/**
 * The plan task (`functions/export-plan.ts`): the pipeline's plan stage for a queued job, its
 * result stored in `work/{jobId}/plan.json` for the fetch-shard tasks and the finish.
 */
import { parseExportRequest, planNow, servedDemoData } from '../export/index.ts';
import { JobStateError } from './errors.ts';
import { requireKeptRates } from './rates.ts';
import type { ServiceFactory } from './services.ts';
import { loadJob, storePlan, type TaskDeps } from './task-deps.ts';
import type { PlanTask } from './tasks.ts';

/** What the plan task uses. */
export interface PlanTaskDeps extends TaskDeps {
  services: ServiceFactory;
}

/** The plan task: job → running, the plan stored, one Map item per shard. */
export function createPlanTask(deps: PlanTaskDeps): PlanTask {
  const { jobs, s3, bucket } = deps;
  return async ({ jobId }) => {
    const job = await loadJob(deps, jobId);
    if (job.state === 'succeeded') throw new JobStateError(jobId, 'already succeeded');
    const request = parseExportRequest(job.request);
    // A job asking for rates the bucket does not keep fails here, before anything is fetched.
    await requireKeptRates({ s3, bucket }, request);
    const service = await deps.services(job.profile);
    const planned = await planNow(deps.now)(request, service.client);
    await storePlan(deps, jobId, { ...planned, demo: servedDemoData(service.client) });
    await jobs.update(jobId, (current) =>
      current.state === 'running'
        ? current
        : { ...current, state: 'running', updatedAt: deps.now().toISOString() },
    );
    return { jobId, shards: planned.plan.shards.map((_, index) => index) };
  };
}
