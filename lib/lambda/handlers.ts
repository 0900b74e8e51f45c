/**
 * What the Lambda entry points (`functions/`) share: their contexts (deps plus observability),
 * built lazily on the first invocation so that importing a handler has no side effect, and the
 * wrapping of each invocation.
 */
import type { Context } from 'aws-lambda';
import { ValidationError } from '../errors.ts';
import { type ApiDeps, type ApiEvent, type ApiResult, createApi } from '../http-api/index.ts';
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

/** The HTTP API handler over a (lazy) context. */
export function bindApi(
  context: Lazy<ApiContext>,
): (event: ApiEvent, lambdaContext?: Context) => Promise<ApiResult> {
  const built = memo(() => {
    const ctx = memo(context)();
    const api = createApi({
      ...ctx,
      metrics: ctx.obs.metrics,
      onJob: (job) => appendJobKeys(ctx.obs, { jobId: job.jobId, profile: job.profile }),
      onError: (message, error) => ctx.obs.logger.error(message, error as Error),
    });
    return { obs: ctx.obs, api };
  });
  return async (event, lambdaContext) => {
    // A configuration error throws here: API Gateway answers a bare 500, Lambda logs the error.
    const { obs, api } = built();
    return runInvocation(obs, {}, lambdaContext, () => api(event));
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
