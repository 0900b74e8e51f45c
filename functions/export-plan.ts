/** Export task 1: `ExportInput { jobId }` → `PlanOutput { jobId, shards }` (job → running, plan.json written). */
import { createPlanHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createPlanHandler(() => lambdaRuntime().workerContext());
