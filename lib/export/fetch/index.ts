/**
 * Stage 2, fetch: every shard of a plan paged through the service in full, each into a part
 * file of the scratch folder, checked complete (the service's total, or a second listing).
 */
export {
  type Completeness,
  checkWindowCoverage,
  DUPLICATES_CONFIRMED_BY,
  type FetchedShard,
  type FetchFilters,
  type FetchOptions,
  type FetchProgress,
  type FetchRun,
  type FetchShard,
  fetchShards,
  IncompleteShardError,
  IncompleteWindowError,
  InconsistentShardError,
  shardQuery,
  startFetch,
  type TransactionPageSource,
  UNTOTALLED_CONFIRMED_BY,
  UnconfirmedShardError,
} from './fetch.ts';
