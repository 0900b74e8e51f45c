/**
 * Lambda wiring: the environment read once per process (`runtime.ts`), the handlers of
 * `functions/` with their observability, profile secrets and the per-profile service clients.
 */
export { ENV, ENV_SCHEMAS, type Env, type EnvName, OPTIONAL_ENV, readEnv } from './env.ts';
export { ConfigError, SecretError } from './errors.ts';
export {
  type ApiContext,
  createApiFetch,
  createApiHandler,
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createMonthlyStartHandler,
  createPlanHandler,
  type Lazy,
  type MonthlyContext,
  memo,
  requireJobId,
  type WorkerContext,
  workerHandler,
} from './handlers.ts';
export {
  appendJobKeys,
  createObservability,
  type InvocationKeys,
  invocationOutcome,
  type LambdaHandler,
  METRICS_NAMESPACE,
  type Observability,
  withObservability,
} from './observability.ts';
export { type PortalSignInSettings, portalSignInSchema } from './portal-sign-in.ts';
export { createRatesFetchHandler, type RatesFetchContext, type RatesFetchOutput } from './rates-fetch.ts';
export { createRuntime, lambdaRuntime, type Runtime } from './runtime.ts';
export {
  createSecretReader,
  DEFAULT_SECRET_MAX_AGE_SECONDS,
  parseServiceSecret,
  type SecretReader,
  type SecretReaderOptions,
} from './secrets.ts';
export { createServiceFactory, type ServiceFactoryOptions } from './service.ts';
