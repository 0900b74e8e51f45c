/**
 * The HTTP API, on Hono (`@hono/zod-openapi`): the same app answers on Lambda (API Gateway HTTP
 * API, payload format 2.0, through `hono/aws-lambda` in `lib/lambda`) and locally over
 * `@hono/node-server` (`npm run serve`).
 *
 * - `POST /reports` (`content-type: application/json`, else `415`) validates an export request
 *   and starts it: `202 { jobId, state, statusUrl }`; the same `Idempotency-Key` (or, without one,
 *   an identical request) answers `200` with the existing job as `GET` shows it, finished or not,
 *   instead of starting another; the same key with another body answers `422` and leaves the job.
 * - `GET /reports/{jobId}`: the job (while queued, its `queuePosition` among the jobs of its API
 *   key), and once succeeded its files with presigned download links.
 * - `GET /reports?profile=…&limit=…&cursor=…`: a page of the profile's jobs, newest first, with
 *   `nextCursor` while older ones follow (every job is reachable page by page).
 * - `POST /reports/{jobId}/archive`: "download all", one zip of a succeeded job's files with
 *   the manifest inside, each checked against it; answers a presigned link (`archive-route.ts`).
 * - `GET /rates`: the rates sources `gains.rates` may name, by what the bucket keeps (`rates-route.ts`).
 * - `GET|POST /profiles/{profile}/adjustments`, `GET /reports/{jobId}/warnings`,
 *   `POST /reports/{jobId}/rerun`: resolving a set's warnings (`adjustments-route.ts`).
 * - `GET /openapi.json`: the OpenAPI 3.1 document, generated from the zod schemas of `schemas.ts`.
 *
 * With a profiles claim configured (`authorization.ts`), a caller uses only the profiles its JWT
 * lists: another profile answers `403` on `profile`, another profile's job `404` like a missing one.
 *
 * Errors are `{ error: { code, message, field, issues } }`, mapped in one handler
 * ({@link errorAnswer}); none quotes a secret. Status URLs are built from the configured
 * `publicBaseUrl`, never from request headers.
 */
import { createHash } from 'node:crypto';
import { createRoute, OpenAPIHono, type z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { createS3AdjustmentsStore } from '../adjustments/index.ts';
import {
  Accepted,
  ExportRequestBody,
  IDEMPOTENCY_KEY,
  JobIdParams,
  JobList,
  JobView,
  LIST_LIMIT,
  ListQuery,
} from '../api-schemas/index.ts';
import {
  hashFilterConflicts,
  parseExportRequest,
  periodLabel,
  RequestValidationError,
} from '../export/index.ts';
import type { RateSource } from '../fx/index.ts';
import { hasKeptRates, noKeptRates } from '../fx-store/index.ts';
import {
  IdempotencyKeyReusedError,
  type JobRecord,
  jobIdFor,
  jobKeyAt,
  lookupProfile,
  StartFailedError,
  startJob,
  UnknownProfileError,
} from '../jobs/index.ts';
import {
  createPortal,
  createProgressReader,
  FAVICON_HEADERS,
  FAVICON_SVG,
  PORTAL_PATH,
} from '../portal/index.ts';
import { presignDownload } from '../storage/index.ts';
import { addAdjustmentRoutes } from './adjustments-route.ts';
import { errors, json } from './answers.ts';
import { addArchiveRoute } from './archive-route.ts';
import { callerEvent, callerName, mayUse, profileAccess } from './authorization.ts';
import { jsonObjectBody } from './body.ts';
import { addCloseRoutes } from './close-route.ts';
import type { ApiDeps } from './deps.ts';
import {
  type ApiIssue,
  ApiRequestError,
  ForbiddenProfileError,
  InvalidRequestError,
  RouteNotFoundError,
} from './errors.ts';
import { type JobRouteContext, jobNotFound, visibleJob } from './job-route.ts';
import { addRatesRoute } from './rates-route.ts';
import { addVerificationRoute } from './verification-route.ts';

/** Default expiry of download links: one hour. */
export const DEFAULT_LINK_EXPIRY_SECONDS = 3600;

/** Version of the API as the OpenAPI document states it. */
export const API_VERSION = '1.0.0';

export type { ApiDeps } from './deps.ts';

/** Body of every error answer. */
export interface ApiErrorBody {
  error: { code: string; message: string; field: string | null; issues: ApiIssue[] };
}

/** An error answer: status and body. */
export interface ErrorAnswer {
  status: 400 | 403 | 404 | 413 | 415 | 422 | 500 | 503;
  body: ApiErrorBody;
}

/**
 * An error body; `issues` defaults to the one field's reason: the message without a leading
 * `field: ` (a `ValidationError`'s message names its field first; the issue names it apart).
 */
export function apiError(
  code: string,
  message: string,
  field: string | null = null,
  issues?: ApiIssue[],
): ApiErrorBody {
  const reason = (name: string) =>
    message.startsWith(`${name}: `) ? message.slice(name.length + 2) : message;
  return {
    error: {
      code,
      message,
      field,
      issues: issues ?? (field === null ? [] : [{ field, reason: reason(field) }]),
    },
  };
}

/**
 * The one mapping of errors to answers. Anything not listed is a 500 without details (and told
 * to `onError`); a start that failed is a 503 the caller may retry.
 */
export function errorAnswer(error: unknown): ErrorAnswer {
  if (error instanceof ApiRequestError) {
    return {
      status: error.status,
      body: apiError(error.code, error.message, error.field, [{ field: error.field, reason: error.reason }]),
    };
  }
  if (error instanceof RequestValidationError) {
    const issues = error.issues.map(({ field, reason }) => ({ field, reason }));
    return { status: 400, body: apiError('invalid_request', error.message, error.field, issues) };
  }
  if (error instanceof UnknownProfileError) {
    return { status: 404, body: apiError('unknown_profile', error.message, 'profile') };
  }
  if (error instanceof IdempotencyKeyReusedError) {
    return {
      status: 422,
      body: apiError('idempotency_key_reused', error.message, 'Idempotency-Key', [
        { field: 'Idempotency-Key', reason: 'already used for a different request' },
      ]),
    };
  }
  if (error instanceof StartFailedError) {
    return { status: 503, body: apiError('start_failed', 'the export could not be started; try again') };
  }
  return { status: 500, body: apiError('internal', 'internal error') };
}

/**
 * Refuses (400, `gains.rates`) a request converting at rates of a source the bucket keeps no file
 * of yet: its job would fetch everything and fail at the end (`lib/workflow/rates.ts`).
 */
async function refuseUnkeptRates(deps: ApiDeps, request: { gains?: ExportRequestGains }): Promise<void> {
  const source = request.gains?.rates?.source;
  if (source === undefined || (await hasKeptRates({ s3: deps.s3, bucket: deps.bucket }, source))) return;
  const { field, reason } = noKeptRates(source);
  throw new RequestValidationError([{ field, reason }]);
}

/** The part of a request {@link refuseUnkeptRates} reads. */
type ExportRequestGains = { rates?: { source: RateSource } | undefined };

/** Headers of every answer: JSON, never cached (links and states change). */
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** An answer's headers: {@link JSON_HEADERS} (their `content-type` wins over `c.json`'s own) and `extra`. */
const headers = (extra: Record<string, string> = {}) => ({ ...JSON_HEADERS, ...extra });

/** A JSON body of `schema`, as a route declares it. */
const jsonContent = <S>(schema: S) => ({ 'application/json': { schema } });

const createReportRoute = createRoute({
  method: 'post',
  path: '/reports',
  summary: 'Start an export',
  middleware: jsonObjectBody,
  request: { body: { required: true, content: jsonContent(ExportRequestBody) } },
  responses: {
    200: json('the job of the same request or key', JobView),
    202: json('the export was started', Accepted),
    ...errors(400, 403, 404, 413, 415, 422, 500, 503),
  },
});

const getReportRoute = createRoute({
  method: 'get',
  path: '/reports/{jobId}',
  summary: 'A job, with download links once it succeeded',
  request: { params: JobIdParams },
  responses: { 200: json('the job', JobView), ...errors(400, 404, 500) },
});

const listReportsRoute = createRoute({
  method: 'get',
  path: '/reports',
  summary: "A profile's jobs, newest first, a page at a time (nextCursor → cursor)",
  request: { query: ListQuery },
  responses: { 200: json('the jobs', JobList), ...errors(400, 403, 404, 500) },
});

/**
 * A refused validation as the API names it: the export request by its own issues
 * (`parseExportRequest`), a path or query field by its first issue.
 */
function validationError(
  target: string,
  data: unknown,
  issues: readonly { path: PropertyKey[]; message: string }[],
) {
  if (target === 'json') return parseExportRequestError(data);
  const issue = issues[0];
  return new InvalidRequestError(String(issue?.path[0] ?? target), issue?.message ?? 'invalid');
}

function parseExportRequestError(data: unknown): unknown {
  try {
    parseExportRequest(data);
  } catch (error) {
    return error;
  }
  return new InvalidRequestError('body', 'invalid');
}

/** Builds the API app. */
export function createApi(deps: ApiDeps): OpenAPIHono {
  const linkExpirySeconds = deps.linkExpirySeconds ?? DEFAULT_LINK_EXPIRY_SECONDS;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const statusUrlOf = (jobId: string) => `${base}/reports/${jobId}`;
  const accessOf = (c: Context) => profileAccess(callerEvent(c), deps.profilesClaim);
  /** What the routes on a job (and the other routes' modules) answer with. */
  const jobContext: JobRouteContext = {
    mayUseProfile: (c, profile) => mayUse(accessOf(c), profile),
    headers: headers(),
    apiError,
  };

  const app = new OpenAPIHono({
    // `/reports/` is `/reports`, as before the move to Hono.
    strict: false,
    defaultHook: (result) => {
      // `@hono/zod-validator` hands the hook the value it validated as `data`.
      const { data } = result as { data?: unknown };
      if (!result.success) throw validationError(result.target, data, result.error.issues);
    },
  });

  app.openapi(createReportRoute, async (c) => {
    const request = c.req.valid('json');
    // The CLI warns about these; an API caller would never see a warning, so they are refused.
    const [conflict, ...conflicts] = hashFilterConflicts(request);
    if (conflict !== undefined) {
      const issues = [conflict, ...conflicts];
      const message = issues.map(({ field, reason }) => `${field}: ${reason}`).join('; ');
      return c.json(apiError('invalid_request', message, conflict.field, issues), 400, headers());
    }
    const headerKey = c.req.header('idempotency-key');
    if (headerKey !== undefined && !IDEMPOTENCY_KEY.test(headerKey)) {
      throw new InvalidRequestError('Idempotency-Key', 'expected 1-255 visible ASCII characters');
    }
    if (!mayUse(accessOf(c), request.profile)) throw new ForbiddenProfileError();
    lookupProfile(deps.registry, request.profile);
    await refuseUnkeptRates(deps, request);
    const canonical = canonicalJson(request);
    const now = deps.now();
    // A request for a period not yet over is deduplicated only while it is open (see jobKeyAt).
    const idempotencyKey = jobKeyAt(
      headerKey !== undefined
        ? `key:${headerKey}`
        : `request:${createHash('sha256').update(canonical).digest('hex')}`,
      request,
      now,
    );
    const at = now.toISOString();
    const job: JobRecord = {
      jobId: jobIdFor(request.profile, idempotencyKey),
      profile: request.profile,
      request,
      state: 'queued',
      source: 'api',
      ...withRequestedBy(callerName(callerEvent(c))),
      idempotencyKey,
      createdAt: at,
      updatedAt: at,
    };
    deps.onJob?.(job);
    // A key reused with another body throws before the existing job is touched (answered 422).
    const { created, job: stored } = await startJob(deps, job, {
      sameRequest: (existing) => canonicalJson(existing.request) === canonical,
    });
    if (!created) return c.json(await jobView(stored), 200, headers());
    deps.metrics?.addMetric('JobsStarted', 'Count', 1);
    const statusUrl = statusUrlOf(stored.jobId);
    return c.json(
      { jobId: stored.jobId, state: stored.state, statusUrl },
      202,
      headers({ location: statusUrl }),
    );
  });

  app.openapi(getReportRoute, async (c) => {
    const { jobId } = c.req.valid('param');
    const job = await visibleJob(c, deps.jobs, jobContext, jobId);
    if (job === null) return jobNotFound(c, jobContext, jobId);
    deps.onJob?.(job);
    return c.json(await jobView(job), 200, headers());
  });

  app.openapi(listReportsRoute, async (c) => {
    const { profile, limit = LIST_LIMIT.default, cursor } = c.req.valid('query');
    if (!mayUse(accessOf(c), profile)) throw new ForbiddenProfileError();
    lookupProfile(deps.registry, profile);
    const { jobs, next } = await deps.jobs.listPage(profile, {
      limit,
      ...(cursor !== undefined ? { after: cursor } : {}),
    });
    return c.json(
      {
        profile,
        jobs: jobs.map((job) => ({
          jobId: job.jobId,
          state: job.state,
          source: job.source,
          ...withRequestedBy(job.requestedBy),
          period: periodLabel(job.request.period),
          createdAt: job.createdAt,
          updatedAt: job.updatedAt,
          statusUrl: statusUrlOf(job.jobId),
          ...(job.reason !== undefined ? { reason: job.reason } : {}),
        })),
        ...(next !== undefined ? { nextCursor: next } : {}),
      },
      200,
      headers(),
    );
  });

  addArchiveRoute(app, deps, { ...jobContext, linkExpirySeconds });

  addVerificationRoute(app, deps, jobContext);

  addRatesRoute(app, deps, headers());

  addCloseRoutes(app, deps, {
    ...jobContext,
    callerName: (c) => callerName(callerEvent(c)),
    linkExpirySeconds,
  });

  // Without a store of its own the API keeps the documents where the deployment's store does
  // (the bucket's `adjustments/`), so the routes always answer.
  const adjustments = deps.adjustments ?? createS3AdjustmentsStore({ client: deps.s3, bucket: deps.bucket });
  addAdjustmentRoutes(app, { ...deps, adjustments }, { ...jobContext, statusUrlOf });

  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    info: {
      title: 'pbs-export HTTP API',
      version: API_VERSION,
      description: 'Starts exports of Portfolio Balance Service portfolios and lists their reports.',
    },
    servers: [{ url: base }],
  });

  if (deps.portal !== undefined) {
    const registered = Object.keys(deps.registry).sort();
    const basePath = new URL(base).pathname.replace(/\/+$/, '');
    // A person who opens the API's root in a browser lands on the portal.
    app.get('/', (c) => c.redirect(`${basePath}${PORTAL_PATH}`, 302));
    // Browsers ask the site's root for its icon, whatever the page says.
    app.get('/favicon.ico', (c) => c.body(FAVICON_SVG, 200, FAVICON_HEADERS));
    app.route(
      PORTAL_PATH,
      createPortal({
        ...deps.portal,
        // The portal reads and starts exports through this API, with each request's own claims.
        api: (request, env) => app.fetch(request, env as object | undefined),
        registered,
        profilesOf: (c) => registered.filter((profile) => mayUse(accessOf(c), profile)),
        timeZoneOf: (profile) =>
          Object.hasOwn(deps.registry, profile) ? deps.registry[profile]?.timeZone : undefined,
        progress: createProgressReader(deps.s3, deps.bucket),
        basePath,
      }),
    );
  }

  app.notFound(() => {
    throw new RouteNotFoundError();
  });
  app.onError((error, c) => {
    const answer = errorAnswer(error);
    if (answer.status === 503) deps.onError?.('could not start the export', error);
    else if (answer.status === 500) deps.onError?.('request failed', error);
    return c.json(answer.body, answer.status, headers());
  });

  /** A job as `GET /reports/{jobId}` shows it: links for a succeeded one, the position of a queued one. */
  async function jobView(job: JobRecord): Promise<z.infer<typeof JobView>> {
    const now = deps.now();
    const body: z.infer<typeof JobView> = {
      jobId: job.jobId,
      profile: job.profile,
      state: job.state,
      source: job.source,
      ...withRequestedBy(job.requestedBy),
      period: periodLabel(job.request.period),
      createdAt: job.createdAt,
      updatedAt: job.updatedAt,
      request: job.request,
      statusUrl: statusUrlOf(job.jobId),
      ...(job.reason !== undefined ? { reason: job.reason } : {}),
    };
    if (job.state === 'queued' && deps.slots !== undefined) {
      const position = await deps.slots.position(job.profile, job.jobId);
      if (position !== null) body.queuePosition = position;
    }
    if (job.state === 'succeeded' && job.result) {
      body.runId = job.result.runId;
      if (job.result.reconciliation) body.reconciliation = job.result.reconciliation;
      body.linksExpireAt = new Date(now.getTime() + linkExpirySeconds * 1000).toISOString();
      body.files = await Promise.all(
        job.result.files.map(async (file) => ({
          name: file.name,
          bytes: file.bytes,
          sha256: file.sha256,
          ...(file.rows !== undefined ? { rows: file.rows } : {}),
          url: await presignDownload({
            client: deps.s3,
            bucket: deps.bucket,
            key: file.key,
            fileName: file.name.split('/').pop() || file.name,
            expiresInSeconds: linkExpirySeconds,
            signingDate: now,
          }),
        })),
      );
    }
    return body;
  }

  return app;
}

/** JSON with object keys sorted, so equal requests serialise equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.entries(item as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)),
        )
      : item,
  );
}

/** `{ requestedBy }` when a caller was named, else nothing (the field is optional everywhere). */
function withRequestedBy(name: string | undefined): { requestedBy?: string } {
  return name === undefined ? {} : { requestedBy: name };
}
