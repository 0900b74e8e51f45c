/**
 * Stage 2, fetch: every shard of a plan paged through the service in full, each into a part
 * file of the scratch folder, checked complete (the service's total, or other listings whose
 * pages hold each page boundary of the first).
 */
export { confirmingPageSize } from './coverage.ts';
export { UnprovableShardError } from './errors.ts';
export * from './fetch.ts';
