/** A service client per registered profile, with the profile's credentials from its secret. */

import { TransformParameterError } from '@aws-lambda-powertools/parameters/errors';
import { publicApiBase } from '../export/index.ts';
import { lookupProfile, type ProfileRegistry } from '../jobs/index.ts';
import { createServiceClient, type ServiceClientOptions } from '../service-client.ts';
import type { ConnectionSettings } from '../settings.ts';
import type { ServiceFactory } from '../workflow/index.ts';
import { SecretError } from './errors.ts';
import { parseServiceSecret, type SecretReader } from './secrets.ts';

/** Options of {@link createServiceFactory}. */
export interface ServiceFactoryOptions {
  registry: ProfileRegistry;
  readSecret: SecretReader;
  /** Where the service is and how it speaks (validated by `lib/settings.ts`); no credentials. */
  settings: ConnectionSettings;
  /** Hooks and test seams of the client (`logger`, `initialTokens`, tests: `sleep`, `fetch`). */
  client?: ServiceClientOptions;
}

/**
 * The factory of profile services over the registry and a secret reader. The client signs with
 * the cached secret; when the service refuses those credentials (401, e.g. after a rotation in
 * Secrets Manager) it re-reads the secret past the cache and signs again with the new one, so a
 * rotated secret never makes exports fail until the cache expires.
 */
export function createServiceFactory(options: ServiceFactoryOptions): ServiceFactory {
  const credentialsOf = async (profile: string, secretArn: string, forceFetch: boolean) => {
    let value: unknown;
    try {
      value = await (forceFetch
        ? options.readSecret(secretArn, { forceFetch })
        : options.readSecret(secretArn));
    } catch (error) {
      // A failed JSON transform quotes the start of the value in its message (JSON.parse does):
      // that cause is dropped. Other causes (access denied, not found) name the ARN at most.
      if (error instanceof TransformParameterError) throw new SecretError(profile, 'is not valid JSON');
      const name = error instanceof Error ? error.name : 'Error';
      throw new SecretError(profile, `could not be read (${name})`, { cause: error });
    }
    const secret = parseServiceSecret(value);
    if ('problem' in secret) throw new SecretError(profile, secret.problem);
    return {
      apiKey: secret.apiKey,
      apiSecret: secret.apiSecret,
      ...(secret.profileGuid !== undefined ? { profileGuid: secret.profileGuid } : {}),
    };
  };
  return async (profile) => {
    const registered = lookupProfile(options.registry, profile);
    const credentials = await credentialsOf(profile, registered.secretArn, false);
    const client = createServiceClient(options.settings, credentials, {
      refreshCredentials: () => credentialsOf(profile, registered.secretArn, true),
      ...options.client,
    });
    return { client, fields: client.shape.fields, apiBase: publicApiBase(options.settings.baseUrl) };
  };
}
