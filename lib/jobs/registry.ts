/** The registered portfolios (`PBS_PROFILES`): a request names a profile, never a secret. */
import { IANAZone } from 'luxon';
import { z } from 'zod';
import { formatPath, PROFILE_NAME } from '../export/index.ts';
import { UnknownProfileError } from './errors.ts';
import type { ProfileRegistry, RegisteredProfile } from './records.ts';

const registrySchema = z.record(
  z.string().regex(PROFILE_NAME, 'profile names are 1-64 letters, digits, "_" or "-"'),
  z.strictObject({
    secretArn: z
      .string()
      .regex(/^arn:[^:]+:secretsmanager:[^:]*:[^:]*:secret:.+$/, 'expected a Secrets Manager ARN'),
    timeZone: z.string().refine((zone) => IANAZone.isValidZone(zone), 'expected an IANA time zone'),
    monthly: z.boolean().default(false),
  }),
);

/**
 * Parses the registry JSON. Throws an `Error` naming the first invalid entry by path (the caller
 * wraps it into its configuration error).
 */
export function parseProfileRegistry(json: string): ProfileRegistry {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (error) {
    throw new Error('is not valid JSON', { cause: error });
  }
  const parsed = registrySchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${formatPath(issue?.path ?? []) || '(registry)'}: ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The registration of `profile`; throws {@link UnknownProfileError}. */
export function lookupProfile(registry: ProfileRegistry, profile: string): RegisteredProfile {
  const registered = Object.hasOwn(registry, profile) ? registry[profile] : undefined;
  if (registered === undefined) throw new UnknownProfileError(profile);
  return registered;
}

/** Profiles the monthly schedule exports, sorted by name (the monthly Map's items). */
export function monthlyProfiles(registry: ProfileRegistry): string[] {
  return Object.entries(registry)
    .filter(([, registration]) => registration.monthly)
    .map(([name]) => name)
    .sort();
}
