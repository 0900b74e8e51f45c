/**
 * Harness of the workflow tests: the simulator and s3rver on loopback, Secrets Manager and Step
 * Functions mocked with aws-sdk-client-mock (no local servers exist for them), conditional writes
 * emulated on the S3 client (s3rver ignores them), and the Powertools output captured.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsV2Command, type S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { type AwsClientStub, mockClient } from 'aws-sdk-client-mock';
import { parseExportRequest } from '../../lib/export/plan/index.ts';
import {
  addConditionalWrites,
  createJobStore,
  createProfileSlots,
  createSfnStarter,
  type JobRecord,
  type JobStore,
  jobIdFor,
  type ProfileRegistry,
  type ProfileSlots,
} from '../../lib/jobs/index.ts';
import {
  type ApiContext,
  createObservability,
  createSecretReader,
  createServiceFactory,
  type MonthlyContext,
  type Observability,
  type WorkerContext,
} from '../../lib/lambda/index.ts';
import type { PbsClientConfig } from '../../lib/pbs/index.ts';
import { startSimulator } from '../../lib/simulator/index.ts';
import type { RunningSimulator, SimulatedProfile } from '../../lib/simulator/types.ts';
import type { ServiceFactory } from '../../lib/workflow/index.ts';
import { type S3TestServer, startS3rver } from './s3.ts';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'events');

/** Reads a JSON event fixture from `test/fixtures/events/`. */
export async function loadEvent<T = APIGatewayProxyEventV2>(name: string): Promise<T> {
  return JSON.parse(await readFile(join(FIXTURES, name), 'utf8')) as T;
}

/** An error S3 answered, as the SDK throws one it has no class for (`PreconditionFailed`, …). */
export function s3Error(name: string, status: number): Error {
  return new S3ServiceException({
    name,
    message: name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
  });
}

export { checkWriteCondition } from '../../lib/jobs/index.ts';

/**
 * Adds S3's conditional writes to `client` (s3rver ignores `If-None-Match`/`If-Match`): the same
 * layer `npm run serve` uses (`lib/jobs/local-s3.ts`), `probe` reading the ETags.
 */
export function emulateConditionalWrites(client: S3Client, probe: S3Client): void {
  addConditionalWrites(client, probe);
}

/** s3rver with a job store over a client that emulates conditional writes. */
export interface JobStoreServer {
  server: S3TestServer;
  client: S3Client;
  jobs: JobStore;
}

/** Starts s3rver and a job store over it (close with `server.close()`). */
export async function startJobStoreServer(): Promise<JobStoreServer> {
  const server = await startS3rver();
  const client = server.createClient();
  emulateConditionalWrites(client, server.client);
  return { server, client, jobs: createJobStore({ client, bucket: server.bucket }) };
}

/** Captures everything written to stdout and stderr (Powertools logs and EMF metrics) until `stop()`. */
export function captureOutput(): { text(): string; lines(): Record<string, unknown>[]; stop(): void } {
  const chunks: string[] = [];
  const originals = { out: process.stdout.write, err: process.stderr.write };
  const capture = (chunk: unknown, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  };
  process.stdout.write = capture as typeof process.stdout.write;
  process.stderr.write = capture as typeof process.stderr.write;
  return {
    text: () => chunks.join(''),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    stop() {
      process.stdout.write = originals.out;
      process.stderr.write = originals.err;
    },
  };
}

/** ARN of the test secret of a simulated profile. */
export const secretArnOf = (profile: string) =>
  `arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/${profile}-AbCdEf`;
/** The URL the harness' API is configured to be reached at (the fixtures' API Gateway domain). */
export const PUBLIC_BASE_URL = 'https://abc123.execute-api.eu-central-1.amazonaws.com';
/** ARN of the mocked export state machine. */
export const STATE_MACHINE_ARN = 'arn:aws:states:eu-central-1:123456789012:stateMachine:pbs-export';
/**
 * The clock of every test: the minute the suite started. Not a fixed date: s3rver checks a
 * presigned link's expiry against the real time, so links signed at a fixed past date expire.
 */
export const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000);

/** Everything a workflow test needs, wired like production but on loopback and mocks. */
export interface WorkflowHarness {
  simulator: RunningSimulator;
  s3: S3TestServer;
  /** The S3 client the code under test uses (conditional writes emulated). */
  client: S3Client;
  bucket: string;
  registry: ProfileRegistry;
  jobs: JobStore;
  /**
   * The per-key slots and queues over the harness' store and clock. Not in the default contexts
   * (jobs created and never run would hold up their key's queue for the tests after): pass
   * `{ slots: h.slots }` where a test is about them.
   */
  slots: ProfileSlots;
  secrets: AwsClientStub<SecretsManagerClient>;
  sfn: AwsClientStub<SFNClient>;
  obs: Observability;
  /** The current clock value; tests move it with `setNow`. */
  now(): Date;
  setNow(at: Date): void;
  apiContext(overrides?: Partial<ApiContext>): ApiContext;
  monthlyContext(overrides?: Partial<MonthlyContext>): MonthlyContext;
  workerContext(overrides?: Partial<WorkerContext>): WorkerContext;
  /** A service factory over the harness with other client settings (e.g. fewer retries). */
  servicesWith(client: Partial<PbsClientConfig>): ServiceFactory;
  /** Forgets the SFN mock's calls and answers StartExecution with success again. */
  resetSfn(): void;
  /** StartExecution calls received by the mocked SFN client, with their inputs. */
  startCalls(): { stateMachineArn?: string; name?: string; input?: string }[];
  /** Creates a queued job for `request` (as the API would, at {@link NOW}) and returns it. */
  queueJob(request: Record<string, unknown>): Promise<JobRecord>;
  /** Keys of the bucket under `prefix`, sorted. */
  keysUnder(prefix: string): Promise<string[]>;
  close(): Promise<void>;
}

let queuedJobs = 0;

/** The seed the harness' simulator generates its portfolios from (tests compute expectations from it). */
export const SIMULATOR_SEED = 1;

/**
 * Starts the harness. Registered profiles: the simulator's `demo`, `acme` and `empty`, plus `ny`
 * (the `acme` portfolio in America/New_York, monthly); `profiles` serves others data under those
 * names (e.g. `profilesWithCounts`' generated data).
 */
export async function startWorkflowHarness(
  options: { profiles?: SimulatedProfile[] } = {},
): Promise<WorkflowHarness> {
  const simulator = await startSimulator({
    rateLimitPerSecond: 1000,
    seed: SIMULATOR_SEED,
    ...(options.profiles ? { profiles: options.profiles } : {}),
  });
  const s3 = await startS3rver();
  const client = s3.createClient();
  emulateConditionalWrites(client, s3.client);
  const registry: ProfileRegistry = {
    demo: { secretArn: secretArnOf('demo'), timeZone: 'UTC', monthly: true },
    acme: { secretArn: secretArnOf('acme'), timeZone: 'Europe/Berlin', monthly: true },
    empty: { secretArn: secretArnOf('empty'), timeZone: 'UTC', monthly: false },
    ny: { secretArn: secretArnOf('ny'), timeZone: 'America/New_York', monthly: true },
  };
  const secretsClient = new SecretsManagerClient({ region: 'eu-central-1' });
  const secrets = mockClient(secretsClient);
  for (const profile of simulator.profiles) {
    const value = { apiKey: profile.apiKey, apiSecret: profile.apiSecret, profileGuid: profile.profileGuid };
    secrets.on(GetSecretValueCommand, { SecretId: secretArnOf(profile.name) }).resolves({
      ARN: secretArnOf(profile.name),
      SecretString: JSON.stringify(value),
    });
    if (profile.name === 'acme') {
      secrets
        .on(GetSecretValueCommand, { SecretId: secretArnOf('ny') })
        .resolves({ ARN: secretArnOf('ny'), SecretString: JSON.stringify(value) });
    }
  }
  const sfnClient = new SFNClient({ region: 'eu-central-1' });
  const sfn = mockClient(sfnClient);
  const resetSfn = () => {
    sfn.reset();
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${STATE_MACHINE_ARN}:x`, startDate: NOW });
  };
  resetSfn();
  let current = NOW;
  const now = () => current;
  const jobs = createJobStore({ client, bucket: s3.bucket });
  const slots = createProfileSlots({ client, bucket: s3.bucket, registry, now });
  const obs = createObservability('pbs-export-test');
  const readSecret = createSecretReader({ client: secretsClient, maxAgeSeconds: 300 });
  const servicesWith = (overrides: Partial<PbsClientConfig>) =>
    createServiceFactory({
      registry,
      readSecret,
      settings: { baseUrl: simulator.url },
      client: { requestsPerSecond: 1000, burst: 50, sleep: async () => {}, ...overrides },
    });
  const services = servicesWith({});
  const starter = createSfnStarter({ client: sfnClient, stateMachineArn: STATE_MACHINE_ARN });
  return {
    simulator,
    s3,
    client,
    bucket: s3.bucket,
    registry,
    jobs,
    slots,
    secrets,
    sfn,
    obs,
    now,
    setNow: (at) => {
      current = at;
    },
    apiContext: (overrides = {}) => ({
      obs,
      registry,
      jobs,
      starter,
      s3: client,
      bucket: s3.bucket,
      now,
      linkExpirySeconds: 600,
      publicBaseUrl: PUBLIC_BASE_URL,
      ...overrides,
    }),
    monthlyContext: (overrides = {}) => ({ obs, registry, jobs, starter, now, ...overrides }),
    servicesWith,
    resetSfn,
    workerContext: (overrides = {}) => ({
      obs,
      jobs,
      s3: client,
      bucket: s3.bucket,
      services,
      now,
      ...overrides,
    }),
    startCalls: () =>
      sfn.commandCalls(StartExecutionCommand).map((call) => {
        const { stateMachineArn, name, input } = call.args[0].input;
        return { stateMachineArn, name, input };
      }),
    async queueJob(input) {
      queuedJobs += 1;
      const request = parseExportRequest(input);
      const key = `test-${process.pid}-${queuedJobs}`;
      const job: JobRecord = {
        jobId: jobIdFor(request.profile, key),
        profile: request.profile,
        request,
        state: 'queued',
        source: 'api',
        idempotencyKey: key,
        createdAt: NOW.toISOString(),
        updatedAt: NOW.toISOString(),
      };
      await jobs.create(job);
      return job;
    },
    async keysUnder(prefix) {
      const page = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: prefix }));
      return (page.Contents ?? []).map((object) => object.Key ?? '').sort();
    },
    close: async () => {
      secrets.restore();
      sfn.restore();
      await s3.close();
      await simulator.close();
    },
  };
}
