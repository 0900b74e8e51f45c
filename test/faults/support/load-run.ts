/**
 * The deployment side of the load scenario of `load.faults.ts`, run in a CHILD PROCESS so that its
 * peak RSS is its own (the simulator and s3rver run in the test process): one deployment's
 * functions, built by `createRuntime` from a Lambda-like environment (the production wiring: S3
 * client, service factory with the configured request rate, secret reader, profile slots), with
 * Secrets Manager mocked. Jobs are started through the HTTP API handler; exports run through the
 * real plan / fetch-shard / finish / fail handlers, in the order and with the concurrency of the
 * export state machine (Plan, retried on `ProfileBusyError` → Map at `exportMapConcurrency` →
 * Finish; catch → MarkFailed), by the local runner (`lib/workflow/local-runner.ts`).
 *
 * Input: the {@link LoadScenario} as JSON in `PBS_LOAD_SCENARIO`. Output: `LOAD_RESULT <LoadResult
 * JSON>` as the last line of stdout.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import type { ExportMachine } from '../../../infra/definitions.ts';
import { addConditionalWrites, ProfileBusyError, type ProfileRegistry } from '../../../lib/jobs/index.ts';
import {
  createApiHandler,
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
  createRuntime,
  ENV,
  OPTIONAL_ENV,
} from '../../../lib/lambda/index.ts';
import { createStateMachineStarter } from '../../../lib/local/index.ts';
import { createS3Client } from '../../../lib/storage/index.ts';
import type { Workers } from '../../../lib/workflow/index.ts';

/**
 * Added to the local runner's wait between two tries for a profile's slot (`LOCAL_SLOT_WAIT_MS`,
 * 1 s): the machine's 99 tries then cover about 300 s instead of 100 s. Locally the budget is wall
 * time, and the exports of one key ahead of a queued one are slower on a busy machine: with 100 s,
 * a loaded machine failed the last of 8 queued exports of one key with ProfileBusyError (on AWS
 * the same 99 tries cover hours).
 */
export const EXTRA_SLOT_WAIT_MS = 2_000;

/** Environment variable carrying the scenario to the child. */
export const SCENARIO_ENV = 'PBS_LOAD_SCENARIO';

/** What the child runs. */
export interface LoadScenario {
  simulatorUrl: string;
  s3: { endpoint: string; bucket: string };
  /** Registered profiles: name → the credentials its secret holds (simulator demo values). */
  profiles: Record<string, { apiKey: string; apiSecret: string }>;
  /** Profiles registered with ANOTHER profile's secret ARN (so its API key): name → that profile. */
  aliases?: Record<string, string>;
  /** Export requests started at once (CSV only unless `formats`). */
  jobs: { profile: string; period: string | { from: string; to: string }; formats?: string[] }[];
  /** The deployment's `requestsPerSecond` and `exportMapConcurrency`. */
  requestsPerSecond: number;
  exportMapConcurrency: number;
  /** Prefix of each job's `Idempotency-Key` (`{prefix}-{index}`), so runs never share jobs. */
  runTag: string;
  /** Run without the per-secret slot (to show what it prevents). Default false. */
  withoutSlots?: boolean;
  /**
   * The export state machine as the stack synthesizes it, with the scenario's Map concurrency:
   * synthesized by the parent, so the child's peak RSS measures the exports, not the CDK.
   */
  machine: ExportMachine;
}

/** What the child measured. */
export interface LoadResult {
  jobs: number;
  succeeded: number;
  failed: { jobId: string; reason: string | undefined }[];
  /** Per job: ms from its POST to its plan completing (queued → running), and to its end (NaN: never; JSON null). */
  waits: { jobId: string; profile: string; runningAfterMs: number; endedAfterMs: number }[];
  wallMs: number;
  peakRssMb: number;
  /** Plan attempts refused because the slot was held (each retried after a backoff). */
  busyRetries: number;
}

const arnOf = (profile: string) =>
  `arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/${profile}-AbCdEf`;

async function run(scenario: LoadScenario): Promise<LoadResult> {
  const secrets = mockClient(SecretsManagerClient);
  const registry: ProfileRegistry = {};
  for (const [name, credentials] of Object.entries(scenario.profiles)) {
    registry[name] = { secretArn: arnOf(name), timeZone: 'UTC', monthly: false };
    secrets
      .on(GetSecretValueCommand, { SecretId: arnOf(name) })
      .resolves({ ARN: arnOf(name), SecretString: JSON.stringify(credentials) });
  }
  for (const [alias, source] of Object.entries(scenario.aliases ?? {})) {
    registry[alias] = { secretArn: arnOf(source), timeZone: 'UTC', monthly: false };
  }

  // A Lambda-like environment: what the stack sets, plus the S3-compatible endpoint.
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    POWERTOOLS_LOG_LEVEL: 'ERROR',
    POWERTOOLS_METRICS_DISABLED: 'true',
  });
  const runtime = createRuntime({
    AWS_REGION: 'us-east-1',
    [ENV.bucket]: scenario.s3.bucket,
    [ENV.profiles]: JSON.stringify(registry),
    [ENV.baseUrl]: scenario.simulatorUrl,
    [ENV.requestsPerSecond]: String(scenario.requestsPerSecond),
    [ENV.exportStateMachineArn]: 'arn:aws:states:us-east-1:123456789012:stateMachine:unused',
    [ENV.publicBaseUrl]: 'https://api.example.com',
    [OPTIONAL_ENV.s3Endpoint]: scenario.s3.endpoint,
  });
  const deployed = runtime.workerContext();
  const { slots: _slots, ...withoutSlots } = deployed;
  const worker = scenario.withoutSlots ? withoutSlots : deployed;
  const probe = await createS3Client({
    region: 'us-east-1',
    endpoint: scenario.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  // s3rver has no conditional writes: the layer `npm run serve` adds (every writer here shares
  // this one client, as there).
  addConditionalWrites(worker.s3, probe);

  let busyRetries = 0;
  const planHandler = createPlanHandler(worker);
  const tasks: Workers = {
    plan: (input) => planHandler(input),
    fetchShard: createFetchShardHandler(worker),
    finish: createFinishHandler(worker),
    fail: createFailHandler(worker),
  };
  const posted = new Map<string, { profile: string; at: number }>();
  const runningAt = new Map<string, number>();
  const endedAt = new Map<string, number>();
  const { machine } = scenario;
  const starter = createStateMachineStarter(
    machine,
    {
      ...tasks,
      async plan(input) {
        try {
          const output = await tasks.plan(input);
          runningAt.set(input.jobId, Date.now());
          return output;
        } catch (error) {
          if (error instanceof ProfileBusyError) {
            busyRetries += 1;
            await sleep(EXTRA_SLOT_WAIT_MS);
          }
          throw error;
        }
      },
    },
    {
      onDone: (jobId) => {
        endedAt.set(jobId, Date.now());
      },
    },
  );
  const api = createApiHandler({ ...runtime.apiContext(), starter });

  const started = Date.now();
  const jobIds = await Promise.all(
    scenario.jobs.map(async (job, index) => {
      const at = Date.now();
      const result = (await api(
        event('POST', '/reports', { ...job, formats: job.formats ?? ['csv'] }, `${scenario.runTag}-${index}`),
      )) as APIGatewayProxyStructuredResultV2;
      if (result.statusCode !== 202) throw new Error(`POST answered ${result.statusCode}: ${result.body}`);
      const { jobId } = JSON.parse(result.body ?? '{}') as { jobId: string };
      posted.set(jobId, { profile: job.profile, at });
      return jobId;
    }),
  );
  await starter.idle();
  const wallMs = Date.now() - started;

  let succeeded = 0;
  const failed: LoadResult['failed'] = [];
  for (const jobId of jobIds) {
    const result = (await api(event('GET', `/reports/${jobId}`))) as APIGatewayProxyStructuredResultV2;
    const body = JSON.parse(result.body ?? '{}') as { state?: string; reason?: string; files?: unknown[] };
    if (body.state === 'succeeded' && (body.files?.length ?? 0) > 0) succeeded += 1;
    else failed.push({ jobId, reason: body.reason ?? body.state });
  }
  const result: LoadResult = {
    jobs: jobIds.length,
    succeeded,
    failed,
    waits: [...posted.entries()].map(([jobId, { profile, at }]) => ({
      jobId,
      profile,
      runningAfterMs: (runningAt.get(jobId) ?? Number.NaN) - at,
      endedAfterMs: (endedAt.get(jobId) ?? Number.NaN) - at,
    })),
    wallMs,
    peakRssMb: Math.round(process.resourceUsage().maxRSS / 1024),
    busyRetries,
  };
  secrets.restore();
  probe.destroy();
  return result;
}

/** An API Gateway HTTP API (payload 2.0) event with IAM authorization. */
function event(
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  idempotencyKey?: string,
): APIGatewayProxyEventV2 {
  const host = 'api.load.test';
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: {
      host,
      'content-type': 'application/json',
      'x-forwarded-proto': 'https',
      ...(idempotencyKey !== undefined ? { 'idempotency-key': idempotencyKey } : {}),
    },
    requestContext: {
      accountId: '123456789012',
      apiId: 'load',
      domainName: host,
      domainPrefix: 'api',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'load' },
      requestId: `load-${Math.random().toString(36).slice(2)}`,
      routeKey: '$default',
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    isBase64Encoded: false,
  };
}

// Runs only as the child's entry point (the test imports the types and SCENARIO_ENV).
if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const scenario = JSON.parse(process.env[SCENARIO_ENV] ?? '{}') as LoadScenario;
  run(scenario).then(
    (result) => {
      process.stdout.write(`\nLOAD_RESULT ${JSON.stringify(result)}\n`);
      process.exit(0);
    },
    (error: unknown) => {
      process.stderr.write(`load scenario failed: ${(error as Error)?.stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
