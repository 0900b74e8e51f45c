/**
 * What the routes on one job (`/reports/{jobId}…`) share: the job the caller may see, and the
 * answers when it may not or it has no set yet. Another profile's job answers `404` exactly as a
 * missing one: its existence is not revealed.
 */
import type { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ErrorBody } from '../api-schemas/index.ts';
import type { JobRecord, JobStore } from '../jobs/index.ts';

/** What a route needs from `app.ts`: who may use a profile, the headers, the error body. */
export interface JobRouteContext {
  mayUseProfile: (c: Context, profile: string) => boolean;
  headers: Record<string, string>;
  apiError: (code: string, message: string, field?: string | null) => z.infer<typeof ErrorBody>;
}

/** A succeeded job, with its set. */
export type SucceededJob = JobRecord & { result: NonNullable<JobRecord['result']> };

/** The job `jobId` when the caller may see it, else `null` (another profile's job is as missing). */
export async function visibleJob(
  c: Context,
  jobs: Pick<JobStore, 'get'>,
  ctx: JobRouteContext,
  jobId: string,
): Promise<JobRecord | null> {
  const job = await jobs.get(jobId);
  return job !== null && ctx.mayUseProfile(c, job.profile) ? job : null;
}

/** The `404` of a job that does not exist (or that the caller may not see). */
export function jobNotFound(c: Context, ctx: JobRouteContext, jobId: string) {
  return c.json(ctx.apiError('job_not_found', `job ${jobId} does not exist`, 'jobId'), 404, ctx.headers);
}

/**
 * The succeeded job `jobId` the caller may see, or the answer instead: `404` as
 * {@link jobNotFound}, `409 job_not_finished` for a job without its set yet.
 */
export async function succeededJob(
  c: Context,
  jobs: Pick<JobStore, 'get'>,
  ctx: JobRouteContext,
  jobId: string,
) {
  const job = await visibleJob(c, jobs, ctx, jobId);
  if (job === null) return { answer: jobNotFound(c, ctx, jobId) } as const;
  if (job.state !== 'succeeded' || job.result === undefined) {
    const message = `job ${jobId} has no files yet (it is ${job.state})`;
    return { answer: c.json(ctx.apiError('job_not_finished', message, 'jobId'), 409, ctx.headers) } as const;
  }
  return { job: job as SucceededJob } as const;
}
