/**
 * Jobs: the job records in S3 (conditional writes), the registered profiles, the per-key slots
 * and their queues (one running export per API key), starting and queueing an export, and the
 * monthly start. Used by the HTTP API, the workflow's workers and the Lambda wiring.
 */
export {
  IdempotencyKeyReusedError,
  InvalidCursorError,
  JobConflictError,
  JobNotFoundError,
  LocalPreconditionFailedError,
  ProfileBusyError,
  StartFailedError,
  UnknownProfileError,
} from './errors.ts';
export { jobReconciliation } from './job-reconciliation.ts';
export { addConditionalWrites, checkWriteCondition } from './local-s3.ts';
export { type MonthlyDeps, previousLocalMonth, scheduleKey, startMonthlyExport } from './monthly.ts';
export {
  createProfileSlots,
  DEFAULT_QUEUE_STALE_SECONDS,
  DEFAULT_SLOT_LEASE_SECONDS,
  type ProfileSlots,
  type ProfileSlotsOptions,
  type QueueEntry,
  type SlotLease,
  slotKey,
} from './profile-slots.ts';
export {
  type ExportInput,
  type JobFile,
  type JobObserver,
  type JobReconciliation,
  type JobRecord,
  type JobResult,
  type JobState,
  jobIdFor,
  jobKeyAt,
  KEYS,
  type MetricsSink,
  type MetricUnitName,
  type MonthlyItem,
  type MonthlyItemOutput,
  type ProfileRegistry,
  type RegisteredProfile,
  type ServiceSecret,
} from './records.ts';
export { lookupProfile, monthlyProfiles, parseProfileRegistry } from './registry.ts';
export {
  getJson,
  isLostRace,
  isNotFound,
  isPreconditionFailed,
  putJson,
  type VersionedJson,
} from './s3-objects.ts';
export {
  createSfnStarter,
  type ExecutionStarter,
  QUEUED_START_GRACE_MS,
  type SfnStarterOptions,
  type StartDeps,
  type StartOptions,
  startJob,
} from './start.ts';
export {
  type CreateResult,
  createJobStore,
  JOB_CURSOR,
  JOB_ID,
  type JobPage,
  type JobStore,
  type JobStoreOptions,
} from './store.ts';
