/** Export catch task: `FailInput { jobId, error | executionStatus }` → `FailOutput` (job → failed, short reason). */
import { createFailHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createFailHandler(() => lambdaRuntime().workerContext());
