/** Item processor of the monthly Map: `MonthlyItem { profile, scheduledTime }` → `MonthlyItemOutput { jobId, created }`. */
import { createMonthlyStartHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createMonthlyStartHandler(() => lambdaRuntime().monthlyContext());
