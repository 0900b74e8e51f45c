/**
 * `POST /reports/{jobId}/archive`: "download all". Builds one zip of a succeeded job's files (the
 * manifest inside, each file checked against it while streaming, see `archive.ts`) and answers a
 * presigned link to it that downloads as `<profile>_<period>_<runId>.zip`. Authorized like
 * `GET /reports/{jobId}`: another profile's job answers `404` exactly as a missing one.
 *
 * The zip is built once per set and reused while the set's objects are unchanged (`setArchive`):
 * the next click answers in one HEAD per file instead of zipping the set again, which on Lambda
 * must fit API Gateway's 29 seconds. Clicks arriving while a build runs in this process wait for
 * that build rather than starting another.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { JobIdParams } from '../api-schemas/index.ts';
import { periodLabel } from '../export/index.ts';
import type { JobRecord } from '../jobs/index.ts';
import { presignDownload } from '../storage/index.ts';
import { errors, json } from './answers.ts';
import { archiveKey, type StoredArchive, setArchive } from './archive.ts';
import type { ApiDeps } from './deps.ts';
import { ArchiveError } from './errors.ts';
import { type JobRouteContext, succeededJob } from './job-route.ts';

/** The answer: where the zip downloads from, until when. */
export const ArchiveView = z
  .object({
    name: z.string().openapi({ example: 'demo_2024-01_20240201T000000Z.zip' }),
    bytes: z.number().int().nonnegative(),
    url: z.string().url(),
    expiresAt: z.string().datetime(),
  })
  .openapi('Archive');

export const archiveRoute = createRoute({
  method: 'post',
  path: '/reports/{jobId}/archive',
  summary: "One zip of a succeeded job's files, the manifest inside, each checked against it",
  request: { params: JobIdParams },
  responses: { 200: json('a link to the zip', ArchiveView), ...errors(400, 404, 409, 500) },
});

/** What the route uses of `ApiDeps`. */
export type ArchiveRouteDeps = Pick<ApiDeps, 'jobs' | 's3' | 'bucket' | 'now' | 'onError'>;

/** What the route needs from `app.ts`: the job routes' context, and how long a link lasts. */
export interface ArchiveRouteContext extends JobRouteContext {
  linkExpirySeconds: number;
}

/** The name the zip downloads as: `<profile>_<period>_<runId>.zip`. */
export function archiveName(job: JobRecord, runId: string): string {
  return `${job.profile}_${periodLabel(job.request.period)}_${runId}.zip`;
}

/** Adds {@link archiveRoute} to `app`. */
export function addArchiveRoute(app: OpenAPIHono, deps: ArchiveRouteDeps, ctx: ArchiveRouteContext): void {
  /** The zips being made now, by key: a second click waits for the first one's. */
  const making = new Map<string, Promise<StoredArchive>>();
  const archiveOnce = (result: NonNullable<JobRecord['result']>, key: string): Promise<StoredArchive> => {
    const running = making.get(key);
    if (running !== undefined) return running;
    const made = setArchive(deps, result, key).finally(() => making.delete(key));
    making.set(key, made);
    return made;
  };
  app.openapi(archiveRoute, async (c) => {
    const { jobId } = c.req.valid('param');
    const found = await succeededJob(c, deps.jobs, ctx, jobId);
    if (found.answer !== undefined) return found.answer;
    const { job } = found;
    const key = archiveKey(jobId, job.result.runId);
    try {
      const stored = await archiveOnce(job.result, key);
      const now = deps.now();
      const name = archiveName(job, job.result.runId);
      const url = await presignDownload({
        client: deps.s3,
        bucket: deps.bucket,
        key: stored.key,
        fileName: name,
        expiresInSeconds: ctx.linkExpirySeconds,
        signingDate: now,
      });
      const expiresAt = new Date(now.getTime() + ctx.linkExpirySeconds * 1000).toISOString();
      return c.json({ name, bytes: stored.bytes, url, expiresAt }, 200, ctx.headers);
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      // A set that differs from its manifest is never offered: told to the operator, answered 500.
      deps.onError?.(`zip of job ${jobId} refused`, error);
      return c.json(ctx.apiError('archive_failed', error.message, null), 500, ctx.headers);
    }
  });
}
