/**
 * Export task 3: `ExportInput { jobId }` → `FinishOutput` (parts assembled, reports and manifest
 * published under `reports/…`, job → succeeded with its files).
 */
import type { Context } from 'aws-lambda';
import type { ExportInput, FinishOutput } from '../lib/workflow/contract.ts';
import { bindWorkers, type Lazy, type WorkerContext } from '../lib/workflow/handlers.ts';
import { lambdaRuntime } from '../lib/workflow/runtime.ts';

/** The finish handler over `context` (tests inject theirs). */
export function createFinishHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: ExportInput, lambdaContext?: Context): Promise<FinishOutput> =>
    run(event, lambdaContext, (workers) => workers.finish(event));
}

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createFinishHandler(() => lambdaRuntime().workerContext());
