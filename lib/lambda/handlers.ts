/**
 * The handlers of the Lambda entry points (`functions/`): each over its context (deps plus
 * observability), built lazily on the first invocation so that importing a handler has no side
 * effect, and run on Middy with Powertools' middlewares (`observability.ts`).
 */

import type { OpenAPIHono } from '@hono/zod-openapi';
import { handle, type LambdaEvent } from 'hono/aws-lambda';
import { ValidationError } from '../errors.ts';
import {
  type ApiDeps,
  type ApiEvent,
  type ApiResult,
  createApi,
  type FetchHandler,
} from '../http-api/index.ts';
import {
  JOB_ID,
  type JobObserver,
  type MonthlyDeps,
  type MonthlyItem,
  type MonthlyItemOutput,
  type ProfileSlots,
  startMonthlyExport,
} from '../jobs/index.ts';
import {
  createFailTask,
  createFetchShardTask,
  createFinishTask,
  createPlanTask,
  failReleasingSlot,
  fetchShardHoldingSlot,
  finishHoldingSlot,
  planHoldingSlot,
  type WorkerDeps,
} from '../workflow/index.ts';
import {
  appendJobKeys,
  type InvocationKeys,
  type LambdaHandler,
  type Observability,
  withObservability,
} from './observability.ts';

/** A value, or a function building it on first use. */
export type Lazy<T> = T | (() => T);

/** Memoises a lazy value: built once, on the first call. */
export function memo<T>(value: Lazy<T>): () => T {
  let built: { value: T } | undefined;
  return () => {
    built ??= { value: typeof value === 'function' ? (value as () => T)() : value };
    return built.value;
  };
}

/** Deps of the export workers' handlers. */
export interface WorkerContext extends Omit<WorkerDeps, 'metrics' | 'onJob'> {
  obs: Observability;
  /** One running export per secret (deployed: always; see `profile-slots.ts`). */
  slots?: ProfileSlots;
}

/** Deps of the HTTP API handler. */
export interface ApiContext extends Omit<ApiDeps, 'metrics' | 'onJob' | 'onError'> {
  obs: Observability;
}

/** Deps of the monthly item handler. */
export interface MonthlyContext extends Omit<MonthlyDeps, 'metrics' | 'onJob'> {
  obs: Observability;
}

/** Checks a task payload's `jobId`; throws `ValidationError`. */
export function requireJobId(event: unknown): string {
  const jobId = (event as { jobId?: unknown } | null)?.jobId;
  if (typeof jobId !== 'string' || !JOB_ID.test(jobId)) {
    throw new ValidationError('jobId', 'expected 32 lowercase hex characters');
  }
  return jobId;
}

/** The `jobId` of a task payload, if it has one (for the log keys, before validation). */
function jobIdOf(event: unknown): InvocationKeys {
  const jobId = (event as { jobId?: unknown } | null)?.jobId;
  return typeof jobId === 'string' ? { jobId } : {};
}

/**
 * A context's deps with the observability hooks: its metrics, and the keys of each job the code
 * reads (`keysOf`) on every later log line of the invocation.
 */
function hooked<C extends { obs: Observability }>(
  ctx: C,
  keysOf: (job: Parameters<JobObserver>[0]) => InvocationKeys,
): C & { metrics: Observability['metrics']; onJob: JobObserver } {
  return { ...ctx, metrics: ctx.obs.metrics, onJob: (job) => appendJobKeys(ctx.obs, keysOf(job)) };
}

/** The keys of a job the API or the monthly start reads. */
const jobKeys = (job: Parameters<JobObserver>[0]): InvocationKeys => ({
  jobId: job.jobId,
  profile: job.profile,
});

/**
 * The handler of one worker task on Middy (`withObservability`): `jobId` and, once the job is
 * read, `profile` on every log line, the task's metrics flushed at the end. `build` makes the task
 * over the context (with its observability hooks), and nothing else: a function's bundle holds
 * only the task it runs. The context and the task are built on the first invocation (a
 * configuration error throws there, naming the variable).
 */
export function workerHandler<E, R>(
  context: Lazy<WorkerContext>,
  build: (deps: HookedWorkerContext) => (input: E) => Promise<R>,
): LambdaHandler<E, R> {
  const built = memo(() => {
    const ctx = memo(context)();
    // The worker's jobId is on the log lines from the event already.
    const run = build(hooked(ctx, (job) => ({ profile: job.profile })));
    return withObservability<E, R>(ctx.obs, jobIdOf, (event) => {
      requireJobId(event);
      return run(event);
    });
  });
  // async: a configuration error thrown while building rejects, as Lambda expects.
  return async (event, lambdaContext) => built()(event, lambdaContext);
}

/** A worker context with the observability hooks the tasks report to. */
type HookedWorkerContext = WorkerContext & { metrics: Observability['metrics']; onJob: JobObserver };

/** The API app over a (lazy) context, with the observability hooks, built on first use. */
function apiApp(context: Lazy<ApiContext>): () => { obs: Observability; app: OpenAPIHono } {
  return memo(() => {
    const ctx = memo(context)();
    const app = createApi({
      ...hooked(ctx, jobKeys),
      onError: (message, error) => ctx.obs.logger.error(message, error as Error),
    });
    return { obs: ctx.obs, app };
  });
}

/**
 * The event as `hono/aws-lambda` should read it, where its reading would differ from API
 * Gateway's own:
 * - the query string rebuilt from `queryStringParameters`, API Gateway's parsed form (a repeated
 *   parameter joined with commas), so the parameters the API validates are those it hands over;
 * - a base64 body in canonical base64 (API Gateway's decoding is lenient, `atob`'s is not: a body
 *   that is not base64 would otherwise crash the adapter instead of being refused);
 * - an `Idempotency-Key` that is not 1-255 visible ASCII characters kept invalid: the adapter drops
 *   an empty header (which would start an export without the key the caller sent), and turns a
 *   non-ASCII one into its URL encoding (which would pass as a valid key); such a key is shown to
 *   the API as `invalid key`, which it refuses naming the header as it would the key itself;
 * - a job id that is not one kept out of the URL parser's dot-segment rules (`.`, `%2e%2e` would
 *   turn `/reports/{jobId}` into `/reports` or `/`): such an id is shown to the routes as `-`,
 *   which is refused naming `jobId` as the id itself would be.
 */
function asHonoReadsIt(event: ApiEvent): ApiEvent {
  const parameters = Object.entries(event.queryStringParameters ?? {}).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  const rawQueryString = parameters
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  const headers = { ...event.headers };
  const key = headers['idempotency-key'];
  if (key !== undefined && !IDEMPOTENCY_KEY_TEXT.test(key)) headers['idempotency-key'] = 'invalid key';
  const body =
    event.isBase64Encoded && event.body !== undefined
      ? Buffer.from(event.body, 'base64').toString('base64')
      : event.body;
  return {
    ...event,
    rawQueryString,
    headers,
    rawPath: jobPathOf(event),
    ...(body !== undefined ? { body } : {}),
  };
}

const IDEMPOTENCY_KEY_TEXT = /^[\x21-\x7e]{1,255}$/;
// A job's path, and its zip's, warnings' and re-run's (`/reports/{jobId}/archive`): the suffix is kept as it came.
const JOB_PATH = /^\/reports\/(.+?)(\/archive|\/warnings|\/rerun)?$/s;
const JOB_ID_TEXT = /^[0-9a-f]{32}$/;

function jobPathOf(event: ApiEvent): string {
  const match = JOB_PATH.exec(event.rawPath);
  if (match === null) return event.rawPath;
  const jobId = event.pathParameters?.jobId ?? decodedSegment(match[1] as string);
  const suffix = match[2] ?? '';
  return JOB_ID_TEXT.test(jobId) ? `/reports/${jobId}${suffix}` : `/reports/-${suffix}`;
}

function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The HTTP API's handler: the Hono app behind `hono/aws-lambda`, on Middy. A configuration error
 * throws on the first request: API Gateway answers a bare 500, Lambda logs the error.
 */
export function createApiHandler(context: Lazy<ApiContext>): LambdaHandler<ApiEvent, ApiResult> {
  const built = memo(() => {
    const { obs, app } = apiApp(context)();
    const handler = handle(app);
    return withObservability<ApiEvent, ApiResult>(
      obs,
      () => ({}),
      // Hono's own event type differs from @types/aws-lambda's (`body: string | null`) only in name.
      async (event) => (await handler(asHonoReadsIt(event) as unknown as LambdaEvent)) as ApiResult,
    );
  });
  return async (event, lambdaContext) => built()(event, lambdaContext);
}

/**
 * The HTTP API as a `fetch` handler over a (lazy) context: what `npm run serve` serves (no
 * Lambda there, so no Middy: the keys a request appended are cleared after it).
 */
export function createApiFetch(context: Lazy<ApiContext>): FetchHandler {
  const built = apiApp(context);
  return async (request, env) => {
    const { obs, app } = built();
    try {
      return await app.fetch(request, env as object | undefined);
    } finally {
      obs.logger.resetKeys();
    }
  };
}

/** The monthly Map's item handler (`MonthlyItem` → `MonthlyItemOutput`), on Middy. */
export function createMonthlyStartHandler(
  context: Lazy<MonthlyContext>,
): LambdaHandler<MonthlyItem, MonthlyItemOutput> {
  const built = memo(() => {
    const ctx = memo(context)();
    const profileOf = (event: MonthlyItem) =>
      typeof event?.profile === 'string' ? { profile: event.profile } : {};
    return withObservability<MonthlyItem, MonthlyItemOutput>(ctx.obs, profileOf, (event) =>
      startMonthlyExport(event, hooked(ctx, jobKeys)),
    );
  });
  return async (event, lambdaContext) => built()(event, lambdaContext);
}

/** The plan task's handler (`ExportInput` → `PlanOutput`: job → running, plan.json written). */
export const createPlanHandler = (context: Lazy<WorkerContext>) =>
  workerHandler(context, (deps) => {
    const task = createPlanTask(deps);
    return deps.slots ? planHoldingSlot(task, { slots: deps.slots, jobs: deps.jobs }) : task;
  });

/** The fetch-shard task's handler (one Map item: the shard fetched, uploaded as a part). */
export const createFetchShardHandler = (context: Lazy<WorkerContext>) =>
  workerHandler(context, (deps) => {
    const task = createFetchShardTask(deps);
    return deps.slots ? fetchShardHoldingSlot(task, { slots: deps.slots, jobs: deps.jobs }) : task;
  });

/** The finish task's handler (parts assembled, reports and manifest published, job → succeeded). */
export const createFinishHandler = (context: Lazy<WorkerContext>) =>
  workerHandler(context, (deps) => {
    const task = createFinishTask(deps);
    return deps.slots ? finishHoldingSlot(task, { slots: deps.slots, jobs: deps.jobs }) : task;
  });

/** The catch task's handler (`{ jobId, error }` or `{ jobId, executionStatus }` → job failed). */
export const createFailHandler = (context: Lazy<WorkerContext>) =>
  workerHandler(context, (deps) => {
    const task = createFailTask(deps);
    return deps.slots ? failReleasingSlot(task, { slots: deps.slots, jobs: deps.jobs }) : task;
  });
