/** Export task 1: `ExportInput { jobId }` → `PlanOutput { jobId, shards }` (job → running, plan.json written). */
import type { Context } from 'aws-lambda';
import type { ExportInput, PlanOutput } from '../lib/workflow/contract.ts';
import { bindWorkers, type Lazy, type WorkerContext } from '../lib/workflow/handlers.ts';
import { lambdaRuntime } from '../lib/workflow/runtime.ts';

/** The plan handler over `context` (tests inject theirs). */
export function createPlanHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: ExportInput, lambdaContext?: Context): Promise<PlanOutput> =>
    run(event, lambdaContext, (workers) => workers.plan(event));
}

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createPlanHandler(() => lambdaRuntime().workerContext());
