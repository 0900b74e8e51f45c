import { readFile } from 'node:fs/promises';
import { IANAZone } from 'luxon';
import { z } from 'zod';
import { ConfigFileUnreadableError, ValidationError } from './errors.ts';
import type { ServiceShapeOverrides } from './pbs/index.ts';

/**
 * Settings of a connection to a real Portfolio Balance Service: where it is, how to authenticate
 * and which wire shape it speaks (GAPS.md alternatives). Read from a JSON file and/or the
 * environment; the environment wins, so a secret never has to be written into a file.
 */
export interface ServiceSettings {
  baseUrl: string;
  apiKey: string;
  apiSecret: string;
  profileGuid?: string;
  requestsPerSecond?: number;
  burst?: number;
  timeoutMs?: number;
  /** Largest response body read, in bytes (the client's default: 64 MiB). */
  maxResponseBytes?: number;
  retry?: { maxAttempts?: number; baseDelayMs?: number; maxDelayMs?: number };
  shape?: ServiceShapeOverrides;
}

const fieldPath = z.string().min(1);
const nullablePath = fieldPath.nullable();
const dateFormat = z.enum(['iso-instant', 'iso-date', 'epoch-millis']);
const positiveInt = z.number().int().positive();

const paginationSchema = z.discriminatedUnion('style', [
  z.strictObject({
    style: z.literal('page'),
    pageParam: fieldPath.default('page'),
    pageSizeParam: fieldPath.default('pageSize'),
    pageSize: positiveInt.default(500),
    firstPage: z.number().int().nonnegative().default(1),
    totalItemsPath: nullablePath.default('totalItems'),
    totalPagesPath: nullablePath.default('totalPages'),
  }),
  z.strictObject({
    style: z.literal('offset'),
    offsetParam: fieldPath.default('offset'),
    limitParam: fieldPath.default('limit'),
    limit: positiveInt.default(500),
    totalItemsPath: nullablePath.default(null),
  }),
  z.strictObject({
    style: z.literal('cursor'),
    cursorParam: fieldPath.default('cursor'),
    limitParam: nullablePath.default('limit'),
    limit: positiveInt.default(500),
    next: z.discriminatedUnion('from', [
      z.strictObject({ from: z.literal('field'), path: fieldPath }),
      z.strictObject({ from: z.literal('link-header') }),
    ]),
    totalItemsPath: nullablePath.default(null),
  }),
]);

const shapeSchema = z.strictObject({
  pagination: paginationSchema.optional(),
  itemsPath: nullablePath.optional(),
  window: z.strictObject({ startParam: fieldPath, endParam: fieldPath, dateFormat }).partial().optional(),
  timeline: z
    .strictObject({ path: z.string().startsWith('/v2/'), lastModifiedDateFormat: dateFormat })
    .partial()
    .optional(),
  dateBounds: z.strictObject({ earliestPath: fieldPath, latestPath: fieldPath }).partial().optional(),
  metadata: z.strictObject({ protocolsPath: nullablePath }).partial().optional(),
  fields: z.record(z.string(), fieldPath).optional(),
  instants: z
    .strictObject({
      offsetlessZone: z
        .string()
        .refine((zone) => IANAZone.isValidZone(zone), 'not an IANA time zone')
        .nullable(),
      epochUnit: z.enum(['milliseconds', 'seconds']),
    })
    .partial()
    .optional(),
  balances: z
    .discriminatedUnion('source', [
      z.strictObject({ source: z.literal('ledger-field'), path: fieldPath }),
      z.strictObject({
        source: z.literal('endpoint'),
        pathTemplate: z
          .string()
          .startsWith('/v2/')
          .refine((path) => path.includes('{ledgerId}'), 'must contain {ledgerId}'),
        itemsPath: nullablePath.default(null),
      }),
      z.strictObject({ source: z.literal('none') }),
    ])
    .optional(),
});

/**
 * How to reach a service, without credentials: what the CLI's config file, the Lambda functions'
 * environment (`PBS_BASE_URL`, `PBS_SERVICE_SHAPE`, `PBS_REQUESTS_PER_SECOND`) and the CDK context
 * (`baseUrl`, `serviceShape`, `requestsPerSecond`) all validate with, so one wire shape is
 * accepted or refused the same way wherever it is written.
 */
export const connectionSchema = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/ }),
  requestsPerSecond: z.number().positive().optional(),
  burst: positiveInt.optional(),
  timeoutMs: positiveInt.optional(),
  maxResponseBytes: positiveInt.optional(),
  retry: z
    .strictObject({ maxAttempts: positiveInt, baseDelayMs: positiveInt, maxDelayMs: positiveInt })
    .partial()
    .optional(),
  shape: shapeSchema.optional(),
});

/** The credentials of one profile (the CLI's environment or file, a Lambda's profile secret). */
export const credentialsSchema = z.strictObject({
  apiKey: z.string().min(1),
  apiSecret: z.string().min(1),
  profileGuid: z.string().min(1).optional(),
});

/** The wire-shape overrides alone (the `PBS_SERVICE_SHAPE` variable, the CDK `serviceShape`). */
export { shapeSchema as serviceShapeSchema };

/** Connection settings: {@link ServiceSettings} without the credentials. */
export type ConnectionSettings = Omit<ServiceSettings, 'apiKey' | 'apiSecret' | 'profileGuid'>;

/** Credentials as {@link credentialsSchema} validates them. */
export type ServiceCredentials = z.output<typeof credentialsSchema>;

const settingsSchema = z.strictObject({ ...connectionSchema.shape, ...credentialsSchema.shape });

/** Environment variables read by `loadServiceSettings`, and the setting each one sets. */
export const SETTINGS_ENV = {
  PBS_BASE_URL: 'baseUrl',
  PBS_API_KEY: 'apiKey',
  PBS_API_SECRET: 'apiSecret',
  PBS_PROFILE_GUID: 'profileGuid',
} as const;

/**
 * Builds the service settings from an optional JSON file and the environment (which wins).
 * Throws `ValidationError` naming the first invalid or missing setting, never its value.
 */
export async function loadServiceSettings(
  env: Record<string, string | undefined>,
  configFile?: string,
): Promise<ServiceSettings> {
  let fromFile: Record<string, unknown> = {};
  if (configFile !== undefined) {
    let text: string;
    try {
      text = await readFile(configFile, 'utf8');
    } catch (error) {
      throw new ConfigFileUnreadableError(configFile, { cause: error });
    }
    try {
      fromFile = JSON.parse(text) as Record<string, unknown>;
    } catch (error) {
      throw new ValidationError('config', `${configFile} is not valid JSON`, { cause: error });
    }
  }
  const merged: Record<string, unknown> = { ...fromFile };
  for (const [variable, key] of Object.entries(SETTINGS_ENV)) {
    const value = env[variable];
    if (value !== undefined && value !== '') merged[key] = value;
  }
  return parseServiceSettings(merged);
}

/** Validates settings given as an object (file contents merged with the environment). */
export function parseServiceSettings(input: unknown): ServiceSettings {
  return parseWith(settingsSchema, input) as ServiceSettings;
}

/** Validates connection settings (no credentials); throws `ValidationError` naming the field. */
export function parseConnectionSettings(input: unknown): ConnectionSettings {
  return parseWith(connectionSchema, input) as ConnectionSettings;
}

/** The connection and the credentials of full settings. */
export function splitSettings(settings: ServiceSettings): {
  connection: ConnectionSettings;
  credentials: ServiceCredentials;
} {
  const { apiKey, apiSecret, profileGuid, ...connection } = settings;
  return {
    connection,
    credentials: { apiKey, apiSecret, ...(profileGuid !== undefined ? { profileGuid } : {}) },
  };
}

/** Settings left out: every one is named at once (`field` is the first), with its variable. */
export class MissingSettingsError extends ValidationError {
  /** Each missing setting, and the environment variable that sets it (if one does). */
  readonly missing: readonly { field: string; envName?: string }[];

  constructor(
    missing: readonly [{ field: string; envName?: string }, ...{ field: string; envName?: string }[]],
  ) {
    super(missing[0].field, 'is required');
    this.missing = missing;
    this.message = missing
      .map(({ field, envName }) => `${field}: is required${envName ? ` (set ${envName})` : ''}`)
      .join('; ');
  }
}

function parseWith(schema: z.ZodType, input: unknown): unknown {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  // Every missing setting at once: one run of the command tells the user all they must set.
  const missing = parsed.error.issues
    .filter((issue) => issue.path.length === 1 && issue.message.endsWith('received undefined'))
    .map((issue) => {
      const field = issue.path.join('.');
      const envName = Object.entries(SETTINGS_ENV).find(([, key]) => key === field)?.[0];
      return { field, ...(envName ? { envName } : {}) };
    });
  const [first, ...rest] = missing;
  if (first !== undefined) throw new MissingSettingsError([first, ...rest]);
  const issue = parsed.error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : 'config';
  const envName = Object.entries(SETTINGS_ENV).find(([, key]) => key === field)?.[0];
  const reason = issue?.message.endsWith('received undefined') ? 'is required' : issue?.message;
  throw new ValidationError(field, `${reason ?? 'is invalid'}${envName ? ` (set ${envName})` : ''}`);
}
