/**
 * The accountant portal: pages served by the HTTP API under `/portal`, rendered on the server
 * with Hono's JSX.
 *
 * - Pages (`/portal`, `/portal/clients/{profile}`, `/portal/clients/{profile}/request`) are
 *   shells without data: a navigation carries no token. The one script (`/portal/static/portal.js`)
 *   loads the page's view from `/portal/view/…` with `Authorization: Bearer`, the token it keeps
 *   in `sessionStorage` (no cookie: nothing ambient a foreign site could make a browser send).
 * - Views read and start exports through the API itself ({@link portalApi}): the API's checks of
 *   the token's profiles and its export request schema decide, so a page shows, downloads and
 *   requests nothing the API would refuse.
 * - Every answer carries a strict Content-Security-Policy (scripts and styles from the portal's
 *   own static files only, no inline code, no framing) and `Referrer-Policy: no-referrer`.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { secureHeaders } from 'hono/secure-headers';
import pLimit from 'p-limit';
import { PROFILE_NAME } from '../export/index.ts';
import {
  type ApiFetch,
  isApiError,
  type JobDetail,
  type JobSummary,
  type PortalApi,
  portalApi,
} from './api-client.ts';
import { isAssetName, readAsset } from './assets.ts';
import { CLOSE_CONFIRMED } from './closes-view.tsx';
import { DevSignInError, SignInRequiredError } from './errors.ts';
import { FAVICON_HEADERS, FAVICON_SVG } from './favicon.ts';
import { type FormFields, issuesByField, requestFromForm } from './form.ts';
import { addPracticeRoutes } from './practice.tsx';
import type { ProgressReader } from './progress.ts';
import { DEFAULT_FORM, RequestView } from './request-view.tsx';
import {
  CallbackPage,
  type ClientRow,
  ClientsView,
  ClientView,
  ErrorPage,
  ErrorView,
  type PageContext,
  type RunningJob,
  Shell,
  SignInPage,
} from './views.tsx';
import { addWarningsRoutes } from './warnings.tsx';

/** Where the portal is mounted in the API. */
export const PORTAL_PATH = '/portal';

/** Largest body a view's form or the development sign-in accepts: 16 KiB. */
export const MAX_FORM_BYTES = 16 * 1024;

/**
 * The development sign-in of `npm run serve` (loopback only): a token for the chosen profiles,
 * signed with a key of the local process that the local API trusts.
 */
export interface DevelopmentSignIn {
  kind: 'development';
  issue(profiles: readonly string[]): Promise<{ token: string; expiresInSeconds: number }>;
}

/**
 * Sign-in with an OAuth 2.0 authorization server (the stack's Cognito user pool): authorization
 * code flow with PKCE from the page, a public client (no secret).
 */
export interface OAuthSignIn {
  kind: 'oauth';
  authorizeUrl: string;
  tokenUrl: string;
  clientId: string;
  scopes: readonly string[];
}

/** How the portal is configured by its deployment. */
export interface PortalOptions {
  signIn: DevelopmentSignIn | OAuthSignIn;
}

/** Everything the portal uses; built by the HTTP API that mounts it. */
export interface PortalDeps extends PortalOptions {
  /** The API itself (its `fetch`), called with each request's own environment. */
  api: ApiFetch;
  /** Every registered profile, sorted (the development sign-in offers them). */
  registered: readonly string[];
  /** The registered profiles the caller of `c` may use, sorted. */
  profilesOf(c: Context): readonly string[];
  /** The registered time zone of a profile. */
  timeZoneOf(profile: string): string | undefined;
  progress: ProgressReader;
  /** Path of the API's root as callers reach it (`''`, or e.g. `/v1` behind a custom domain). */
  basePath: string;
}

/** How many jobs a page of a client view lists (newest first; "Older report sets" goes on). */
export const SETS_LISTED = 30;

/** Pages of 100 jobs the Clients view looks through for a client's latest set, past the first. */
const LATEST_SEARCH_PAGES = 5;

/**
 * The newest succeeded job after `cursor`, looking through at most {@link LATEST_SEARCH_PAGES}
 * pages (a client whose last 500 exports all failed shows no latest set; its page lists all).
 */
async function olderSucceeded(
  api: PortalApi,
  profile: string,
  cursor: string | undefined,
): Promise<JobSummary | undefined> {
  let next = cursor;
  for (let page = 0; page < LATEST_SEARCH_PAGES && next !== undefined; page += 1) {
    const listed = await api.listJobs(profile, 100, next);
    if (isApiError(listed.body)) return undefined;
    const found = listed.body.jobs.find((job) => job.state === 'succeeded');
    if (found !== undefined) return found;
    next = listed.body.nextCursor;
  }
  return undefined;
}

/** The portal as a Hono app, to be mounted at {@link PORTAL_PATH}. */
export function createPortal(deps: PortalDeps): Hono {
  const ctx: PageContext = {
    base: `${deps.basePath}${PORTAL_PATH}`,
    api: deps.basePath,
    signIn:
      deps.signIn.kind === 'development'
        ? { kind: 'development', profiles: deps.registered }
        : {
            kind: 'oauth',
            authorizeUrl: deps.signIn.authorizeUrl,
            tokenUrl: deps.signIn.tokenUrl,
            clientId: deps.signIn.clientId,
            scopes: deps.signIn.scopes,
          },
  };
  const app = new Hono();
  app.use(portalHeaders(deps.signIn));
  app.onError((error, c) => {
    if (error instanceof SignInRequiredError) {
      return c.html(<ErrorView ctx={ctx} title="Sign in" message="Sign in to see this page." />, 401);
    }
    if (error instanceof DevSignInError) {
      return c.json({ error: { code: error.code, field: error.field, reason: error.reason } }, 400);
    }
    return c.html(
      <ErrorView ctx={ctx} title="Something went wrong" message="The page could not be made; try again." />,
      500,
    );
  });

  app.get('/favicon.svg', (c) => c.body(FAVICON_SVG, 200, FAVICON_HEADERS));
  app.get('/static/:name', async (c) => {
    const name = c.req.param('name');
    if (!isAssetName(name))
      return c.html(<ErrorPage ctx={ctx} title="Not found" message="No such file." />, 404);
    const asset = await readAsset(name);
    if (c.req.header('if-none-match') === asset.etag) return c.body(null, 304, { etag: asset.etag });
    return c.body(asset.body as Uint8Array<ArrayBuffer>, 200, {
      'content-type': asset.type,
      etag: asset.etag,
      'cache-control': 'no-cache',
    });
  });

  // Shells: no data, so no authorization needed to get them (the views they load need it).
  app.get('/', (c) => c.html(<Shell ctx={ctx} title="Clients" view={`${ctx.base}/view/clients`} />));
  app.get('/clients/:profile', (c) => {
    const profile = c.req.param('profile');
    if (!PROFILE_NAME.test(profile)) return noSuchClient(c);
    // An older page (`?older=<cursor>`) is loaded as its view; the API checks the cursor.
    const older = c.req.query('older');
    const query = older !== undefined ? `?${new URLSearchParams({ older }).toString()}` : '';
    return c.html(<Shell ctx={ctx} title={profile} view={`${ctx.base}/view/clients/${profile}${query}`} />);
  });
  app.get('/clients/:profile/request', (c) => {
    const profile = c.req.param('profile');
    if (!PROFILE_NAME.test(profile)) return noSuchClient(c);
    return c.html(
      <Shell
        ctx={ctx}
        title={`Request an export: ${profile}`}
        view={`${ctx.base}/view/clients/${profile}/request`}
      />,
    );
  });
  app.get('/sign-in', (c) => c.html(<SignInPage ctx={ctx} />));
  app.get('/callback', (c) =>
    deps.signIn.kind === 'oauth' ? c.html(<CallbackPage ctx={ctx} />) : c.redirect(`${ctx.base}/sign-in`),
  );
  const development = deps.signIn.kind === 'development' ? deps.signIn : undefined;
  if (development !== undefined) {
    app.post('/dev-sign-in', ...requireJson, async (c) => {
      const profiles = devProfiles(await c.req.json());
      const { token, expiresInSeconds } = await development.issue(profiles);
      return c.json({ token, expiresIn: expiresInSeconds }, 200, { 'cache-control': 'no-store' });
    });
  }

  app.use('/view/*', requireBearer);
  app.get('/view/clients', async (c) => c.html(<ClientsView ctx={ctx} rows={await clientRows(c)} />));
  app.get('/view/clients/:profile', async (c) => clientView(c, c.req.param('profile'), c.req.query('older')));
  app.get('/view/clients/:profile/request', async (c) => {
    const profile = c.req.param('profile');
    if (!deps.profilesOf(c).includes(profile)) return refused(c, profile);
    return requestView(c, profile, { ...DEFAULT_FORM, timeZone: [deps.timeZoneOf(profile) ?? ''] });
  });
  app.post('/view/clients/:profile/request', ...requireJson, async (c) => {
    const profile = c.req.param('profile');
    const fields = formFields(await c.req.json());
    const answer = await portalApi(c, deps.api).startExport(requestFromForm(profile, fields));
    if (!isApiError(answer.body)) {
      const location = `${ctx.base}/clients/${encodeURIComponent(profile)}#job-${answer.body.jobId}`;
      return c.html(<p>Requested.</p>, 200, { 'x-portal-location': location });
    }
    if (answer.status === 403 || answer.status === 404) return refused(c, profile, answer.status);
    if (answer.status >= 500) throw new Error(`POST /reports answered ${answer.status}`);
    return requestView(c, profile, fields, issuesByField(answer.body.error.issues), 400);
  });

  app.post('/view/clients/:profile/close', ...requireJson, async (c) => {
    const profile = c.req.param('profile');
    const fields = formFields(await c.req.json());
    const first = (name: string) => fields[name]?.[0] ?? '';
    if (first('confirm') !== CLOSE_CONFIRMED) {
      const message = `Nothing was closed: tick “I understand” to close ${first('period')} at that set.`;
      return c.html(<ErrorView ctx={ctx} title="Not closed" message={message} />, 400);
    }
    const reason = first('reason');
    const answer = await portalApi(c, deps.api).closePeriod({
      profile,
      period: first('period'),
      runId: first('runId'),
      ...(reason !== '' ? { reason } : {}),
    });
    if (answer.status === 201) {
      const location = `${ctx.base}/clients/${encodeURIComponent(profile)}#closed-periods`;
      return c.html(<p>Closed.</p>, 200, { 'x-portal-location': location });
    }
    if (answer.status === 403) return refused(c, profile, 403);
    const message = isApiError(answer.body) ? answer.body.error.message : `the API answered ${answer.status}`;
    return c.html(<ErrorView ctx={ctx} title="Not closed" message={message} />, 409);
  });

  // A set's warnings, resolved from their rows, then re-run (warnings.tsx).
  addWarningsRoutes(app, deps.api, ctx, requireJson);
  // The practice view (every client × month) and a set's verification (practice.tsx).
  addPracticeRoutes(app, deps.api, ctx, deps.profilesOf);

  app.all('*', (c) =>
    c.html(<ErrorPage ctx={ctx} title="Not found" message="There is no such page in the portal." />, 404),
  );

  function noSuchClient(c: Context) {
    return c.html(<ErrorPage ctx={ctx} title="No such client" message="That is not a client's name." />, 404);
  }

  function refused(c: Context, profile: string, status: 403 | 404 = 403) {
    const message =
      status === 404
        ? `There is no client ${profile}.`
        : `Your sign-in does not allow the client ${profile}. Ask your administrator if you should have it.`;
    return c.html(
      <ErrorView ctx={ctx} title={status === 404 ? 'No such client' : 'Not allowed'} message={message} />,
      status,
    );
  }

  async function requestView(
    c: Context,
    profile: string,
    values: FormFields,
    errors = new Map<string, string[]>(),
    status: 200 | 400 = 200,
  ) {
    const timeZone = deps.timeZoneOf(profile) ?? 'UTC';
    // The rates sources offered are the ones kept; without an answer, none (the form still works).
    const kept = await portalApi(c, deps.api).listRates();
    const rates = isApiError(kept.body) ? [] : kept.body.sources;
    return c.html(
      <RequestView
        ctx={ctx}
        profile={profile}
        values={values}
        errors={errors}
        timeZone={timeZone}
        rates={rates}
      />,
      status,
    );
  }

  /** The Clients view's rows: each allowed profile's latest set and the export running now. */
  async function clientRows(c: Context): Promise<ClientRow[]> {
    const api = portalApi(c, deps.api);
    const limit = pLimit(4);
    return Promise.all(
      deps.profilesOf(c).map((profile) =>
        limit(async (): Promise<ClientRow> => {
          const listed = await api.listJobs(profile, 20);
          if (isApiError(listed.body)) return { profile };
          const jobs = listed.body.jobs;
          const latest =
            jobs.find((job) => job.state === 'succeeded') ??
            (await olderSucceeded(api, profile, listed.body.nextCursor));
          const active = jobs.find((job) => job.state === 'queued' || job.state === 'running');
          const detail = latest ? await api.getJob(latest.jobId) : undefined;
          return {
            profile,
            ...(detail && !isApiError(detail.body) ? { latest: detail.body } : {}),
            ...(active ? { running: await withProgress(c, active) } : {}),
          };
        }),
      ),
    );
  }

  async function clientView(c: Context, profile: string, older: string | undefined) {
    const api = portalApi(c, deps.api);
    const listed = await api.listJobs(profile, SETS_LISTED, older);
    if (isApiError(listed.body)) {
      if (listed.status === 403) return refused(c, profile, 403);
      if (listed.status === 400 && listed.body.error.field === 'cursor') {
        const message = 'That page of older report sets does not exist; start from the newest.';
        return c.html(<ErrorView ctx={ctx} title="No such page" message={message} />, 404);
      }
      // 400: not a profile name at all (the API names the field), as good as unknown.
      if (listed.status === 400 || listed.status === 404) return refused(c, profile, 404);
      throw new Error(`GET /reports answered ${listed.status}`);
    }
    const jobs = listed.body.jobs;
    const limit = pLimit(4);
    const [running, sets] = await Promise.all([
      Promise.all(
        jobs
          .filter((job) => job.state === 'queued' || job.state === 'running')
          .map((job) => limit(() => withProgress(c, job))),
      ),
      Promise.all(
        jobs.filter((job) => job.state === 'succeeded').map((job) => limit(() => api.getJob(job.jobId))),
      ),
    ]);
    const details = sets.flatMap((answer) => (isApiError(answer.body) ? [] : [answer.body as JobDetail]));
    const closes = await api.listCloses(profile);
    // By period, newest first; sets of one period newest first (the list's own order).
    details.sort((a, b) => (a.period < b.period ? 1 : a.period > b.period ? -1 : 0));
    const failed = jobs.filter((job) => job.state === 'failed');
    return c.html(
      <ClientView
        ctx={ctx}
        profile={profile}
        running={running}
        failed={failed}
        sets={details}
        page={{ older: older !== undefined, next: listed.body.nextCursor }}
        {...(isApiError(closes.body) ? {} : { closes: closes.body })}
      />,
    );
  }

  /** A running job with its shards' progress, a queued one with its queue position. */
  async function withProgress(c: Context, job: JobSummary): Promise<RunningJob> {
    if (job.state === 'running') return { ...job, progress: await deps.progress(job.jobId) };
    const detail = await portalApi(c, deps.api).getJob(job.jobId);
    const position = isApiError(detail.body) ? undefined : detail.body.queuePosition;
    return { ...job, ...(position !== undefined ? { queuePosition: position } : {}) };
  }

  return app;
}

/** The security headers of every portal answer. */
function portalHeaders(signIn: PortalOptions['signIn']): MiddlewareHandler {
  const connect = ["'self'", ...(signIn.kind === 'oauth' ? [new URL(signIn.tokenUrl).origin] : [])];
  const headers = secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'none'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      connectSrc: connect,
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
    referrerPolicy: 'no-referrer',
    xFrameOptions: 'DENY',
    crossOriginResourcePolicy: 'same-origin',
    crossOriginOpenerPolicy: 'same-origin',
  });
  return async (c, next) => {
    await headers(c, next);
    if (!c.res.headers.has('cache-control')) c.res.headers.set('cache-control', 'no-store');
  };
}

/**
 * Views need the person's token. On AWS the API's JWT authorizer has checked it before the
 * function runs; locally the development authorizer has (`lib/local`). Without one, no view.
 */
const requireBearer: MiddlewareHandler = async (c, next) => {
  if (!/^Bearer \S+$/i.test(c.req.header('authorization') ?? '')) throw new SignInRequiredError();
  await next();
};

/** A JSON body of at most {@link MAX_FORM_BYTES} (a cross-site form cannot send one without CORS). */
const requireJson: [MiddlewareHandler, MiddlewareHandler] = [
  async (c, next) => {
    const type = (c.req.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/json') return c.text('expected application/json', 415);
    await next();
  },
  bodyLimit({ maxSize: MAX_FORM_BYTES, onError: (c) => c.text('too large', 413) }),
];

/** The form's fields from the posted `{ fields: { name: [values] } }`; anything else is no field. */
function formFields(body: unknown): FormFields {
  const fields = (body as { fields?: unknown } | null)?.fields;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return {};
  const result: FormFields = {};
  for (const [name, values] of Object.entries(fields as Record<string, unknown>)) {
    if (Array.isArray(values))
      result[name] = values.filter((value): value is string => typeof value === 'string');
  }
  return result;
}

/** The profiles asked of the development sign-in: 1-100 profile names. */
function devProfiles(body: unknown): string[] {
  const profiles = (body as { profiles?: unknown } | null)?.profiles;
  if (!Array.isArray(profiles) || profiles.length === 0) {
    throw new DevSignInError('profiles', 'pick at least one client');
  }
  if (
    profiles.length > 100 ||
    !profiles.every((name) => typeof name === 'string' && PROFILE_NAME.test(name))
  ) {
    throw new DevSignInError('profiles', 'expected 1-100 profile names');
  }
  return [...new Set(profiles as string[])];
}
