/** Export catch task: `FailInput { jobId, error: { Error, Cause } }` → `FailOutput` (job → failed, short reason). */
import type { Context } from 'aws-lambda';
import type { FailInput, FailOutput } from '../lib/workflow/contract.ts';
import { bindWorkers, type Lazy, type WorkerContext } from '../lib/workflow/handlers.ts';
import { lambdaRuntime } from '../lib/workflow/runtime.ts';

/** The fail handler over `context` (tests inject theirs). */
export function createFailHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: FailInput, lambdaContext?: Context): Promise<FailOutput> =>
    run(event, lambdaContext, (workers) => workers.fail(event));
}

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createFailHandler(() => lambdaRuntime().workerContext());
