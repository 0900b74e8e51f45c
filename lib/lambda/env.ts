/**
 * The environment variables of the Lambda functions: set by the stack (`infra/`), read only by
 * the runtime (`runtime.ts`) through {@link readEnv}, each validated by its zod schema.
 */
import { z } from 'zod';
import { ECB_HIST_URL, HMRC_MONTHLY_URL } from '../fx-store/index.ts';
import { CLAIM_NAME, DEFAULT_LINK_EXPIRY_SECONDS } from '../http-api/index.ts';
import { type ProfileRegistry, parseProfileRegistry } from '../jobs/index.ts';
import { PBS_CLIENT_DEFAULTS } from '../pbs/index.ts';
import { connectionSchema, serviceShapeSchema } from '../settings.ts';
import { MAX_PRESIGN_EXPIRY_SECONDS } from '../storage/index.ts';
import { ConfigError } from './errors.ts';
import { portalSignInSchema } from './portal-sign-in.ts';
import { DEFAULT_SECRET_MAX_AGE_SECONDS } from './secrets.ts';

/** Environment variables the functions read (set by the stack). */
export const ENV = {
  /** Name of the bucket holding jobs, work files and reports. */
  bucket: 'PBS_BUCKET',
  /** JSON {@link ProfileRegistry}: the registered portfolios. */
  profiles: 'PBS_PROFILES',
  /** Base URL of the Portfolio Balance Service. */
  baseUrl: 'PBS_BASE_URL',
  /** Optional JSON `ServiceShapeOverrides` (GAPS.md alternatives). */
  serviceShape: 'PBS_SERVICE_SHAPE',
  /** Requests per second per client (the service allows 20 per key). */
  requestsPerSecond: 'PBS_REQUESTS_PER_SECOND',
  /** Cache age of secrets read through Powertools parameters, in seconds. */
  secretMaxAgeSeconds: 'PBS_SECRET_MAX_AGE_SECONDS',
  /** ARN of the export state machine (HTTP API and monthly start functions). */
  exportStateMachineArn: 'PBS_EXPORT_STATE_MACHINE_ARN',
  /** Expiry of presigned download links, in seconds. */
  linkExpirySeconds: 'PBS_LINK_EXPIRY_SECONDS',
  /**
   * HTTP API only, optional: the JWT claim listing the profiles a caller may use. Unset: every
   * caller may use every registered profile (see `authorization.ts`).
   */
  profilesClaim: 'PBS_PROFILES_CLAIM',
  /**
   * HTTP API only: the URL callers reach the API at (`https://host[/base path]`); status URLs are
   * built from it, never from request headers. The stack sets the API's own endpoint.
   */
  publicBaseUrl: 'PBS_PUBLIC_BASE_URL',
  /**
   * HTTP API only, optional: JSON `{authorizeUrl, tokenUrl, clientId, scopes}` of the portal's
   * sign-in (the stack's Cognito app client). Unset: no portal pages.
   */
  portalSignIn: 'PBS_PORTAL_SIGN_IN',
  /** Finish and fail only, optional: the SNS topic told when an export ends. */
  notifyTopicArn: 'PBS_NOTIFY_TOPIC_ARN',
  /** Finish and fail only (with the topic): the portal's URL, which notices link to. */
  portalUrl: 'PBS_PORTAL_URL',
  /**
   * Finish only, optional: ARN of the KMS key (ECC_NIST_P256, SIGN_VERIFY) that signs each
   * manifest's digest (README: Proof). Unset: the sets are not signed.
   */
  signingKeyArn: 'PBS_SIGNING_KEY_ARN',
  /** Rates fetch only, optional: the ECB's history file (default: the ECB's `eurofxref-hist.zip`). */
  ratesEcbUrl: 'PBS_RATES_ECB_URL',
  /** Rates fetch only, optional: HMRC's monthly file, `{month}` for `YYYY-MM` (default: the Trade Tariff service's XML). */
  ratesHmrcUrl: 'PBS_RATES_HMRC_URL',
} as const;

/**
 * Optional environment variables added for S3-compatible stores (local runs and tests):
 * the endpoint switches the S3 client to path-style addressing and on-demand checksums.
 */
export const OPTIONAL_ENV = {
  /** S3-compatible endpoint such as `http://127.0.0.1:4568`; unset on AWS. */
  s3Endpoint: 'PBS_S3_ENDPOINT',
} as const;

/** A blank variable counts as unset; others are trimmed. */
function blankToUndefined(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return value.trim() === '' ? undefined : value.trim();
}

const required = z.string({ error: 'is required' });

function wholeNumber(min: number, max: number, fallback: number) {
  const message = `expected a whole number from ${min} to ${max}`;
  return z.preprocess(
    (value) => {
      const text = blankToUndefined(value);
      return text === undefined ? undefined : Number(text);
    },
    z.number({ error: message }).int(message).min(min, message).max(max, message).default(fallback),
  );
}

/** JSON text validated by `schema`. */
function jsonOf<T extends z.ZodType>(schema: T) {
  return required
    .transform((text, context) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        context.addIssue({ code: 'custom', message: 'is not valid JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);
}

const httpUrl = required.pipe(z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }));

/**
 * The schema of each variable, by name: what the runtime reads, each on first use (a function
 * needs only the variables of what it uses). The service's pieces are `lib/settings.ts`'s own
 * schemas, so `PBS_BASE_URL` and `PBS_SERVICE_SHAPE` are checked as the CLI's config file and
 * the CDK context are.
 */
export const ENV_SCHEMAS = {
  [ENV.bucket]: z.preprocess(blankToUndefined, required),
  [ENV.profiles]: z.preprocess(
    blankToUndefined,
    required.transform((text, context): ProfileRegistry => {
      try {
        return parseProfileRegistry(text);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    }),
  ),
  [ENV.baseUrl]: z.preprocess(blankToUndefined, required.pipe(connectionSchema.shape.baseUrl)),
  [ENV.serviceShape]: z.preprocess(blankToUndefined, jsonOf(serviceShapeSchema).optional()),
  // Unset: the client's own default (the service's limit per key), as the CLI and `serve` use it.
  [ENV.requestsPerSecond]: wholeNumber(1, 1000, PBS_CLIENT_DEFAULTS.requestsPerSecond),
  [ENV.secretMaxAgeSeconds]: wholeNumber(0, 86_400, DEFAULT_SECRET_MAX_AGE_SECONDS),
  [ENV.exportStateMachineArn]: z.preprocess(blankToUndefined, required),
  [ENV.linkExpirySeconds]: wholeNumber(1, MAX_PRESIGN_EXPIRY_SECONDS, DEFAULT_LINK_EXPIRY_SECONDS),
  [ENV.profilesClaim]: z.preprocess(
    blankToUndefined,
    z.string().regex(CLAIM_NAME, 'expected a claim name of 1-256 visible ASCII characters').optional(),
  ),
  [ENV.publicBaseUrl]: z.preprocess(
    blankToUndefined,
    httpUrl
      .refine((value) => {
        // Refinements run even after the URL check failed: a value that is no URL passes here.
        const url = URL.canParse(value) ? new URL(value) : null;
        return url === null || (url.search === '' && url.hash === '' && url.username === '');
      }, 'expected an http(s) URL without credentials, query or fragment')
      .transform((value) => value.replace(/\/+$/, '')),
  ),
  [ENV.portalSignIn]: z.preprocess(blankToUndefined, jsonOf(portalSignInSchema).optional()),
  [ENV.notifyTopicArn]: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^arn:[a-z-]+:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/, 'expected an SNS topic ARN')
      .optional(),
  ),
  [ENV.portalUrl]: z.preprocess(blankToUndefined, httpUrl.optional()),
  [ENV.signingKeyArn]: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^arn:[a-z-]+:kms:[a-z0-9-]+:\d{12}:key\/[0-9a-f-]{36}$/, 'expected a KMS key ARN')
      .optional(),
  ),
  [ENV.ratesEcbUrl]: z.preprocess(blankToUndefined, httpUrl.default(ECB_HIST_URL)),
  [ENV.ratesHmrcUrl]: z.preprocess(
    blankToUndefined,
    httpUrl
      .refine((value) => value.includes('{month}'), 'expected a URL with {month} where the month goes')
      .default(HMRC_MONTHLY_URL),
  ),
  [OPTIONAL_ENV.s3Endpoint]: z.preprocess(blankToUndefined, httpUrl.optional()),
  AWS_REGION: z.preprocess(blankToUndefined, z.string().default('us-east-1')),
} as const;

/** Names of the variables {@link readEnv} reads. */
export type EnvName = keyof typeof ENV_SCHEMAS;

/** Environment of a function. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The value of one variable; throws {@link ConfigError} naming it and the reason (never its value). */
export function readEnv<N extends EnvName>(env: Env, name: N): z.output<(typeof ENV_SCHEMAS)[N]> {
  const parsed = ENV_SCHEMAS[name].safeParse(env[name]);
  if (parsed.success) return parsed.data as z.output<(typeof ENV_SCHEMAS)[N]>;
  const issue = parsed.error.issues[0];
  const path = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  throw new ConfigError(name, `${path}${issue?.message ?? 'is invalid'}`);
}
