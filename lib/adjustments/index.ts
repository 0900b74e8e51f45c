/**
 * The preparer's adjustments: a versioned per-profile document of corrections to what the service
 * sent (schema.ts), its store with every version kept (store.ts, s3-store.ts), its checks
 * (validate.ts), withdrawals (withdraw.ts), opening lots from a CSV (lots-csv.ts) and its application to the canonical
 * transactions before the gains engine (apply.ts). See README.md, "Resolving warnings".
 */
export {
  type AdjustmentAdapterOptions,
  type AdjustmentEffect,
  type AdjustmentsApplier,
  type ApplyOptions,
  createAdjustmentsApplier,
  PAIR_QUANTITY_TOLERANCE,
} from './apply.ts';
export {
  AdjustmentMismatchError,
  AdjustmentsDigestError,
  AdjustmentsError,
  AdjustmentsFileError,
  AdjustmentsNotFoundError,
  ContradictoryAdjustmentsError,
  InvalidAdjustmentsError,
  LotsCsvError,
  StaleAdjustmentsError,
  UnknownAdjustmentError,
  UnknownReferenceError,
} from './errors.ts';
export { HEADER_ALIASES, importLotsCsv } from './lots-csv.ts';
export { resolvingAdjustment } from './resolves.ts';
export { ADJUSTMENTS_PREFIX, createS3AdjustmentsStore, type S3AdjustmentsStoreOptions } from './s3-store.ts';
export * from './schema.ts';
export {
  type AdjustmentsStore,
  createFileAdjustmentsStore,
  type FileAdjustmentsStore,
  loadRequestedAdjustments,
  parseStoredVersion,
  versionName,
} from './store.ts';
export { createSuggester, proposalFromId, suggestionCell } from './suggest.ts';
export {
  type AdjustmentsReference,
  adjustmentsReference,
  checkContradictions,
  checkWithdrawals,
  type LoadedAdjustments,
  parseAdjustments,
  serializeAdjustments,
  sha256Of,
  validateAdjustments,
} from './validate.ts';
export { type WithdrawalBy, withdrawAdjustment, withdrawalOf } from './withdraw.ts';
