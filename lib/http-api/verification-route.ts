/**
 * `GET /reports/{jobId}/verification`: `pbs-export verify` of a succeeded job's set, in the bucket
 * (README: Proof): each file read back against the manifest, the signature against the published
 * key, the chain back to its first set. Authorized like `GET /reports/{jobId}`: another profile's
 * job answers `404` exactly as a missing one. It reads every byte of the set and of the sets
 * before it, so the portal asks for it when the accountant does, not with every job listing.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ErrorBody, JobIdParams } from '../api-schemas/index.ts';
import type { JobStore } from '../jobs/index.ts';
import { s3SetStore, verifySets } from '../proof/index.ts';

/** One check of a set and whether it holds. */
const FindingView = z.object({ holds: z.boolean(), text: z.string() }).openapi('VerificationFinding');

/** The answer: whether everything holds, and each set's checks, this job's set first. */
export const VerificationView = z
  .object({
    holds: z.boolean(),
    sets: z.array(
      z.object({
        prefix: z.string().openapi({ example: 'reports/demo/2025-02/20250301T021500Z-3f9a1c' }),
        holds: z.boolean(),
        findings: z.array(FindingView),
      }),
    ),
  })
  .openapi('Verification');

const ERROR = {
  description: 'error: code, message, field, issues',
  content: { 'application/json': { schema: ErrorBody } },
};

export const verificationRoute = createRoute({
  method: 'get',
  path: '/reports/{jobId}/verification',
  summary: "A succeeded job's set verified: files against the manifest, signature, chain of sets",
  request: { params: JobIdParams },
  responses: {
    200: { description: 'the verdict', content: { 'application/json': { schema: VerificationView } } },
    400: ERROR,
    404: ERROR,
    409: ERROR,
  },
});

/** What the route uses (a part of `ApiDeps`). */
export interface VerificationRouteDeps {
  jobs: JobStore;
  s3: S3Client;
  bucket: string;
}

/** What the route needs from `app.ts`: who may use a profile, the headers, the error body. */
export interface VerificationRouteContext {
  mayUseProfile: (c: Context, profile: string) => boolean;
  headers: Record<string, string>;
  apiError: (code: string, message: string, field?: string | null) => z.infer<typeof ErrorBody>;
}

/** Adds {@link verificationRoute} to `app`. */
export function addVerificationRoute(
  app: OpenAPIHono,
  deps: VerificationRouteDeps,
  ctx: VerificationRouteContext,
): void {
  app.openapi(verificationRoute, async (c) => {
    const { jobId } = c.req.valid('param');
    const job = await deps.jobs.get(jobId);
    if (job === null || !ctx.mayUseProfile(c, job.profile)) {
      return c.json(ctx.apiError('job_not_found', `job ${jobId} does not exist`, 'jobId'), 404, ctx.headers);
    }
    if (job.state !== 'succeeded' || job.result === undefined) {
      const message = `job ${jobId} has no files yet (it is ${job.state})`;
      return c.json(ctx.apiError('job_not_finished', message, 'jobId'), 409, ctx.headers);
    }
    const verdict = await verifySets(s3SetStore(deps.s3, deps.bucket), [job.result.prefix]);
    return c.json(verdict, 200, ctx.headers);
  });
}
