/**
 * What the adjustments routes share (adjustments-route.ts, adjustments-withdraw-route.ts): the
 * helpers the API gives them, their dependencies, the schemas of their answers as the OpenAPI
 * document lists them, and the reading of `If-Match`.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { ErrorBody } from '../api-schemas/index.ts';
import { PROFILE_NAME } from '../export/index.ts';
import type { ExecutionStarter, JobStore, ProfileRegistry, ProfileSlots } from '../jobs/index.ts';
import type { AdjustmentsStore } from './adjustments-store.ts';

/** What the routes use of the API's helpers. */
export interface AdjustmentRouteHelpers {
  mayUseProfile(c: Context, profile: string): boolean;
  headers: Record<string, string>;
  statusUrlOf(jobId: string): string;
  apiError(code: string, message: string, field?: string | null): z.infer<typeof ErrorBody>;
}

/** The API's dependencies these routes read (the fields of `ApiDeps` they use). */
export interface AdjustmentRouteDeps {
  registry: ProfileRegistry;
  jobs: JobStore;
  starter: ExecutionStarter;
  s3: S3Client;
  bucket: string;
  now: () => Date;
  slots?: Pick<ProfileSlots, 'enqueue' | 'release' | 'position'> | undefined;
  adjustments: AdjustmentsStore;
}

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

/** An answer of JSON `schema`, for `createRoute`. */
export const json = <S>(description: string, schema: S) => ({
  description,
  content: { 'application/json': { schema } },
});
const ERROR = json('error: code, message, field, issues', ErrorBody);

/** The error answers of `statuses`, for `createRoute`. */
export const errors = <S extends number>(...statuses: S[]) =>
  Object.fromEntries(statuses.map((status) => [status, ERROR])) as Record<S, typeof ERROR>;

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
