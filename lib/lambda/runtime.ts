/**
 * The production defaults of the Lambda functions, built from the environment in this one place
 * (nothing else in `lib/` reads `process.env`). Each piece is built on first use, so a function
 * only needs the variables of what it uses (the API needs no service URL, for instance), and a
 * missing or invalid variable is a `ConfigError` naming it (`env.ts`).
 */
// The functions always talk to AWS, so the SDK is imported statically here; elsewhere it loads at
// its first use (lib/aws-sdk.ts).

import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient } from '@aws-sdk/client-sfn';
import { SNSClient } from '@aws-sdk/client-sns';
import { createS3AdjustmentsStore } from '../adjustments/index.ts';
import {
  createJobStore,
  createProfileSlots,
  createSfnStarter,
  type ExecutionStarter,
  type JobStore,
  type ProfileRegistry,
} from '../jobs/index.ts';
import { kmsSigner } from '../proof/index.ts';
import type { ConnectionSettings } from '../settings.ts';
import { s3ClientOf } from '../storage/index.ts';
import {
  createSnsCloseNotifier,
  createSnsNotifier,
  type Notifier,
  type ServiceFactory,
} from '../workflow/index.ts';
import { ENV, type Env, OPTIONAL_ENV, readEnv } from './env.ts';
import { ConfigError } from './errors.ts';
import { type ApiContext, type MonthlyContext, memo, type WorkerContext } from './handlers.ts';
import { kmsSigningApi } from './kms.ts';
import { createObservability, type Observability } from './observability.ts';
import type { RatesFetchContext } from './rates-fetch.ts';
import { createSecretReader } from './secrets.ts';
import { createServiceFactory } from './service.ts';

export type { Env };

/** The contexts of every function, built lazily from one environment. */
export interface Runtime {
  obs: Observability;
  apiContext(): ApiContext;
  monthlyContext(): MonthlyContext;
  workerContext(): WorkerContext;
  ratesFetchContext(): RatesFetchContext;
}

/** Builds the runtime over `env` (`serviceName` names the function in logs and metrics). */
export function createRuntime(env: Env, serviceName = 'pbs-export'): Runtime {
  const obs = createObservability(serviceName);
  const { tracer } = obs;

  const bucket = memo(() => readEnv(env, ENV.bucket));
  const s3 = memo((): S3Client => {
    const endpoint = readEnv(env, OPTIONAL_ENV.s3Endpoint);
    const client =
      endpoint === undefined
        ? new S3Client({})
        : s3ClientOf(S3Client, { region: readEnv(env, 'AWS_REGION'), endpoint, forcePathStyle: true });
    return tracer.captureAWSv3Client(client);
  });
  const jobs = memo((): JobStore => createJobStore({ client: s3(), bucket: bucket() }));
  const registry = memo((): ProfileRegistry => readEnv(env, ENV.profiles));
  const starter = memo(
    (): ExecutionStarter =>
      createSfnStarter({
        client: tracer.captureAWSv3Client(new SFNClient({})),
        stateMachineArn: readEnv(env, ENV.exportStateMachineArn),
      }),
  );
  const services = memo((): ServiceFactory => {
    const shape = readEnv(env, ENV.serviceShape);
    const settings: ConnectionSettings = {
      baseUrl: readEnv(env, ENV.baseUrl),
      requestsPerSecond: readEnv(env, ENV.requestsPerSecond),
      ...(shape !== undefined ? { shape } : {}),
    };
    const readSecret = createSecretReader({
      client: tracer.captureAWSv3Client(new SecretsManagerClient({})),
      maxAgeSeconds: readEnv(env, ENV.secretMaxAgeSeconds),
    });
    return createServiceFactory({
      registry: registry(),
      readSecret,
      settings,
      client: {
        // One client per task, tasks one after another in each Map slot: a bucket starting empty
        // keeps each slot at requestsPerSecond however short its tasks are (a full one would not).
        initialTokens: 0,
        logger: {
          warn: (message, context) => obs.logger.warn(message, context ?? {}),
          debug: (message, context) => obs.logger.debug(message, context ?? {}),
        },
      },
    });
  });
  const now = () => new Date();
  const profilesClaim = memo(() => readEnv(env, ENV.profilesClaim));
  const slots = memo(() => createProfileSlots({ client: s3(), bucket: bucket(), registry: registry(), now }));
  const notify = memo((): Notifier | undefined => {
    const topicArn = readEnv(env, ENV.notifyTopicArn);
    if (topicArn === undefined) return undefined;
    const portalUrl = readEnv(env, ENV.portalUrl);
    if (portalUrl === undefined)
      throw new ConfigError(ENV.portalUrl, 'is required with a notification topic');
    return createSnsNotifier({
      client: tracer.captureAWSv3Client(new SNSClient({})),
      topicArn,
      portalUrl,
      onError: (error, job) =>
        obs.logger.error('could not publish the notice of an ended export', {
          error: error as Error,
          jobId: job.jobId,
          profile: job.profile,
        }),
    });
  });
  const notifyClose = memo(() => {
    const topicArn = readEnv(env, ENV.notifyTopicArn);
    const portalUrl = readEnv(env, ENV.portalUrl);
    if (topicArn === undefined || portalUrl === undefined) return undefined;
    return createSnsCloseNotifier({
      client: tracer.captureAWSv3Client(new SNSClient({})),
      topicArn,
      portalUrl,
      onError: (error, notice) =>
        obs.logger.error('could not publish a changed-after-close notice', {
          error: error as Error,
          profile: notice.profile,
          period: notice.period,
        }),
    });
  });
  const signer = memo(() => {
    const keyArn = readEnv(env, ENV.signingKeyArn);
    if (keyArn === undefined) return undefined;
    // The public key is read once per process, at the first set the finish publishes.
    return memo(() => kmsSigner(kmsSigningApi(tracer.captureAWSv3Client(new KMSClient({}))), keyArn));
  });
  const portal = memo(() => {
    const signIn = readEnv(env, ENV.portalSignIn);
    return signIn === undefined ? undefined : { signIn: { kind: 'oauth' as const, ...signIn } };
  });

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
      linkExpirySeconds: readEnv(env, ENV.linkExpirySeconds),
      profilesClaim: profilesClaim(),
      publicBaseUrl: readEnv(env, ENV.publicBaseUrl),
      slots: slots(),
      // In the data bucket (versioned), where the finish worker reads the version a request names.
      adjustments: createS3AdjustmentsStore({ client: s3(), bucket: bucket() }),
      ...optional('portal', portal()),
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
      ...optional('notify', notify()),
      ...optional('notifyClose', notifyClose()),
      ...optional('signer', signer()),
    }),
    ratesFetchContext: () => ({
      obs,
      s3: s3(),
      bucket: bucket(),
      now,
      urls: { ecb: readEnv(env, ENV.ratesEcbUrl), hmrc: readEnv(env, ENV.ratesHmrcUrl) },
    }),
  };
}

/** `{ [key]: value }`, or nothing for an undefined value (optional deps are left out, not undefined). */
function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}

let processRuntime: Runtime | undefined;

/** The runtime of this Lambda process, over `process.env`, built on first use. */
export function lambdaRuntime(): Runtime {
  processRuntime ??= createRuntime(process.env, process.env.POWERTOOLS_SERVICE_NAME ?? 'pbs-export');
  return processRuntime;
}
