/**
 * The request and response schemas of the HTTP API (zod): the routes validate requests with them
 * and the OpenAPI 3.1 document (`GET /openapi.json`) is generated from them. Below both the API
 * (`lib/http-api`) and the portal's client of it (`lib/portal/api-client.ts`, types only).
 */
import { z } from '@hono/zod-openapi';
import { PROFILE_NAME } from '../domain/index.ts';
import { ExportRequestSchema } from '../export/index.ts';
import { RATE_SOURCES } from '../fx/index.ts';
import { JOB_CURSOR, JOB_ID } from '../jobs/index.ts';

/** Default and largest `limit` of the job list. */
export const LIST_LIMIT = { default: 20, max: 100 } as const;

/**
 * A query value as API Gateway hands it: a repeated parameter is one value joined with commas
 * (so `limit=1&limit=2` is refused as `1,2`, on AWS and locally alike).
 */
const queryValue = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (Array.isArray(value) ? value.join(',') : value), schema);

const limitReason = `expected a whole number from 1 to ${LIST_LIMIT.max}`;

/** `GET /reports/{jobId}`. */
export const JobIdParams = z.object({
  jobId: z
    .string()
    .regex(JOB_ID, 'expected 32 lowercase hex characters')
    .openapi({ param: { name: 'jobId', in: 'path' }, example: '0123456789abcdef0123456789abcdef' }),
});

/** `GET /reports?profile=…&limit=…&cursor=…`. */
export const ListQuery = z.object({
  profile: queryValue(
    z
      .string({ error: 'required' })
      .min(1, 'required')
      .regex(PROFILE_NAME, 'expected 1-64 letters, digits, "_" or "-"'),
  ).openapi({ param: { name: 'profile', in: 'query', required: true }, type: 'string', example: 'acme' }),
  limit: queryValue(
    z
      .string()
      .regex(/^\d{1,3}$/, limitReason)
      .transform(Number)
      .pipe(z.number().int().min(1, limitReason).max(LIST_LIMIT.max, limitReason))
      .optional(),
  ).openapi({ param: { name: 'limit', in: 'query', required: false }, type: 'integer', example: 20 }),
  cursor: queryValue(
    z.string().regex(JOB_CURSOR, 'expected the nextCursor of a previous answer').optional(),
  ).openapi({
    param: { name: 'cursor', in: 'query', required: false },
    type: 'string',
    description: "the previous answer's nextCursor: the next (older) page; none: the newest jobs",
  }),
});

/** `POST /reports` body: the export request (`lib/export/plan/request.ts`). */
export const ExportRequestBody = ExportRequestSchema;

/** The `Idempotency-Key` header: 1-255 visible ASCII characters. */
export const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** Body of every error answer. */
export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string(),
      message: z.string(),
      field: z.string().nullable(),
      issues: z.array(z.object({ field: z.string(), reason: z.string() })),
    }),
  })
  .openapi('Error');

const JobState = z.enum(['queued', 'running', 'succeeded', 'failed']);

/** `202` to a new export. */
export const Accepted = z
  .object({ jobId: z.string(), state: JobState, statusUrl: z.url() })
  .openapi('Accepted');

/** A job as `GET /reports/{jobId}` (and a repeated `POST`) shows it. */
export const JobView = z
  .object({
    jobId: z.string(),
    profile: z.string(),
    state: JobState,
    source: z.enum(['api', 'schedule']),
    requestedBy: z
      .string()
      .optional()
      .describe('who started an on-demand export (email, user name or IAM ARN)'),
    period: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    request: z.record(z.string(), z.any()).describe('the export request, defaults filled in'),
    statusUrl: z.url(),
    reason: z.string().optional(),
    queuePosition: z.number().int().min(1).optional(),
    runId: z.string().optional(),
    reconciliation: z
      .object({
        status: z.string(),
        note: z.string(),
        opening: z
          .object({
            status: z.string(),
            note: z.string(),
            previousPeriod: z.string().optional(),
          })
          .optional()
          .describe(
            'its opening balances against the closing ones of the closed period before (continues, break, ' +
              'no-closed-previous, not-checked), and that period',
          ),
      })
      .optional()
      .describe(
        "the set's reconciliation with the service's reported balances (reconciled, differences, not-reconciled)",
      ),
    linksExpireAt: z.string().optional(),
    files: z
      .array(
        z.object({
          name: z.string(),
          bytes: z.number().int(),
          sha256: z.string(),
          rows: z.number().int().optional(),
          url: z.url(),
        }),
      )
      .optional(),
  })
  .openapi('Job');

/** `GET /reports`: a page of the profile's jobs, newest first, and where the next page starts. */
export const JobList = z
  .object({
    profile: z.string(),
    jobs: z.array(
      z.object({
        jobId: z.string(),
        state: JobState,
        source: z.enum(['api', 'schedule']),
        requestedBy: z.string().optional(),
        period: z.string(),
        createdAt: z.string(),
        updatedAt: z.string(),
        statusUrl: z.url(),
        reason: z.string().optional(),
      }),
    ),
    nextCursor: z
      .string()
      .optional()
      .describe('present when older jobs follow: pass it as `cursor` to get the next page'),
  })
  .openapi('JobList');

/** `GET /rates`: the rates files the bucket keeps, by source (a request's `gains.rates.source`). */
export const KeptRatesList = z
  .object({
    sources: z.array(
      z.object({
        source: z.enum(RATE_SOURCES),
        description: z.string().openapi({ example: 'HMRC monthly exchange rates (currency units per £1)' }),
        files: z
          .number()
          .int()
          .nonnegative()
          .describe('published names kept (0: a request for this source is refused)'),
        demo: z
          .boolean()
          .describe('every file kept is a DEMO rates file (made up, named DEMO-…): not for filing'),
        newest: z.string().optional().describe('when the newest file was kept'),
      }),
    ),
  })
  .openapi('KeptRates');
