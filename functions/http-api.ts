/** Lambda of the HTTP API (API Gateway HTTP API, payload format 2.0): POST/GET /reports. */
import { type ApiContext, bindApi, type Lazy } from '../lib/workflow/handlers.ts';
import { lambdaRuntime } from '../lib/workflow/runtime.ts';

/** The API handler over `context` (tests inject theirs). */
export const createApiHandler = (context: Lazy<ApiContext>) => bindApi(context);

/** Entry point: production defaults from the environment, built on the first request. */
export const handler = createApiHandler(() => lambdaRuntime().apiContext());
