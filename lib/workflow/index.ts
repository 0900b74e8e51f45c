/**
 * The export state machine's workers (plan, fetch shard, finish, fail: one file each) and their
 * task payloads.
 */
export { closeNoticeOf, createSnsCloseNotifier } from './close-notice.ts';
export { closeGuardedSink, monthlyCloseCheck } from './close-step.ts';
export { JobStateError, WorkFileError } from './errors.ts';
export { createFailTask, executionEndReason, type FailTaskDeps } from './fail-task.ts';
export { createFetchShardTask, type FetchShardTaskDeps } from './fetch-shard-task.ts';
export { createFinishTask, type FinishTaskDeps } from './finish-task.ts';
export {
  createSnsNotifier,
  type Notice,
  type Notifier,
  noticeOf,
  type SnsNotifierOptions,
  setPageUrl,
} from './notify.ts';
// One file per task: a process that runs one task (a Lambda function) loads only what it runs.
export { createPlanTask, type PlanTaskDeps } from './plan-task.ts';
export { type RatedRequest, requireKeptRates, withKeptRates } from './rates.ts';
export { failureReason, MAX_REASON_LENGTH, redactSecrets } from './redact.ts';
export type { ProfileService, ServiceFactory } from './services.ts';
export type { StoredPlan, TaskDeps } from './task-deps.ts';
// The task payloads, each the state machine's input or output of one worker.
export * from './tasks.ts';
export {
  failReleasingSlot,
  fetchShardHoldingSlot,
  finishHoldingSlot,
  planHoldingSlot,
  type SlotDeps,
  withProfileSlots,
} from './with-slots.ts';
export { createWorkers, type WorkerDeps, type Workers } from './workers.ts';
