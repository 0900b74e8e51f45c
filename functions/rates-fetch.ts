/** Daily schedule: the ECB's and HMRC's published rates files fetched and kept under `rates/` in the bucket. */
import { createRatesFetchHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createRatesFetchHandler(() => lambdaRuntime().ratesFetchContext());
