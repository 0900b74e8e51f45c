/**
 * Closed periods and restatements: close records beside the sets (append-only; a reopen is a
 * record of its own), the guard every path that writes or deletes a set goes through, the changes
 * the service's timeline shows in closed periods, and the restatement computed from the closed
 * and the corrected snapshot alone (files like every report; adjusting entries from two journals).
 */
export { type AdjustingOptions, adjustingEntries } from './adjusting.ts';
export {
  type ChangedAfterCloseNotice,
  type CheckDeps,
  type CloseCheckResult,
  checkCloses,
  restatementPrefix,
} from './check.ts';
export { type CloseDeps, type CloseInput, closePeriod, reopenPeriod } from './close.ts';
export { closedPeriodBefore } from './closed-before.ts';
export { type ClosedSet, readClosedSet } from './closed-set.ts';
export { type CorrectedHeaderInfo, writeCorrectedSnapshot } from './corrected.ts';
export {
  type DetectDeps,
  detectChanges,
  type FieldChange,
  type PeriodCheck,
  type TransactionChange,
} from './detect.ts';
export {
  CloseDataError,
  CloseRecordTakenError,
  closeInWords,
  PeriodAlreadyClosedError,
  PeriodNotClosedError,
  RestatementPlaceTakenError,
  RunNotFoundError,
  SetClosedError,
} from './errors.ts';
export {
  changesTable,
  effectsTable,
  publishRestatement,
  RESTATEMENT_FORMAT,
  type RestatementManifest,
  renderRestatement,
  restatementReadme,
} from './files.ts';
export { assertNotClosed, guardSink, openCloses } from './guard.ts';
export {
  CLOSE_FORMAT,
  CLOSES_PREFIX,
  type CloseRecord,
  checkCloseTarget,
  closeCovering,
  closeKey,
  closePeriodLabel,
  closeRecordSchema,
  closesInForce,
  type PeriodState,
  periodStates,
  setPrefix,
} from './records.ts';
export { buildRestatement, type Effect, type Restatement } from './restatement.ts';
export {
  CLAIM_LEASE_MS,
  RESTATEMENT_RECORD_FORMAT,
  type RestatementRecord,
  recordKey,
  recordsFolder,
} from './restatement-records.ts';
export { DEFAULT_LOCK_DAYS, governanceLock, objectLockEnabled } from './s3-lock.ts';
export { type CloseStore, createLocalCloseStore, createS3CloseStore } from './store.ts';
export { periodWords, restatementSentence, signedAmount, signedMoney } from './words.ts';
