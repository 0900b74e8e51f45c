import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DateTime, IANAZone } from 'luxon';
import { z } from 'zod';
import { GainsOptionsSchema, PROFILE_NAME } from '../lib/export/index.ts';
import { ECB_HIST_URL, HMRC_MONTHLY_URL } from '../lib/fx-store/index.ts';
import { CLAIM_NAME, DEFAULT_PROFILES_CLAIM } from '../lib/http-api/index.ts';
import { portalSignInSchema } from '../lib/lambda/index.ts';
import { type JournalRequest, journalSchema } from '../lib/ledger/index.ts';
import { SERVICE_RATE_LIMIT_PER_KEY } from '../lib/pbs/index.ts';
import { connectionSchema, serviceShapeSchema } from '../lib/settings.ts';
import { PbsConfigError } from './errors.ts';

/** Requests per second the service accepts per API key (defined with the client's defaults). */
export { SERVICE_RATE_LIMIT_PER_KEY };

/** The context key of the deployment config in `cdk.json` (`context.pbs`) or `-c pbs='{…}'`. */
export const CONTEXT_KEY = 'pbs';

const ianaZone = z
  .string()
  .refine((zone) => IANAZone.isValidZone(zone), 'expected an IANA time zone such as "Europe/Berlin"');

/**
 * A Secrets Manager secret ARN, complete with its 6-character suffix (IAM matches it exactly).
 * `${AWS::Partition}`, `${AWS::Region}` and `${AWS::AccountId}` may stand for the stack's own.
 */
const secretArn = z
  .string()
  .regex(
    /^arn:(\$\{AWS::Partition\}|aws[a-z-]*):secretsmanager:(\$\{AWS::Region\}|[a-z0-9-]+):(\$\{AWS::AccountId\}|\d{12}):secret:[A-Za-z0-9/_+=.@-]+-[A-Za-z0-9]{6}$/,
    'expected the full ARN of a Secrets Manager secret (with its 6-character suffix)',
  );

const retentionDays = z
  .number()
  .int()
  .refine(
    (days) => (Object.values(RetentionDays) as unknown[]).includes(days),
    'expected a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, …)',
  );

const ProfileSchema = z.strictObject({
  secretArn,
  timeZone: ianaZone,
  monthly: z.boolean().default(false),
  /** The gains policies of this profile's monthly exports (replaces the deployment's `gains`). */
  gains: GainsOptionsSchema.optional(),
  /**
   * The journal of this profile's monthly exports (a request's `journal`: chart of accounts,
   * rollup, formats): with it the monthly export adds the journal report (and the gains reports).
   */
  journal: journalSchema.optional(),
});

/** The deployment config (`context.pbs`); every field but `profiles` and `baseUrl` has a default. */
export const PbsConfigSchema = z
  .strictObject({
    /** Registered portfolios: name → secret, zone, monthly. At least one. */
    profiles: z
      .record(z.string().regex(PROFILE_NAME, 'expected 1–64 of A-Z a-z 0-9 _ -'), ProfileSchema)
      .refine((profiles) => Object.keys(profiles).length > 0, 'register at least one profile'),
    /** Base URL of the Portfolio Balance Service (https; the settings' own schema, narrowed). */
    baseUrl: connectionSchema.shape.baseUrl.refine(
      (url) => url.startsWith('https:'),
      'expected an https URL',
    ),
    /**
     * Optional wire-shape overrides (README "Wire shapes"), passed to the functions as JSON:
     * validated here by the same schema as the CLI's config file and the functions' environment.
     */
    serviceShape: serviceShapeSchema.optional(),
    /**
     * The URL callers reach the HTTP API at (a custom domain, a proxy), for the status URLs it
     * answers. Default: the API's own endpoint. Never taken from request headers.
     */
    publicBaseUrl: z
      .url({ protocol: /^https$/ })
      .refine((url) => !/[?#]/.test(url), 'expected a URL without query or fragment')
      .optional(),
    /**
     * Gains policies of the monthly exports (a request's `gains`: taxRules, method, pooling,
     * taxYearStart, longTermYears, transferToleranceHours, sameInstantOrder, protocolMoves,
     * transferInBasis, transferFee). With it (or a profile's own `gains`) a monthly export adds the
     * gains report with these policies; without, it has the default reports and no gains.
     */
    gains: GainsOptionsSchema.optional(),
    /** IANA zone of the monthly schedule's cron. */
    scheduleTimeZone: ianaZone.default('UTC'),
    /** EventBridge Scheduler cron expression of the monthly exports. */
    scheduleCron: z
      .string()
      .regex(/^cron\(\S+( \S+){5}\)$/, 'expected cron(minutes hours day-of-month month day-of-week year)')
      .default('cron(30 0 1 * ? *)'),
    /**
     * The daily fetch of the published rates files kept under `rates/` (README "Rates files on
     * AWS"): where they are published and when the fetch runs.
     */
    rates: z
      .strictObject({
        /** The ECB's history file. */
        ecbUrl: z.url({ protocol: /^https?$/ }).default(ECB_HIST_URL),
        /** HMRC's monthly file, `{month}` standing for `YYYY-MM`. */
        hmrcUrl: z
          .url({ protocol: /^https?$/ })
          .refine((url) => url.includes('{month}'), 'expected a URL with {month} where the month goes')
          .default(HMRC_MONTHLY_URL),
        /** IANA zone of the fetch's cron. */
        scheduleTimeZone: ianaZone.default('Europe/Berlin'),
        /** EventBridge Scheduler cron of the fetch: daily, after the ECB's publication (about 16:00 CET). */
        scheduleCron: z
          .string()
          .regex(/^cron\(\S+( \S+){5}\)$/, 'expected cron(minutes hours day-of-month month day-of-week year)')
          .default('cron(30 17 * * ? *)'),
      })
      .prefault({}),
    /** Days before `work/` objects (raw snapshot parts, plans) expire. */
    workRetentionDays: z.number().int().min(1).max(3650).default(7),
    /** Days before `jobs/` records expire. */
    jobRetentionDays: z.number().int().min(1).max(3650).default(90),
    /** Days before noncurrent versions of any object (overwritten or deleted reports) expire. */
    noncurrentVersionRetentionDays: z.number().int().min(1).max(3650).default(30),
    /** Retention of every log group (functions, state machines, API access logs). */
    logRetentionDays: retentionDays.default(RetentionDays.ONE_MONTH),
    /**
     * JWT authorizer for the HTTP API; without it the routes require IAM (SigV4) authorization
     * and every caller allowed to invoke the API may use every profile.
     */
    jwt: z
      .strictObject({
        issuer: z.url({ protocol: /^https$/ }),
        audience: z.array(z.string().min(1)).min(1),
        /**
         * The claim listing the profiles a caller may use (array, or names separated by spaces or
         * commas; `*` = every profile); a token without it may use none. `null` turns the
         * per-profile restriction off: every valid token may use every profile.
         */
        profilesClaim: z
          .string()
          .regex(CLAIM_NAME, 'expected a claim name of 1-256 visible ASCII characters')
          .nullable()
          .default(DEFAULT_PROFILES_CLAIM),
        /**
         * The portal's sign-in with this issuer: a public OAuth client (authorization code flow
         * with PKCE). Without it, the portal's pages are not served with an external issuer.
         */
        portalClient: portalSignInSchema
          .extend({ scopes: portalSignInSchema.shape.scopes.default(['openid']) })
          .optional(),
      })
      .optional(),
    /**
     * The accountant portal (pages at `/portal` of the HTTP API). Without `jwt`, the stack creates
     * a Cognito user pool for it (one group per profile) and the API's routes take its tokens.
     */
    portal: z
      .strictObject({
        enabled: z.boolean().default(true),
        /** Prefix of the Cognito sign-in domain, unique in the region. Default `pbs-export-{account id}`. */
        cognitoDomainPrefix: z
          .string()
          .regex(
            /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/,
            'expected 1-63 of a-z 0-9 -, not starting or ending with -',
          )
          .refine((prefix) => !/aws|amazon|cognito/.test(prefix), 'must not contain aws, amazon or cognito')
          .optional(),
        /** Email addresses told when an export of the profile ends, by profile. */
        subscribers: z
          .record(z.string().regex(PROFILE_NAME, 'expected a registered profile'), z.array(z.email()).min(1))
          .default({}),
      })
      .default({ enabled: true, subscribers: {} }),
    /**
     * Scheduled profiles exported at once: the monthly Distributed Map's MaxConcurrency, each item
     * holding its slot until its export has ended. The service limits each key (20 requests/s),
     * and one export stays under it by itself (exportMapConcurrency × requestsPerSecond ≤ 20);
     * exports of one key never overlap (one running export per registered secret, the others
     * queued: lib/jobs/profile-slots.ts), so this bound is about the service's total load and
     * our Lambda concurrency: 10 exports ≤ 10 × 16 = 160 requests/s and ≤ 10 × (4 + 1) Lambdas.
     */
    monthlyMaxConcurrency: z.number().int().min(1).max(1000).default(10),
    /** Shards of one export fetched at once, each by its own Lambda with its own token bucket. */
    exportMapConcurrency: z.number().int().min(1).max(40).default(4),
    /** Requests per second of each fetching client (`PBS_REQUESTS_PER_SECOND`). */
    requestsPerSecond: z.number().int().min(1).max(SERVICE_RATE_LIMIT_PER_KEY).default(4),
    /** How long a function caches a profile's secret, in seconds. */
    secretMaxAgeSeconds: z.number().int().min(0).max(86_400).default(300),
    /** Expiry of presigned download links, in seconds (at most the signing role session's life). */
    linkExpirySeconds: z.number().int().min(60).max(43_200).default(3600),
    /** SNS topic that receives the alarms' state changes; without it the alarms have no action. */
    alarmTopicArn: z
      .string()
      .regex(/^arn:[a-z-]+:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]+$/)
      .optional(),
  })
  .refine((config) => config.exportMapConcurrency * config.requestsPerSecond <= SERVICE_RATE_LIMIT_PER_KEY, {
    // Every shard of one export is fetched with the same key, each Lambda with its own token bucket
    // that starts empty (so the Map slots, tasks one after another, keep the rate however short
    // their tasks are); only one export per key runs at a time (profile slots).
    message: `exportMapConcurrency × requestsPerSecond must not exceed the service's ${SERVICE_RATE_LIMIT_PER_KEY} requests/s per key`,
    path: ['requestsPerSecond'],
  })
  .superRefine((config, context) => {
    for (const problem of scheduleProblems(config)) context.addIssue({ code: 'custom', ...problem });
    for (const profile of Object.keys(config.portal.subscribers)) {
      if (!Object.hasOwn(config.profiles, profile)) {
        context.addIssue({
          code: 'custom',
          path: ['portal', 'subscribers', profile],
          message: 'not a registered profile',
        });
      }
    }
  });

/** `cron(M H 1 * ? *)`: once a month, on the 1st. */
const FIRST_OF_MONTH_CRON = /^cron\((\d{1,2}) (\d{1,2}) 1 \* \? \*\)$/;

/**
 * A monthly export covers the month before the one the schedule fires in, read in the profile's
 * zone. A schedule that fires on the 1st in its own zone while it is still the last day of the
 * month in a profile's zone (00:30 UTC is 19:30 the day before in New York) would export the month
 * before the previous one. Checked for every month of a year (DST shifts) when the cron has the
 * usual first-of-the-month form; other forms are the operator's responsibility.
 */
function scheduleProblems(config: {
  scheduleCron: string;
  scheduleTimeZone: string;
  profiles: Record<string, { timeZone: string; monthly: boolean }>;
}): { message: string; path: string[] }[] {
  const match = FIRST_OF_MONTH_CRON.exec(config.scheduleCron);
  if (match === null) return [];
  const [minute, hour] = [Number(match[1]), Number(match[2])];
  const problems: { message: string; path: string[] }[] = [];
  for (const [name, profile] of Object.entries(config.profiles)) {
    if (!profile.monthly) continue;
    for (let month = 1; month <= 12; month += 1) {
      const fires = DateTime.fromObject(
        { year: 2027, month, day: 1, hour, minute },
        { zone: config.scheduleTimeZone },
      );
      const local = fires.setZone(profile.timeZone);
      if (local.month !== fires.month) {
        problems.push({
          path: ['profiles', name, 'timeZone'],
          message: `the schedule fires at ${fires.toUTC().toISO()}, still ${local.toFormat('yyyy-MM-dd HH:mm')} in ${profile.timeZone}: the export would cover the wrong month; schedule later on the 1st (e.g. cron(0 12 1 * ? *) in UTC suits every zone)`,
        });
        break;
      }
    }
  }
  return problems;
}

/** The validated deployment config, defaults applied. */
export type PbsConfig = z.output<typeof PbsConfigSchema>;

/** The deployment config as written in `cdk.json` (defaults optional). */
export type PbsConfigInput = z.input<typeof PbsConfigSchema>;

/**
 * Validates the deployment config. `raw` is the value of the `pbs` context key: an object (from
 * `cdk.json`) or a JSON string (from `-c pbs='{…}'`).
 */
export function parsePbsConfig(raw: unknown): PbsConfig {
  let value = raw;
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw);
    } catch (error) {
      throw new PbsConfigError(`context "${CONTEXT_KEY}": not JSON (${(error as Error).message})`);
    }
  }
  if (value === undefined) {
    throw new PbsConfigError(
      `context "${CONTEXT_KEY}" is missing: add it to cdk.json or pass -c ${CONTEXT_KEY}='{…}'`,
    );
  }
  const parsed = PbsConfigSchema.safeParse(value);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `${[CONTEXT_KEY, ...issue.path.map(String)].join('.')}: ${issue.message}`,
    );
    throw new PbsConfigError(`invalid deployment config:\n  ${problems.join('\n  ')}`);
  }
  return parsed.data;
}

/** Names of the profiles the monthly schedule exports, sorted. */
export function monthlyProfiles(config: PbsConfig): string[] {
  return Object.entries(config.profiles)
    .filter(([, profile]) => profile.monthly)
    .map(([name]) => name)
    .sort();
}

/** The gains policies of a profile's monthly exports (its own, else the deployment's), or `null`. */
function monthlyGains(config: PbsConfig, profile: string): PbsConfig['gains'] | null {
  return config.profiles[profile]?.gains ?? config.gains ?? null;
}

/** One item of the monthly schedule's input: a profile and the gains policies of its export. */
export interface ScheduledProfile {
  profile: string;
  gains: PbsConfig['gains'] | null;
  /** The profile's journal block, or `null`: no journal report. */
  journal: JournalRequest | null;
}

/** The monthly schedule's items: every monthly profile, sorted, with its gains policies. */
export function scheduledProfiles(config: PbsConfig): ScheduledProfile[] {
  return monthlyProfiles(config).map((profile) => ({
    profile,
    gains: monthlyGains(config, profile),
    journal: config.profiles[profile]?.journal ?? null,
  }));
}
