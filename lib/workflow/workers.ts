/**
 * The export state machine's tasks: plan → fetch shard (one per Map item) → finish, or fail.
 * Each task reads what it needs from S3 (job record, plan, parts) and writes what the next task
 * reads, so the payloads stay ids and the tasks can run in separate Lambda invocations. Each task
 * is a file of its own (`plan-task.ts`, `fetch-shard-task.ts`, `finish-task.ts`, `fail-task.ts`),
 * so a function bundles only what its task runs; `createWorkers` puts the four together for a
 * process that runs them all (tests, the bench).
 */
import { createFailTask, type FailTaskDeps } from './fail-task.ts';
import { createFetchShardTask, type FetchShardTaskDeps } from './fetch-shard-task.ts';
import { createFinishTask, type FinishTaskDeps } from './finish-task.ts';
import { createPlanTask, type PlanTaskDeps } from './plan-task.ts';
import type { FailTask, FetchShardTask, FinishTask, PlanTask } from './tasks.ts';

export { executionEndReason } from './fail-task.ts';
export type { StoredPlan } from './task-deps.ts';

/** Everything the workers use; built once per process by the caller. */
export interface WorkerDeps extends PlanTaskDeps, FetchShardTaskDeps, FinishTaskDeps, FailTaskDeps {}

/** The four tasks of the export state machine. */
export interface Workers {
  plan: PlanTask;
  fetchShard: FetchShardTask;
  finish: FinishTask;
  fail: FailTask;
}

/** Builds the four tasks over their deps. */
export function createWorkers(deps: WorkerDeps): Workers {
  return {
    plan: createPlanTask(deps),
    fetchShard: createFetchShardTask(deps),
    finish: createFinishTask(deps),
    fail: createFailTask(deps),
  };
}
