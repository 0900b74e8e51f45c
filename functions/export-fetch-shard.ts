/**
 * Export task 2 (Map item): `FetchShardInput { jobId, shard }` → `FetchShardOutput` (the shard
 * fetched to /tmp, uploaded to `work/{jobId}/parts/{shard}.ndjson.gz`).
 */
import type { Context } from 'aws-lambda';
import type { FetchShardInput, FetchShardOutput } from '../lib/workflow/contract.ts';
import { bindWorkers, type Lazy, type WorkerContext } from '../lib/workflow/handlers.ts';
import { lambdaRuntime } from '../lib/workflow/runtime.ts';

/** The fetch-shard handler over `context` (tests inject theirs). */
export function createFetchShardHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: FetchShardInput, lambdaContext?: Context): Promise<FetchShardOutput> =>
    run(event, lambdaContext, (workers) => workers.fetchShard(event));
}

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createFetchShardHandler(() => lambdaRuntime().workerContext());
