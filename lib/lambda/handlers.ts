/**
 * What the Lambda entry points (`functions/`) share: their contexts (deps plus observability),
 * built lazily on the first invocation so that importing a handler has no side effect, and the
 * wrapping of each invocation.
 */

import type { OpenAPIHono } from '@hono/zod-openapi';
import type { Context } from 'aws-lambda';
import { handle, type LambdaContext, type LambdaEvent } from 'hono/aws-lambda';
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
  type MonthlyDeps,
  type MonthlyItem,
  type MonthlyItemOutput,
  type ProfileSlots,
  startMonthlyExport,
} from '../jobs/index.ts';
import {
  createWorkers,
  type ExportInput,
  type FailInput,
  type FailOutput,
  type FetchShardInput,
  type FetchShardOutput,
  type FinishOutput,
  type PlanOutput,
  type WorkerDeps,
  type Workers,
  withProfileSlots,
} from '../workflow/index.ts';
import { appendJobKeys, type Observability, runInvocation } from './observability.ts';

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

/**
 * Runs a worker task in an invocation: `jobId` and (once the job is read) `profile` on every log
 * line, the workers' metrics flushed at the end.
 */
export function bindWorkers(
  context: Lazy<WorkerContext>,
): <R>(
  event: unknown,
  lambdaContext: Context | undefined,
  task: (workers: Workers) => Promise<R>,
) => Promise<R> {
  const built = memo(() => {
    const ctx = memo(context)();
    const created = createWorkers({
      ...ctx,
      metrics: ctx.obs.metrics,
      onJob: (job) => appendJobKeys(ctx.obs, { profile: job.profile }),
    });
    const workers = ctx.slots ? withProfileSlots(created, ctx.slots, ctx.jobs) : created;
    return { obs: ctx.obs, workers };
  });
  return async (event, lambdaContext, task) => {
    const { obs, workers } = built();
    const jobId = (event as { jobId?: unknown } | null)?.jobId;
    return runInvocation(obs, typeof jobId === 'string' ? { jobId } : {}, lambdaContext, () => {
      requireJobId(event);
      return task(workers);
    });
  };
}

/** The API app over a (lazy) context, with the observability hooks, built on first use. */
function apiApp(context: Lazy<ApiContext>): () => { obs: Observability; app: OpenAPIHono } {
  return memo(() => {
    const ctx = memo(context)();
    const app = createApi({
      ...ctx,
      metrics: ctx.obs.metrics,
      onJob: (job) => appendJobKeys(ctx.obs, { jobId: job.jobId, profile: job.profile }),
      onError: (message, error) => ctx.obs.logger.error(message, error as Error),
    });
    return { obs: ctx.obs, app };
  });
}

/**
 * The event as `hono/aws-lambda` reads it: the query string rebuilt from
 * `queryStringParameters`, API Gateway's parsed form (a repeated parameter joined with commas),
 * so that the parameters the API validates are the ones API Gateway hands over.
 */
function withParsedQuery(event: ApiEvent): ApiEvent {
  const parameters = Object.entries(event.queryStringParameters ?? {}).filter(
    (entry): entry is [string, string] => entry[1] !== undefined,
  );
  const rawQueryString = parameters
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
    .join('&');
  return { ...event, rawQueryString };
}

/** The HTTP API handler over a (lazy) context: the Hono app behind `hono/aws-lambda`. */
export function bindApi(
  context: Lazy<ApiContext>,
): (event: ApiEvent, lambdaContext?: Context) => Promise<ApiResult> {
  const built = memo(() => {
    const { obs, app } = apiApp(context)();
    return { obs, handler: handle(app) };
  });
  return async (event, lambdaContext) => {
    // A configuration error throws here: API Gateway answers a bare 500, Lambda logs the error.
    const { obs, handler } = built();
    return runInvocation(obs, {}, lambdaContext, async () => {
      // Hono's own event type differs from @types/aws-lambda's (`body: string | null`) only in name.
      const result = await handler(
        withParsedQuery(event) as unknown as LambdaEvent,
        lambdaContext as LambdaContext,
      );
      return result as ApiResult;
    });
  };
}

/** The HTTP API as a `fetch` handler over a (lazy) context: what `npm run serve` serves. */
export function createApiFetch(context: Lazy<ApiContext>): FetchHandler {
  const built = apiApp(context);
  return (request, env) => {
    const { obs, app } = built();
    return runInvocation(obs, {}, undefined, async () => app.fetch(request, env as object | undefined));
  };
}

/** The monthly item handler over a (lazy) context. */
export function bindMonthly(
  context: Lazy<MonthlyContext>,
): (event: MonthlyItem, lambdaContext?: Context) => Promise<MonthlyItemOutput> {
  const built = memo(() => memo(context)());
  return async (event, lambdaContext) => {
    const ctx = built();
    const profile = typeof event?.profile === 'string' ? event.profile : undefined;
    return runInvocation(ctx.obs, profile !== undefined ? { profile } : {}, lambdaContext, () =>
      startMonthlyExport(event, {
        ...ctx,
        metrics: ctx.obs.metrics,
        onJob: (job) => appendJobKeys(ctx.obs, { jobId: job.jobId, profile: job.profile }),
      }),
    );
  };
}

/** The plan task's handler (`ExportInput` → `PlanOutput`: job → running, plan.json written). */
export function createPlanHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: ExportInput, lambdaContext?: Context): Promise<PlanOutput> =>
    run(event, lambdaContext, (workers) => workers.plan(event));
}

/** The fetch-shard task's handler (one Map item: the shard fetched, uploaded as a part). */
export function createFetchShardHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: FetchShardInput, lambdaContext?: Context): Promise<FetchShardOutput> =>
    run(event, lambdaContext, (workers) => workers.fetchShard(event));
}

/** The finish task's handler (parts assembled, reports and manifest published, job → succeeded). */
export function createFinishHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: ExportInput, lambdaContext?: Context): Promise<FinishOutput> =>
    run(event, lambdaContext, (workers) => workers.finish(event));
}

/** The catch task's handler (`{ jobId, error }` or `{ jobId, executionStatus }` → job failed). */
export function createFailHandler(context: Lazy<WorkerContext>) {
  const run = bindWorkers(context);
  return (event: FailInput, lambdaContext?: Context): Promise<FailOutput> =>
    run(event, lambdaContext, (workers) => workers.fail(event));
}

/** The HTTP API's handler. */
export const createApiHandler = (context: Lazy<ApiContext>) => bindApi(context);

/** The monthly Map's item handler (`MonthlyItem` → `MonthlyItemOutput`). */
export const createMonthlyStartHandler = (context: Lazy<MonthlyContext>) => bindMonthly(context);
