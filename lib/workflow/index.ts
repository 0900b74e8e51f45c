/**
 * The export state machine's workers (plan, fetch shard, finish, fail) and their task payloads.
 */
export { JobStateError, WorkFileError } from './errors.ts';
export {
  createSnsNotifier,
  type Notice,
  type Notifier,
  noticeOf,
  type SnsNotifierOptions,
  setPageUrl,
} from './notify.ts';
export { failureReason, MAX_REASON_LENGTH, redactSecrets } from './redact.ts';
export type { ProfileService, ServiceFactory } from './services.ts';
export {
  EXECUTION_END_STATUSES,
  type ExecutionEndedInput,
  type ExportInput,
  type FailInput,
  type FailOutput,
  type FetchShardInput,
  type FetchShardOutput,
  type FinishOutput,
  type PlanOutput,
} from './tasks.ts';
export { withProfileSlots } from './with-slots.ts';
export {
  createWorkers,
  executionEndReason,
  type StoredPlan,
  type WorkerDeps,
  type Workers,
} from './workers.ts';
