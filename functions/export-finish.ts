/** Export task 3: `ExportInput { jobId }` → `FinishOutput` (reports and manifest published, job → succeeded). */
import { createFinishHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createFinishHandler(() => lambdaRuntime().workerContext());
