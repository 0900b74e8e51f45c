/**
 * The HTTP API (API Gateway HTTP API, payload format 2.0):
 *
 * - `POST /reports` (`content-type: application/json`, else `415`) validates an export request
 *   and starts it: `202 { jobId, state, statusUrl }`; the same `Idempotency-Key` (or, without one,
 *   an identical request) answers `200` with the existing job as `GET` shows it, finished or not,
 *   instead of starting another; the same key with another body answers `422` and leaves the job.
 * - `GET /reports/{jobId}`: the job (while queued, its `queuePosition` among the jobs of its API
 *   key), and once succeeded its files with presigned download links.
 * - `GET /reports?profile=…&limit=…`: the profile's recent jobs, newest first.
 *
 * With a profiles claim configured (`authorization.ts`), a caller uses only the profiles its JWT
 * lists: another profile answers `403` on `profile`, another profile's job `404` like a missing one.
 *
 * Errors are `{ error: { code, message, field, issues } }`; none quotes a secret. Status URLs are
 * built from the configured `publicBaseUrl`, never from request headers.
 */
import { createHash } from 'node:crypto';
import type { S3Client } from '@aws-sdk/client-s3';
import { periodLabel } from '../export/period.ts';
import {
  type ExportRequest,
  hashFilterConflicts,
  PROFILE_NAME,
  parseExportRequest,
  RequestValidationError,
} from '../export/request.ts';
import {
  type ExecutionStarter,
  IdempotencyKeyReusedError,
  JOB_ID,
  type JobObserver,
  type JobRecord,
  type JobStore,
  jobIdFor,
  lookupProfile,
  type MetricsSink,
  type ProfileRegistry,
  type ProfileSlots,
  StartFailedError,
  startJob,
  UnknownProfileError,
} from '../jobs/index.ts';
import { presignDownload } from '../storage/index.ts';
import { mayUse, profileAccess } from './authorization.ts';
import { ApiAnswer, type ApiEvent, type ApiResult } from './errors.ts';

/** Largest accepted request body: 64 KiB. */
export const MAX_BODY_BYTES = 64 * 1024;
/** Default and largest `limit` of the job list. */
export const LIST_LIMIT = { default: 20, max: 100 } as const;
/** Default expiry of download links: one hour. */
export const DEFAULT_LINK_EXPIRY_SECONDS = 3600;

/** The event and result types of the handler. */
export type { ApiEvent, ApiResult };

/** Everything the API uses; built once per process by the caller. */
export interface ApiDeps {
  registry: ProfileRegistry;
  jobs: JobStore;
  starter: ExecutionStarter;
  /** Client and bucket to presign download links with. */
  s3: S3Client;
  bucket: string;
  now: () => Date;
  /**
   * Where callers reach the API (`https://host[/base path]`): `statusUrl` and `Location` are
   * built from it, never from the request's `Host` or `X-Forwarded-Proto`.
   */
  publicBaseUrl: string;
  /** The per-key queues: new jobs join them, `GET` shows a queued job's position. */
  slots?: Pick<ProfileSlots, 'enqueue' | 'release' | 'position'>;
  /** Expiry of download links, 1 … 604 800 s. Default 3600. */
  linkExpirySeconds?: number;
  /**
   * JWT claim listing the profiles a caller may use (see `authorization.ts`). Unset: every caller
   * may use every registered profile.
   */
  profilesClaim?: string;
  metrics?: MetricsSink;
  onJob?: JobObserver;
  /** Told about unexpected failures (answered 500/503 without details). */
  onError?: (message: string, error: unknown) => void;
}

/** One problem of a request, as the API reports it. */
export interface ApiIssue {
  field: string;
  reason: string;
}

/** Body of every error answer. */
export interface ApiErrorBody {
  error: { code: string; message: string; field: string | null; issues: ApiIssue[] };
}

function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): ApiResult {
  return {
    statusCode,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
  };
}

/** An error answer; `issues` defaults to the one field's reason. */
export function apiError(
  statusCode: number,
  code: string,
  message: string,
  field: string | null = null,
  issues?: ApiIssue[],
): ApiResult {
  const body: ApiErrorBody = {
    error: { code, message, field, issues: issues ?? (field === null ? [] : [{ field, reason: message }]) },
  };
  return json(statusCode, body);
}

/** 403 for a profile the caller's authorization does not list (checked before the registry). */
function forbiddenProfile(): ApiResult {
  return apiError(403, 'forbidden_profile', 'profile: not allowed for this caller', 'profile');
}

function invalid(field: string, reason: string): ApiAnswer {
  return new ApiAnswer(apiError(400, 'invalid_request', `${field}: ${reason}`, field, [{ field, reason }]));
}

/** Builds the API handler. */
export function createApi(deps: ApiDeps): (event: ApiEvent) => Promise<ApiResult> {
  const linkExpirySeconds = deps.linkExpirySeconds ?? DEFAULT_LINK_EXPIRY_SECONDS;
  const base = deps.publicBaseUrl.replace(/\/+$/, '');
  const statusUrlOf = (jobId: string) => `${base}/reports/${jobId}`;

  return async (event) => {
    try {
      const route = routeOf(event);
      if (route === null) return apiError(404, 'not_found', 'no such route');
      if (route.name === 'create') return await createReport(event);
      if (route.name === 'get') return await getReport(event, route.jobId);
      return await listReports(event);
    } catch (error) {
      if (error instanceof ApiAnswer) return error.result;
      if (error instanceof UnknownProfileError)
        return apiError(404, 'unknown_profile', error.message, 'profile');
      if (error instanceof IdempotencyKeyReusedError) {
        return apiError(422, 'idempotency_key_reused', error.message, 'Idempotency-Key', [
          { field: 'Idempotency-Key', reason: 'already used for a different request' },
        ]);
      }
      if (error instanceof StartFailedError) {
        deps.onError?.('could not start the export', error);
        return apiError(503, 'start_failed', 'the export could not be started; try again');
      }
      deps.onError?.('request failed', error);
      return apiError(500, 'internal', 'internal error');
    }
  };

  async function createReport(event: ApiEvent): Promise<ApiResult> {
    requireJsonContentType(event);
    const input = readJsonBody(event);
    let request: ExportRequest;
    try {
      request = parseExportRequest(input);
    } catch (error) {
      if (!(error instanceof RequestValidationError)) throw error;
      const issues = error.issues.map(({ field, reason }) => ({ field, reason }));
      return apiError(400, 'invalid_request', error.message, error.field, issues);
    }
    // The CLI warns about these; an API caller would never see a warning, so they are refused.
    const [conflict, ...conflicts] = hashFilterConflicts(request);
    if (conflict !== undefined) {
      const issues = [conflict, ...conflicts];
      const message = issues.map(({ field, reason }) => `${field}: ${reason}`).join('; ');
      return apiError(400, 'invalid_request', message, conflict.field, issues);
    }
    const headerKey = header(event, 'idempotency-key');
    if (headerKey !== undefined && !/^[\x21-\x7e]{1,255}$/.test(headerKey)) {
      throw invalid('Idempotency-Key', 'expected 1-255 visible ASCII characters');
    }
    if (!mayUse(profileAccess(event, deps.profilesClaim), request.profile)) return forbiddenProfile();
    lookupProfile(deps.registry, request.profile);
    const canonical = canonicalJson(request);
    const idempotencyKey =
      headerKey !== undefined
        ? `key:${headerKey}`
        : `request:${createHash('sha256').update(canonical).digest('hex')}`;
    const at = deps.now().toISOString();
    const job: JobRecord = {
      jobId: jobIdFor(request.profile, idempotencyKey),
      profile: request.profile,
      request,
      state: 'queued',
      source: 'api',
      idempotencyKey,
      createdAt: at,
      updatedAt: at,
    };
    deps.onJob?.(job);
    // A key reused with another body throws before the existing job is touched (answered 422).
    const { created, job: stored } = await startJob(deps, job, {
      sameRequest: (existing) => canonicalJson(existing.request) === canonical,
    });
    if (!created) return json(200, await jobView(stored));
    deps.metrics?.addMetric('JobsStarted', 'Count', 1);
    const statusUrl = statusUrlOf(stored.jobId);
    return json(202, { jobId: stored.jobId, state: stored.state, statusUrl }, { location: statusUrl });
  }

  async function getReport(event: ApiEvent, jobId: string): Promise<ApiResult> {
    if (!JOB_ID.test(jobId)) throw invalid('jobId', 'expected 32 lowercase hex characters');
    const job = await deps.jobs.get(jobId);
    // Another profile's job answers exactly as a missing one: its existence is not revealed.
    if (job === null || !mayUse(profileAccess(event, deps.profilesClaim), job.profile)) {
      return apiError(404, 'job_not_found', `job ${jobId} does not exist`, 'jobId');
    }
    deps.onJob?.(job);
    return json(200, await jobView(job));
  }

  /** A job as `GET /reports/{jobId}` shows it: links for a succeeded one, the position of a queued one. */
  async function jobView(job: JobRecord): Promise<Record<string, unknown>> {
    const now = deps.now();
    const body: Record<string, unknown> = {
      jobId: job.jobId,
      profile: job.profile,
      state: job.state,
      source: job.source,
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

  async function listReports(event: ApiEvent): Promise<ApiResult> {
    const query = event.queryStringParameters ?? {};
    const profile = query.profile;
    if (profile === undefined || profile === '') throw invalid('profile', 'required');
    if (!PROFILE_NAME.test(profile)) throw invalid('profile', 'expected 1-64 letters, digits, "_" or "-"');
    let limit: number = LIST_LIMIT.default;
    if (query.limit !== undefined) {
      limit = /^\d{1,3}$/.test(query.limit) ? Number(query.limit) : 0;
      if (limit < 1 || limit > LIST_LIMIT.max) {
        throw invalid('limit', `expected a whole number from 1 to ${LIST_LIMIT.max}`);
      }
    }
    if (!mayUse(profileAccess(event, deps.profilesClaim), profile)) return forbiddenProfile();
    lookupProfile(deps.registry, profile);
    const jobs = await deps.jobs.listByProfile(profile, limit);
    return json(200, {
      profile,
      jobs: jobs.map((job) => ({
        jobId: job.jobId,
        state: job.state,
        source: job.source,
        period: periodLabel(job.request.period),
        createdAt: job.createdAt,
        updatedAt: job.updatedAt,
        statusUrl: statusUrlOf(job.jobId),
        ...(job.reason !== undefined ? { reason: job.reason } : {}),
      })),
    });
  }
}

type Route = { name: 'create' } | { name: 'get'; jobId: string } | { name: 'list' };

/** The route by method and path (the `$default` route and named stages work alike). */
function routeOf(event: ApiEvent): Route | null {
  const method = event.requestContext.http.method.toUpperCase();
  const path = event.rawPath.replace(/\/+$/, '');
  if (/(^|\/)reports$/.test(path)) {
    if (method === 'POST') return { name: 'create' };
    if (method === 'GET') return { name: 'list' };
    return null;
  }
  const match = /(?:^|\/)reports\/([^/]+)$/.exec(path);
  if (match && method === 'GET') {
    return { name: 'get', jobId: event.pathParameters?.jobId ?? decodeSegment(match[1] as string) };
  }
  return null;
}

/** A percent-decoded path segment; one that does not decode stays as sent (and fails validation). */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function header(event: ApiEvent, name: string): string | undefined {
  const headers = event.headers ?? {};
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value;
  return undefined;
}

/**
 * 415 unless the body is declared `application/json` (parameters allowed, a charset only UTF-8):
 * a form or `text/plain` POST, which any web page can make a browser send without asking, never
 * starts an export.
 */
function requireJsonContentType(event: ApiEvent): void {
  const value = header(event, 'content-type');
  const [type, ...parameters] = (value ?? '').split(';').map((part) => part.trim().toLowerCase());
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/"/g, '');
  let reason: string | undefined;
  if (value === undefined) reason = 'required: application/json';
  else if (type !== 'application/json') reason = 'expected application/json';
  else if (charset !== undefined && charset !== 'utf-8') reason = 'expected charset=utf-8';
  if (reason === undefined) return;
  throw new ApiAnswer(
    apiError(415, 'unsupported_media_type', `Content-Type: ${reason}`, 'Content-Type', [
      { field: 'Content-Type', reason },
    ]),
  );
}

function readJsonBody(event: ApiEvent): unknown {
  const raw = event.body ?? '';
  const bytes = event.isBase64Encoded ? Buffer.from(raw, 'base64') : Buffer.from(raw, 'utf8');
  if (bytes.length > MAX_BODY_BYTES) {
    throw new ApiAnswer(
      apiError(413, 'payload_too_large', `body: larger than ${MAX_BODY_BYTES} bytes`, 'body', [
        { field: 'body', reason: `larger than ${MAX_BODY_BYTES} bytes` },
      ]),
    );
  }
  if (bytes.length === 0) throw invalid('body', 'required: a JSON export request');
  let text: string;
  try {
    // Fatal: invalid bytes are refused, not silently replaced by U+FFFD inside a field.
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalid('body', 'is not valid UTF-8');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('body', 'is not valid JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('body', 'expected a JSON object');
  }
  return value;
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
