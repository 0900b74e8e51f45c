/**
 * The production defaults of the Lambda functions, built from the environment in this one place
 * (nothing else in `lib/` reads `process.env`). Each piece is built on first use, so a function
 * only needs the variables of what it uses (the API needs no service URL, for instance), and a
 * missing or invalid variable is a {@link ConfigError} naming it.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { CLAIM_NAME, DEFAULT_LINK_EXPIRY_SECONDS } from '../http-api/index.ts';
import {
  createJobStore,
  createProfileSlots,
  createSfnStarter,
  type ExecutionStarter,
  type JobStore,
  type ProfileRegistry,
  parseProfileRegistry,
} from '../jobs/index.ts';
import type { ServiceShapeOverrides } from '../pbs/shape.ts';
import { parseServiceSettings } from '../settings.ts';
import { createS3Client, MAX_PRESIGN_EXPIRY_SECONDS } from '../storage/index.ts';
import type { ServiceFactory } from '../workflow/index.ts';
import { ENV, OPTIONAL_ENV } from './env.ts';
import { ConfigError } from './errors.ts';
import { type ApiContext, type MonthlyContext, memo, type WorkerContext } from './handlers.ts';
import { createObservability, type Observability } from './observability.ts';
import { createSecretReader, DEFAULT_SECRET_MAX_AGE_SECONDS } from './secrets.ts';
import { createServiceFactory } from './service.ts';

/** Environment of a function. */
export type Env = Readonly<Record<string, string | undefined>>;

/** The contexts of every function, built lazily from one environment. */
export interface Runtime {
  obs: Observability;
  apiContext(): ApiContext;
  monthlyContext(): MonthlyContext;
  workerContext(): WorkerContext;
}

function required(env: Env, name: string): string {
  const value = env[name];
  if (value === undefined || value.trim() === '') throw new ConfigError(name, 'is required');
  return value.trim();
}

function wholeNumber(env: Env, name: string, fallback: number, min: number, max: number): number {
  const text = env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `expected a whole number from ${min} to ${max}`);
  }
  return value;
}

/** An optional claim name: unset or empty means none. */
function claimName(env: Env, name: string): string | undefined {
  const value = env[name]?.trim();
  if (value === undefined || value === '') return undefined;
  if (!CLAIM_NAME.test(value))
    throw new ConfigError(name, 'expected a claim name of 1-256 visible ASCII characters');
  return value;
}

/** An http(s) URL without query or fragment, trailing slashes removed. */
function publicUrl(env: Env, name: string): string {
  const value = required(env, name);
  let url: URL;
  try {
    url = new URL(value);
  } catch (error) {
    throw new ConfigError(name, 'expected an http(s) URL', { cause: error });
  }
  if (!/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '' || url.username !== '') {
    throw new ConfigError(name, 'expected an http(s) URL without credentials, query or fragment');
  }
  return value.replace(/\/+$/, '');
}

/** Builds the runtime over `env` (`serviceName` names the function in logs and metrics). */
export function createRuntime(env: Env, serviceName = 'pbs-export'): Runtime {
  const obs = createObservability(serviceName);
  const { tracer } = obs;

  const bucket = memo(() => required(env, ENV.bucket));
  const s3 = memo((): S3Client => {
    const endpoint = env[OPTIONAL_ENV.s3Endpoint];
    const client =
      endpoint === undefined || endpoint === ''
        ? new S3Client({})
        : createS3Client({ region: env.AWS_REGION ?? 'us-east-1', endpoint, forcePathStyle: true });
    return tracer.captureAWSv3Client(client);
  });
  const jobs = memo((): JobStore => createJobStore({ client: s3(), bucket: bucket() }));
  const registry = memo((): ProfileRegistry => {
    try {
      return parseProfileRegistry(required(env, ENV.profiles));
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(ENV.profiles, (error as Error).message, { cause: error });
    }
  });
  const starter = memo(
    (): ExecutionStarter =>
      createSfnStarter({
        client: tracer.captureAWSv3Client(new SFNClient({})),
        stateMachineArn: required(env, ENV.exportStateMachineArn),
      }),
  );
  const services = memo((): ServiceFactory => {
    const baseUrl = required(env, ENV.baseUrl);
    let shape: ServiceShapeOverrides | undefined;
    const shapeText = env[ENV.serviceShape];
    if (shapeText !== undefined && shapeText.trim() !== '') {
      try {
        // The settings schema validates the shape; the placeholder credentials are not used.
        shape = parseServiceSettings({
          baseUrl,
          apiKey: '-',
          apiSecret: '-',
          shape: JSON.parse(shapeText),
        }).shape;
      } catch (error) {
        throw new ConfigError(ENV.serviceShape, (error as Error).message, { cause: error });
      }
    }
    try {
      parseServiceSettings({ baseUrl, apiKey: '-', apiSecret: '-' });
    } catch (error) {
      throw new ConfigError(ENV.baseUrl, 'expected an http(s) URL', { cause: error });
    }
    const requestsPerSecond = wholeNumber(env, ENV.requestsPerSecond, 10, 1, 1000);
    const readSecret = createSecretReader({
      client: tracer.captureAWSv3Client(new SecretsManagerClient({})),
      maxAgeSeconds: wholeNumber(env, ENV.secretMaxAgeSeconds, DEFAULT_SECRET_MAX_AGE_SECONDS, 0, 86_400),
    });
    return createServiceFactory({
      registry: registry(),
      readSecret,
      baseUrl,
      requestsPerSecond,
      // One client per task, tasks one after another in each Map slot: a bucket starting empty
      // keeps each slot at requestsPerSecond however short its tasks are (a full one would not).
      client: { initialTokens: 0 },
      logger: {
        warn: (message, context) => obs.logger.warn(message, context ?? {}),
        debug: (message, context) => obs.logger.debug(message, context ?? {}),
      },
      ...(shape ? { shape } : {}),
    });
  });
  const now = () => new Date();
  const profilesClaim = memo(() => claimName(env, ENV.profilesClaim));
  const slots = memo(() => createProfileSlots({ client: s3(), bucket: bucket(), registry: registry(), now }));

  return {
    obs,
    apiContext: () => ({
      obs,
      registry: registry(),
      jobs: jobs(),
      starter: starter(),
      s3: s3(),
      bucket: bucket(),
      now,
      linkExpirySeconds: wholeNumber(
        env,
        ENV.linkExpirySeconds,
        DEFAULT_LINK_EXPIRY_SECONDS,
        1,
        MAX_PRESIGN_EXPIRY_SECONDS,
      ),
      profilesClaim: profilesClaim(),
      publicBaseUrl: publicUrl(env, ENV.publicBaseUrl),
      slots: slots(),
    }),
    monthlyContext: () => ({
      obs,
      registry: registry(),
      jobs: jobs(),
      starter: starter(),
      now,
      slots: slots(),
    }),
    workerContext: () => ({
      obs,
      jobs: jobs(),
      s3: s3(),
      bucket: bucket(),
      services: services(),
      now,
      slots: slots(),
    }),
  };
}

let processRuntime: Runtime | undefined;

/** The runtime of this Lambda process, over `process.env`, built on first use. */
export function lambdaRuntime(): Runtime {
  processRuntime ??= createRuntime(process.env, process.env.POWERTOOLS_SERVICE_NAME ?? 'pbs-export');
  return processRuntime;
}
