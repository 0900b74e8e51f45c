/**
 * Profile secrets from Secrets Manager through Powertools parameters, cached for an explicit age
 * (Powertools' default is 5 s, far too short for a Lambda that signs thousands of requests).
 */

import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { z } from 'zod';
import type { ServiceSecret } from '../jobs/index.ts';
import { credentialsSchema } from '../settings.ts';

/**
 * Reads the JSON secret under an ARN (validated by the caller). `forceFetch` bypasses the cache
 * and stores the fresh value in it (after the service refused the cached credentials).
 */
export type SecretReader = (secretArn: string, options?: { forceFetch?: boolean }) => Promise<unknown>;

/** Default cache age of secrets, in seconds. */
export const DEFAULT_SECRET_MAX_AGE_SECONDS = 300;

/** Options of {@link createSecretReader}. */
export interface SecretReaderOptions {
  /** The client to read with (tests pass one mocked with aws-sdk-client-mock). */
  client?: SecretsManagerClient;
  /** Cache age in seconds. Default 300. */
  maxAgeSeconds?: number;
}

/**
 * A reader over one Powertools `SecretsProvider` (what `getSecret` uses, with our own client so it
 * can be traced and mocked): `provider.get(arn, { maxAge, transform: 'json', forceFetch })`.
 */
export function createSecretReader(options: SecretReaderOptions = {}): SecretReader {
  const provider = new SecretsProvider(options.client ? { awsSdkV3Client: options.client } : {});
  const maxAge = options.maxAgeSeconds ?? DEFAULT_SECRET_MAX_AGE_SECONDS;
  return (secretArn, read = {}) =>
    provider.get(secretArn, { maxAge, transform: 'json', forceFetch: read.forceFetch ?? false });
}

/** The settings' credentials schema; other keys of the secret are ignored. */
const secretSchema = z.object(credentialsSchema.shape);

/** Validates a secret value; the reason names the missing fields, never a value. */
export function parseServiceSecret(value: unknown): ServiceSecret | { problem: string } {
  const parsed = secretSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0] ?? '(value)')))];
  return {
    problem: `expected JSON {"apiKey","apiSecret","profileGuid"?}; invalid or missing: ${fields.join(', ')}`,
  };
}
