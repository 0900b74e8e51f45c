/**
 * The export state machine's workers (plan, fetch shard, finish, fail) and their task payloads.
 */
export { closeNoticeOf, createSnsCloseNotifier } from './close-notice.ts';
export { closeGuardedSink, monthlyCloseCheck } from './close-step.ts';
export { JobStateError, WorkFileError } from './errors.ts';
export {
  createSnsNotifier,
  type Notice,
  type Notifier,
  noticeOf,
  type SnsNotifierOptions,
  setPageUrl,
} from './notify.ts';
export { type RatedRequest, requireKeptRates, withKeptRates } from './rates.ts';
export { failureReason, MAX_REASON_LENGTH, redactSecrets } from './redact.ts';
export type { ProfileService, ServiceFactory } from './services.ts';
// The task payloads, each the state machine's input or output of one worker.
export * from './tasks.ts';
export { withProfileSlots } from './with-slots.ts';
export {
  createWorkers,
  executionEndReason,
  type StoredPlan,
  type WorkerDeps,
  type Workers,
} from './workers.ts';
