/**
 * Item processor of the monthly Distributed Map: `MonthlyItem { profile, scheduledTime }` →
 * `MonthlyItemOutput { jobId, created }`. Exports the profile's previous local month, once.
 */
import { bindMonthly, type Lazy, type MonthlyContext } from '../lib/workflow/handlers.ts';
import { lambdaRuntime } from '../lib/workflow/runtime.ts';

/** The monthly item handler over `context` (tests inject theirs). */
export const createMonthlyStartHandler = (context: Lazy<MonthlyContext>) => bindMonthly(context);

/** Entry point: production defaults from the environment, built on the first item. */
export const handler = createMonthlyStartHandler(() => lambdaRuntime().monthlyContext());
