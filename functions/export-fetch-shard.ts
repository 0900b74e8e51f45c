/** Export task 2 (Map item): `FetchShardInput { jobId, shard }` → `FetchShardOutput` (a part in S3). */
import { createFetchShardHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createFetchShardHandler(() => lambdaRuntime().workerContext());
