/**
 * `GET /reports/{jobId}/verification`: `pbs-export verify` of a succeeded job's set, in the bucket
 * (README: Proof): each file read back against the manifest, the signature against the published
 * key, the chain back to its first set. Authorized like `GET /reports/{jobId}`: another profile's
 * job answers `404` exactly as a missing one. It reads every byte of the set and of the sets
 * before it, so the portal asks for it when the accountant does, not with every job listing.
 */
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { JobIdParams } from '../api-schemas/index.ts';
import { s3SetStore, verifySets } from '../proof/index.ts';
import { errors, json } from './answers.ts';
import type { ApiDeps } from './deps.ts';
import { type JobRouteContext, succeededJob } from './job-route.ts';

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

export const verificationRoute = createRoute({
  method: 'get',
  path: '/reports/{jobId}/verification',
  summary: "A succeeded job's set verified: files against the manifest, signature, chain of sets",
  request: { params: JobIdParams },
  responses: { 200: json('the verdict', VerificationView), ...errors(400, 404, 409) },
});

/** What the route uses of `ApiDeps`. */
export type VerificationRouteDeps = Pick<ApiDeps, 'jobs' | 's3' | 'bucket'>;

/** Adds {@link verificationRoute} to `app`. */
export function addVerificationRoute(
  app: OpenAPIHono,
  deps: VerificationRouteDeps,
  ctx: JobRouteContext,
): void {
  app.openapi(verificationRoute, async (c) => {
    const found = await succeededJob(c, deps.jobs, ctx, c.req.valid('param').jobId);
    if (found.answer !== undefined) return found.answer;
    const verdict = await verifySets(s3SetStore(deps.s3, deps.bucket), [found.job.result.prefix]);
    return c.json(verdict, 200, ctx.headers);
  });
}
