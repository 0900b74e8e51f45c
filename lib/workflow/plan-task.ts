/**
 * The plan task (`functions/export-plan.ts`): the pipeline (`runPipeline`) through its plan stage
 * for a queued job, the kept rates checked first; the planned run stored in `work/{jobId}/plan.json`
 * for the fetch-shard tasks and the finish.
 */
import { type InputsStage, parseExportRequest, planNow, runPipeline } from '../export/index.ts';
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
  /** Stage 0 of the plan task: a job asking for rates the bucket does not keep fails before anything is fetched. */
  const keptRatesRequired: InputsStage = async (request) => {
    await requireKeptRates({ s3, bucket }, request);
    return { request };
  };
  return async ({ jobId }) => {
    const job = await loadJob(deps, jobId);
    if (job.state === 'succeeded') throw new JobStateError(jobId, 'already succeeded');
    const request = parseExportRequest(job.request);
    const service = await deps.services(job.profile);
    const planned = await runPipeline(
      request,
      {
        through: 'plan',
        inputs: keptRatesRequired,
        source: { kind: 'service', client: service.client, plan: planNow(deps.now) },
      },
      { now: deps.now },
    );
    await storePlan(deps, jobId, planned);
    await jobs.update(jobId, (current) =>
      current.state === 'running'
        ? current
        : { ...current, state: 'running', updatedAt: deps.now().toISOString() },
    );
    return { jobId, shards: planned.plan.shards.map((_, index) => index) };
  };
}
