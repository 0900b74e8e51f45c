/**
 * What the adjustments routes share (adjustments-route.ts, adjustments-withdraw-route.ts): the
 * helpers the API gives them, their dependencies, the schemas of their answers as the OpenAPI
 * document lists them, and the reading of `If-Match`.
 */
import { z } from '@hono/zod-openapi';
import { PROFILE_NAME } from '../export/index.ts';
import type { AdjustmentsStore } from './adjustments-store.ts';
import type { ApiDeps } from './deps.ts';
import type { JobRouteContext } from './job-route.ts';

/** What the routes use of the API's helpers: the job routes' context, and where a job's status is. */
export interface AdjustmentRouteHelpers extends JobRouteContext {
  statusUrlOf(jobId: string): string;
}

/** The API's dependencies these routes read (the fields of `ApiDeps` they use; the store always). */
export type AdjustmentRouteDeps = Pick<
  ApiDeps,
  'registry' | 'jobs' | 'starter' | 's3' | 'bucket' | 'now' | 'slots'
> & {
  adjustments: AdjustmentsStore;
};

export const ProfileParams = z.object({
  profile: z
    .string()
    .regex(PROFILE_NAME, 'expected 1-64 letters, digits, "_" or "-"')
    .openapi({ param: { name: 'profile', in: 'path' }, example: 'demo' }),
});

export const AdjustmentView = z.record(z.string(), z.unknown()).openapi('Adjustment', {
  description: 'One adjustment of lib/adjustments/schema.ts (kind, id, by, at, why and its fields)',
});

const Change = z.object({ id: z.string(), kind: z.string(), by: z.string(), at: z.string() });

export const WithdrawalView = z
  .object({
    adjustment: AdjustmentView,
    by: z.string().openapi({ description: 'who withdrew it (the signed-in caller)' }),
    at: z.string().openapi({ description: 'when (the server’s clock)' }),
    why: z.string(),
  })
  .openapi('Withdrawal', {
    description: 'An adjustment withdrawn: kept in every later version, it no longer applies',
  });

export const AdjustmentsView = z
  .object({
    profile: z.string(),
    version: z.number().int().min(0),
    adjustments: z.array(AdjustmentView),
    withdrawn: z
      .array(WithdrawalView)
      .openapi({ description: 'every adjustment withdrawn so far, oldest first (none: empty)' }),
    history: z.array(
      z.object({
        version: z.number().int(),
        count: z.number().int(),
        added: z.array(Change),
        removed: z.array(z.string()),
        withdrawn: z
          .array(Change.extend({ why: z.string() }))
          .openapi({ description: 'the adjustments this version withdrew: who, when and why' }),
      }),
    ),
  })
  .openapi('Adjustments');

export const NewAdjustment = z.record(z.string(), z.unknown()).openapi('NewAdjustment', {
  description:
    'An adjustment without by and at (set by the server); id optional (the server names one). A suggestion is accepted by posting its adjustment as it is.',
  example: { kind: 'spam', token: 'ETHG-CLAIM', why: 'Unsolicited airdrop, no market' },
});

export const Stored = z
  .object({
    profile: z.string(),
    version: z.number().int(),
    adjustment: AdjustmentView,
    checkedAgainst: z.object({ jobId: z.string(), period: z.string() }).nullable().openapi({
      description:
        'the gains set whose history the adjustment was checked against (null: the profile has none yet, so it was not checked)',
    }),
  })
  .openapi('AdjustmentStored');

export const Withdrawn = z
  .object({ profile: z.string(), version: z.number().int(), withdrawn: WithdrawalView })
  .openapi('AdjustmentWithdrawn');

export { errors, json } from './answers.ts';

/** The `If-Match` header a change needs, as the OpenAPI document shows it. */
export const IfMatchHeaders = z.object({
  'if-match': z
    .string()
    .optional()
    .openapi({ description: 'the version read, e.g. "3" ("0" before the first)' }),
});

/** The version an `If-Match` header names (`"3"`, `W/"3"`, `3`), or `null` when it names none. */
export function ifMatchVersion(header: string | undefined): number | null {
  const match = /^\s*(?:W\/)?"?(\d{1,9})"?\s*$/.exec(header ?? '');
  return match ? Number(match[1]) : null;
}
