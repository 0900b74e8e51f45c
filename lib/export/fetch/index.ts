/**
 * Stage 2, fetch: every shard of a plan paged through the service in full, each into a part
 * file of the scratch folder, checked complete (the service's total, or a second listing).
 */
export * from './fetch.ts';
