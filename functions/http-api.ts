/** Lambda of the HTTP API (API Gateway HTTP API, payload format 2.0): POST/GET /reports. */
import { createApiHandler, lambdaRuntime } from '../lib/lambda/index.ts';

/** Entry point: production defaults from the environment, built on the first invocation. */
export const handler = createApiHandler(() => lambdaRuntime().apiContext());
