/**
 * The one place a Portfolio Balance Service client is built from settings: the CLI, the Lambda
 * workers (one client per profile and task), `npm run serve` and the benchmark all call
 * {@link createServiceClient}, so a setting means the same thing everywhere.
 */
import { createPbsClient, type PbsClient, type PbsClientConfig, type PbsCredentials } from './pbs/index.ts';
import type { ConnectionSettings } from './settings.ts';

/**
 * What the caller adds that is no setting: hooks of the process (logger, credential refresh),
 * the rate limiter's start (`initialTokens`), and test seams (`fetch`, `sleep`, `now`).
 */
export type ServiceClientOptions = Partial<Omit<PbsClientConfig, 'baseUrl' | 'credentials'>>;

/** Builds a service client from validated connection settings and one profile's credentials. */
export function createServiceClient(
  settings: ConnectionSettings,
  credentials: PbsCredentials,
  options: ServiceClientOptions = {},
): PbsClient {
  return createPbsClient({
    baseUrl: settings.baseUrl,
    credentials,
    ...(settings.shape ? { shape: settings.shape } : {}),
    ...(settings.requestsPerSecond !== undefined ? { requestsPerSecond: settings.requestsPerSecond } : {}),
    ...(settings.burst !== undefined ? { burst: settings.burst } : {}),
    ...(settings.timeoutMs !== undefined ? { timeoutMs: settings.timeoutMs } : {}),
    ...(settings.maxResponseBytes !== undefined ? { maxResponseBytes: settings.maxResponseBytes } : {}),
    ...(settings.retry ? { retry: settings.retry } : {}),
    ...options,
  });
}
