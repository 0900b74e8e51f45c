/**
 * The portal reads and starts exports through the HTTP API itself: every call is an in-process
 * request to the same app with the signed-in person's authorization, so the API's own checks
 * (which profiles the token lists, validation of the export request) decide what a page shows
 * and what a form may start. Nothing here is a second authorization.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
// Types only: the answers' shapes are the API's own schemas (no runtime import of the API).
import type { ErrorBody, JobList, JobView, KeptRatesList } from '../api-schemas/index.ts';
import type { ClosesAnswer } from './closes-types.ts';
import { PortalApiError } from './errors.ts';

/** What the portal calls: the API app's `fetch`, given the caller's environment (its claims). */
export type ApiFetch = (request: Request, env: unknown) => Response | Promise<Response>;

/** A job as `GET /reports?profile=` lists it. */
export type JobSummary = z.infer<typeof JobList>['jobs'][number];

/** A job as `GET /reports/{jobId}` shows it (the links are not used: Download asks afresh). */
export type JobDetail = z.infer<typeof JobView>;

/** A file of a succeeded job as `GET /reports/{jobId}` shows it. */
export type JobFileView = NonNullable<JobDetail['files']>[number];

/** The rates sources the bucket keeps, as `GET /rates` lists them. */
export type KeptRatesSource = z.infer<typeof KeptRatesList>['sources'][number];

/** The API's error body. */
export type ApiErrorBody = z.infer<typeof ErrorBody>;

/** An answer of the API: status and parsed JSON body. */
export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** The API as the portal uses it, for one request of one signed-in person. */
export interface PortalApi {
  /** A page of the profile's jobs, newest first; `cursor`: a previous page's `nextCursor`. */
  listJobs(
    profile: string,
    limit: number,
    cursor?: string,
  ): Promise<ApiAnswer<{ jobs: JobSummary[]; nextCursor?: string } | ApiErrorBody>>;
  getJob(jobId: string): Promise<ApiAnswer<JobDetail | ApiErrorBody>>;
  startExport(request: unknown): Promise<ApiAnswer<{ jobId: string } | ApiErrorBody>>;
  /** The rates sources the bucket keeps (`GET /rates`): the request form offers them. */
  listRates(): Promise<ApiAnswer<{ sources: KeptRatesSource[] } | ApiErrorBody>>;
  /** The profile's closed periods and restatements (`GET /closes`). */
  listCloses(profile: string): Promise<ApiAnswer<ClosesAnswer | ApiErrorBody>>;
  /** Closes a period at a run's set (`POST /closes`), attributed to the signed-in person. */
  closePeriod(body: {
    profile: string;
    period: string;
    runId: string;
    reason?: string;
  }): Promise<ApiAnswer<unknown>>;
}

/** Whether an answer is an error answer. */
export function isApiError(body: unknown): body is ApiErrorBody {
  return typeof body === 'object' && body !== null && 'error' in body;
}

/** A call of the API path bound to the request `c` (its authorization and claims): status and JSON. */
export type ApiCall = <T>(path: string, init?: RequestInit) => Promise<ApiAnswer<T>>;

/** The API bound to the request `c`: same authorization header, same environment (claims). */
export function portalApi(c: Context, fetch: ApiFetch): PortalApi {
  const call = apiCaller(c, fetch);
  return {
    listJobs: (profile, limit, cursor) =>
      call(
        `/reports?${new URLSearchParams({ profile, limit: String(limit), ...(cursor !== undefined ? { cursor } : {}) }).toString()}`,
      ),
    getJob: (jobId) => call(`/reports/${encodeURIComponent(jobId)}`),
    listRates: () => call('/rates'),
    listCloses: (profile) => call(`/closes?${new URLSearchParams({ profile }).toString()}`),
    closePeriod: (body) =>
      call('/closes', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    startExport: (request) =>
      call('/reports', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(request),
      }),
  };
}

/** Calls of the API bound to the request `c`: same authorization header, same environment. */
export function apiCaller(c: Context, fetch: ApiFetch): ApiCall {
  return async <T>(path: string, init: RequestInit = {}): Promise<ApiAnswer<T>> => {
    const headers = new Headers(init.headers);
    const authorization = c.req.header('authorization');
    if (authorization !== undefined) headers.set('authorization', authorization);
    // Only the path matters: the API builds its URLs from its configured public base URL.
    const response = await fetch(new Request(`http://portal.internal${path}`, { ...init, headers }), c.env);
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) as T };
    } catch (error) {
      throw new PortalApiError(response.status, `the API answered ${path} with no JSON`, { cause: error });
    }
  };
}
