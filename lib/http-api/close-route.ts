/**
 * Closing periods over the API: `POST /closes` closes a profile's period at a run's set,
 * `POST /closes/reopen` reopens it (a recorded exception), `GET /closes?profile=…` lists the
 * profile's periods with their close history and restatements. Authorized per profile like
 * `POST /reports` (`403` outside the caller's profiles); the close is attributed to the caller.
 * On a bucket with Object Lock enabled, the set's objects get governance retention at close time.
 */
import { paginateListObjectsV2, type S3Client } from '@aws-sdk/client-s3';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import {
  CloseRecordTakenError,
  closePeriod,
  createS3CloseStore,
  governanceLock,
  objectLockEnabled,
  PeriodAlreadyClosedError,
  PeriodNotClosedError,
  periodStates,
  type RestatementManifest,
  RunNotFoundError,
  reopenPeriod,
} from '../close/index.ts';
import { ValidationError } from '../errors.ts';
import { PROFILE_NAME } from '../export/index.ts';
import { presignDownload } from '../storage/index.ts';
import { ERROR, json } from './answers.ts';
import type { JobRouteContext } from './job-route.ts';

const CloseBody = z
  .object({
    profile: z.string().regex(PROFILE_NAME, 'expected 1-64 letters, digits, "_" or "-"'),
    period: z.string().openapi({ example: '2025-10' }),
    runId: z.string().openapi({ example: '20251103T091500Z-3f9a1c' }),
    reason: z.string().max(2000).optional(),
  })
  .openapi('CloseRequest');

const ReopenBody = z
  .object({
    profile: z.string().regex(PROFILE_NAME, 'expected 1-64 letters, digits, "_" or "-"'),
    period: z.string(),
    reason: z.string().min(1, 'required: a reopen is an exception an auditor asks about').max(2000),
  })
  .openapi('ReopenRequest');

const CloseRecordView = z.record(z.string(), z.unknown()).openapi('CloseRecord');
const ClosesView = z
  .object({
    profile: z.string(),
    periods: z.array(
      z.object({ period: z.string(), closed: CloseRecordView.nullable(), history: z.array(CloseRecordView) }),
    ),
    restatements: z.array(
      z.object({
        period: z.string(),
        prefix: z.string(),
        summary: z.string(),
        checkedAt: z.string(),
        files: z
          .array(z.object({ name: z.string(), bytes: z.number().int(), sha256: z.string(), url: z.string() }))
          .openapi({
            description: "the restatement's files (its manifest's), with presigned download links",
          }),
      }),
    ),
  })
  .openapi('Closes');

const closeRoute = createRoute({
  method: 'post',
  path: '/closes',
  summary: "Close a profile's period at a run's set (never replaced or deleted afterwards)",
  request: { body: { required: true, content: { 'application/json': { schema: CloseBody } } } },
  responses: {
    201: json('the close record', CloseRecordView),
    400: ERROR,
    403: ERROR,
    404: ERROR,
    409: ERROR,
  },
});

const reopenRoute = createRoute({
  method: 'post',
  path: '/closes/reopen',
  summary: 'Reopen a closed period (recorded; the close stays on file)',
  request: { body: { required: true, content: { 'application/json': { schema: ReopenBody } } } },
  responses: { 201: json('the reopen record', CloseRecordView), 400: ERROR, 403: ERROR, 409: ERROR },
});

const listRoute = createRoute({
  method: 'get',
  path: '/closes',
  summary: "A profile's closed periods, who closed them, and their restatements",
  request: { query: z.object({ profile: z.string().regex(PROFILE_NAME, 'expected a profile name') }) },
  responses: { 200: json('the closes', ClosesView), 400: ERROR, 403: ERROR },
});

/** What the routes use (a part of `ApiDeps`). */
export interface CloseRouteDeps {
  s3: S3Client;
  bucket: string;
  now: () => Date;
}

/** What the routes need from `app.ts`. */
export interface CloseRouteContext extends JobRouteContext {
  /** The caller's name (JWT email/user, IAM ARN), or undefined for the local operator. */
  callerName: (c: Context) => string | undefined;
  /** How long a download link lasts, as the sets' links. */
  linkExpirySeconds: number;
}

/** Adds the close routes to `app`. */
export function addCloseRoutes(app: OpenAPIHono, deps: CloseRouteDeps, ctx: CloseRouteContext): void {
  const store = createS3CloseStore({ client: deps.s3, bucket: deps.bucket });
  const forbidden = (c: Context) =>
    c.json(
      ctx.apiError('forbidden_profile', 'this caller may not use that profile', 'profile'),
      403,
      ctx.headers,
    );
  const by = (c: Context) => ctx.callerName(c) ?? 'operator';

  app.openapi(closeRoute, async (c) => {
    const body = c.req.valid('json');
    if (!ctx.mayUseProfile(c, body.profile)) return forbidden(c);
    try {
      const lockable = await objectLockEnabled(deps.s3, deps.bucket);
      const record = await closePeriod(
        { ...body, by: by(c) },
        {
          store,
          now: deps.now,
          ...(lockable ? { lock: governanceLock({ client: deps.s3, bucket: deps.bucket }) } : {}),
        },
      );
      return c.json(record, 201, ctx.headers);
    } catch (error) {
      if (error instanceof RunNotFoundError)
        return c.json(ctx.apiError('run_not_found', error.message, 'runId'), 404, ctx.headers);
      if (error instanceof PeriodAlreadyClosedError || error instanceof CloseRecordTakenError)
        return c.json(ctx.apiError(error.code, error.message, 'period'), 409, ctx.headers);
      if (error instanceof ValidationError)
        return c.json(ctx.apiError('invalid_request', error.message, error.field), 400, ctx.headers);
      throw error;
    }
  });

  app.openapi(reopenRoute, async (c) => {
    const body = c.req.valid('json');
    if (!ctx.mayUseProfile(c, body.profile)) return forbidden(c);
    try {
      return c.json(await reopenPeriod({ ...body, by: by(c) }, { store, now: deps.now }), 201, ctx.headers);
    } catch (error) {
      if (error instanceof PeriodNotClosedError || error instanceof CloseRecordTakenError)
        return c.json(ctx.apiError(error.code, error.message, 'period'), 409, ctx.headers);
      if (error instanceof ValidationError)
        return c.json(ctx.apiError('invalid_request', error.message, error.field), 400, ctx.headers);
      throw error;
    }
  });

  app.openapi(listRoute, async (c) => {
    const { profile } = c.req.valid('query');
    if (!ctx.mayUseProfile(c, profile)) return forbidden(c);
    const records = (await store.records()).filter((record) => record.profile === profile);
    const periods = periodStates(records)
      .sort((a, b) => b.period.localeCompare(a.period))
      .map((state) => ({ period: state.period, closed: state.closed, history: state.history }));
    const restatements = await restatementsOf(deps, profile, ctx.linkExpirySeconds);
    return c.json({ profile, periods, restatements }, 200, ctx.headers);
  });
}

/** One restatement as `GET /closes` lists it. */
export interface RestatementView {
  period: string;
  prefix: string;
  summary: string;
  checkedAt: string;
  /** Its files, each with a presigned download link lasting `linkExpirySeconds`. */
  files: { name: string; bytes: number; sha256: string; url: string }[];
}

/** The restatements published for `profile`, newest first (their manifests' summaries and files). */
export async function restatementsOf(
  deps: CloseRouteDeps,
  profile: string,
  linkExpirySeconds: number,
): Promise<RestatementView[]> {
  const store = createS3CloseStore({ client: deps.s3, bucket: deps.bucket });
  const found: RestatementView[] = [];
  const pages = paginateListObjectsV2(
    { client: deps.s3 },
    { Bucket: deps.bucket, Prefix: `restatements/${profile}/` },
  );
  const signingDate = deps.now();
  for await (const page of pages) {
    for (const object of page.Contents ?? []) {
      const key = object.Key ?? '';
      if (!key.endsWith('/manifest.json')) continue;
      const body = await store.read(key);
      if (body === null) continue;
      const manifest = JSON.parse(body.toString('utf8')) as RestatementManifest;
      const prefix = key.slice(0, -'/manifest.json'.length);
      // Links to the restatement's own objects only, whatever a manifest names.
      const files = (manifest.files ?? []).filter((file) => file.key.startsWith(`${prefix}/`));
      found.push({
        period: manifest.period,
        prefix,
        summary: manifest.summary,
        checkedAt: manifest.checkedAt,
        files: await Promise.all(
          files.map(async (file) => ({
            name: file.name,
            bytes: file.bytes,
            sha256: file.sha256,
            url: await presignDownload({
              client: deps.s3,
              bucket: deps.bucket,
              key: file.key,
              fileName: file.name.split('/').pop() || file.name,
              expiresInSeconds: linkExpirySeconds,
              signingDate,
            }),
          })),
        ),
      });
    }
  }
  return found.sort((a, b) => b.checkedAt.localeCompare(a.checkedAt));
}
