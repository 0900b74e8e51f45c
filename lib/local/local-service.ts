/**
 * FOR LOCAL USE ONLY: the whole local stack of `npm run serve` in one call, so that `bin/serve.ts`
 * stays a thin command line and the tests start exactly what a user starts: the embedded
 * simulator (demo data), an in-process s3rver on a temporary folder, the HTTP API served over
 * `@hono/node-server`, and exports run by the export state machine the stack deploys, executed
 * in-process by aws-local-stepfunctions (`state-machine.ts`, `local-runner.ts`).
 */
import { readdirSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import type { ExportMachine } from '../../infra/definitions.ts';
import { type AdjustmentsStore, createS3AdjustmentsStore } from '../adjustments/index.ts';
import { CLOSES_PREFIX } from '../close/index.ts';
import { keepDemoRates } from '../fx-store/index.ts';
import { type LocalApiServer, startLocalApiServer } from '../http-api/index.ts';
import {
  addConditionalWrites,
  createJobStore,
  createProfileSlots,
  type JobRecord,
  type JobStore,
  type ProfileRegistry,
} from '../jobs/index.ts';
import {
  createApiFetch,
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createObservability,
  createPlanHandler,
  createServiceFactory,
  type Observability,
  type WorkerContext,
} from '../lambda/index.ts';
import type { RunningSimulator } from '../simulator/index.ts';
import { startSimulator } from '../simulator/index.ts';
import { createS3Client, makeObjectWritesAtomic } from '../storage/index.ts';
import { closeNoticeOf, type Notice, noticeOf } from '../workflow/index.ts';
import { createDevAuth, withDevAuthorizer } from './dev-sign-in.ts';
import { type MachineSynthesis, synthesizeInChild } from './machine-synthesis.ts';
import { createStateMachineStarter, type LocalRunEvents, type LocalStarter } from './state-machine.ts';

/** Bucket of the local S3 store. */
export const LOCAL_BUCKET = 'pbs-local';

/** Options of {@link startLocalService}. */
export interface LocalServiceOptions extends LocalRunEvents {
  /** Port of the API (0: any free port). Default 3000. */
  port?: number;
  /** Port of the local S3 store (0: any free port). Default 0. */
  s3Port?: number;
  /** Time zone registered for every profile. Default UTC. */
  timeZone?: string;
  /**
   * URL callers reach the API at, for status URLs (e.g. behind a proxy). Default: the URL the
   * server listens on. Request headers (`Host`, `X-Forwarded-Proto`) are never used.
   */
  publicUrl?: string;
  /**
   * Told each notice the finish and fail workers publish (deployed: on the SNS topic), with the
   * job it tells of (none for a close's). With it, a request the workers find invalid is logged
   * as info, not as a warning: the job's notice says why (`job-end-lines.ts`).
   */
  onNotice?: (notice: Notice, job?: JobRecord) => void;
  /**
   * The export state machine to run; default: synthesized from `infra/` ({@link LOCAL_MACHINE_CONFIG})
   * in a child process while the server already answers.
   */
  exportMachine?: ExportMachine;
  /** Told each step of the start as it begins (`npm run serve` prints them). */
  onStep?: (step: string) => void;
  /**
   * The profiles' adjustments documents; by default the S3 store in the local bucket, where the
   * local finish worker reads the version a re-run names.
   */
  adjustments?: AdjustmentsStore;
  /** The clock of the API and the workers (tests). Default: the system clock. */
  now?: () => Date;
}

/**
 * What the local machine is synthesized with, over `cdk.json`'s sample config: two shards at a
 * time × 10 requests/s stays within the simulator's 20 per key (the same bound the stack checks).
 */
export const LOCAL_MACHINE_CONFIG = { exportMapConcurrency: 2, requestsPerSecond: 10 } as const;

/** A running local stack. */
export interface LocalService {
  /** Base URL of the HTTP API, e.g. `http://127.0.0.1:3000`. */
  url: string;
  /** The portal's URL (development sign-in), e.g. `http://127.0.0.1:3000/portal`. */
  portalUrl: string;
  /** Issues a development token for `profiles` (what the development sign-in page does). */
  devToken(profiles: readonly string[]): Promise<string>;
  simulator: RunningSimulator;
  /** Endpoint of the local S3 store and the folder holding its data. */
  s3Endpoint: string;
  s3Dir: string;
  bucket: string;
  /** The job store `serve` uses (tests read records through it). */
  jobs: JobStore;
  /** The local state machine's executions (`idle()` waits for every export started so far). */
  starter: LocalStarter;
  /**
   * Resolves once the export state machine is synthesized and loaded (exports asked for before
   * wait for it); rejects with `MachineSynthesisError` if it cannot be synthesized, or with why the
   * local runner refuses it.
   */
  machineReady: Promise<void>;
  /**
   * Stops the API, waits for running exports, stops the stores and removes the data folder (also
   * done when the start itself fails half way).
   */
  close(): Promise<void>;
}

/** Name of the local stack's log lines and metrics. */
const SERVICE_NAME = 'pbs-export-local';

/** What a start has to undo on close or on failure. */
interface UndoStack {
  push(step: () => unknown): void;
  /** Runs the steps, last first; a failing step does not keep the others from running. */
  run(): Promise<void>;
}

function undoStack(): UndoStack {
  const steps: (() => unknown)[] = [];
  return {
    push: (step) => {
      steps.push(step);
    },
    async run() {
      for (const step of steps.splice(0).reverse()) {
        await Promise.resolve()
          .then(step)
          .catch(() => {});
      }
    },
  };
}

/**
 * The local S3 store: s3rver on a new temporary folder, and a client of it with S3's conditional
 * writes (the job store and the slots need them; s3rver ignores them). Each part is pushed on `undo`.
 */
async function startLocalS3(port: number, undo: UndoStack, step: (step: string) => void) {
  const dir = await mkdtemp(join(tmpdir(), 'pbs-serve-s3-'));
  undo.push(() => removeUnlessClosed(dir, step));
  step(`starting the local S3 store (data in ${dir})`);
  const s3rver = new S3rver({
    address: '127.0.0.1',
    port,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: LOCAL_BUCKET }],
  });
  makeObjectWritesAtomic(s3rver);
  const { port: s3Port } = await s3rver.run();
  undo.push(() => s3rver.close());
  const s3Endpoint = `http://127.0.0.1:${s3Port}`;
  const s3 = await createS3Client({
    region: 'us-east-1',
    endpoint: s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  undo.push(() => s3.destroy());
  addConditionalWrites(s3);
  return { dir, s3, s3Endpoint };
}

/**
 * Removes the local store's folder unless it holds close records: a closed set is never deleted
 * by the project (lib/close). Synchronous, so that `serve` can also run it as the process exits.
 */
export function removeLocalStoreUnlessClosed(dir: string): 'removed' | 'kept' {
  let closes: string[] = [];
  try {
    closes = readdirSync(join(dir, LOCAL_BUCKET, CLOSES_PREFIX));
  } catch {
    // No close records (or no folder at all).
  }
  if (closes.length > 0) return 'kept';
  rmSync(dir, { recursive: true, force: true });
  return 'removed';
}

/** {@link removeLocalStoreUnlessClosed} when `serve` stops; a kept folder is told to `step`. */
function removeUnlessClosed(dir: string, step: (step: string) => void): void {
  if (removeLocalStoreUnlessClosed(dir) === 'kept')
    step(`kept the local S3 store's data in ${dir}: it holds closed sets, which pbs-export never deletes`);
}

/**
 * Starts the local stack. LOCAL USE ONLY (see the module comment). A start that fails half way
 * (e.g. the port is taken) stops what it started and removes the data folder before it throws.
 */
export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const undo = undoStack();
  try {
    return await startStack(options, undo);
  } catch (error) {
    await undo.run();
    throw error;
  }
}

/** The start proper: each part started is pushed on `undo`, which `close()` runs too. */
async function startStack(options: LocalServiceOptions, undo: UndoStack): Promise<LocalService> {
  const step = options.onStep ?? (() => {});
  const timeZone = options.timeZone ?? 'UTC';
  // The definition the stack deploys, synthesized meanwhile in a child (the CDK takes long).
  let synthesis: MachineSynthesis | undefined;
  if (options.exportMachine === undefined) {
    step('synthesizing the export state machine from infra/ (in the background)');
    synthesis = synthesizeInChild(LOCAL_MACHINE_CONFIG);
    undo.push(() => synthesis?.cancel());
  }
  const machine = options.exportMachine ?? (synthesis as MachineSynthesis).machine;

  step('starting the simulator (demo data)');
  const simulator = await startSimulator({});
  undo.push(() => simulator.close());
  const { dir, s3, s3Endpoint } = await startLocalS3(options.s3Port ?? 0, undo, step);
  // The portal offers the kept rates sources: here the made-up ones, named DEMO (lib/fx/demo-rates.ts).
  step('keeping the DEMO made-up ECB and HMRC rates files under rates/');
  await keepDemoRates({ s3, bucket: LOCAL_BUCKET });

  const arnOf = (name: string) => `arn:aws:secretsmanager:local:000000000000:secret:pbs/${name}`;
  const registry: ProfileRegistry = Object.fromEntries(
    simulator.profiles.map((p) => [p.name, { secretArn: arnOf(p.name), timeZone, monthly: true }]),
  );
  const readSecret = async (arn: string) => {
    const profile = simulator.profiles.find((p) => arnOf(p.name) === arn);
    if (!profile) throw new Error('no such local secret');
    return { apiKey: profile.apiKey, apiSecret: profile.apiSecret, profileGuid: profile.profileGuid };
  };
  const obs = createObservability(SERVICE_NAME);
  const jobs = createJobStore({ client: s3, bucket: LOCAL_BUCKET });
  const now = options.now ?? (() => new Date());
  // One export per API key at a time, queued jobs first in, first out: as deployed.
  const slots = createProfileSlots({ client: s3, bucket: LOCAL_BUCKET, registry, now });
  const workerContext: WorkerContext = {
    obs,
    jobs,
    s3,
    bucket: LOCAL_BUCKET,
    now,
    slots,
    // Notices as the deployed topic would carry them, linking to this server's portal.
    notify: async (job) => options.onNotice?.(noticeOf(job, `${options.publicUrl ?? api.url}/portal`), job),
    notifyClose: async (notice) =>
      options.onNotice?.(closeNoticeOf(notice, `${options.publicUrl ?? api.url}/portal`)),
    services: createServiceFactory({
      registry,
      readSecret,
      settings: { baseUrl: simulator.url, requestsPerSecond: LOCAL_MACHINE_CONFIG.requestsPerSecond },
    }),
  };
  /**
   * A task's handler as a Lambda function runs it, one invocation per instance: each invocation
   * here gets its own logger, so the keys one job appends (`jobId`, `profile`) never reach the
   * log lines of another job's task running at the same time.
   */
  const perInvocation =
    <E, R>(build: (context: WorkerContext) => (event: E) => Promise<R>) =>
    (event: E): Promise<R> =>
      build({ ...workerContext, obs: workerObservability(options.onNotice !== undefined) })(event);
  // Its tasks answered by what functions/export-*.ts are.
  const starter = createStateMachineStarter(
    machine,
    {
      plan: perInvocation(createPlanHandler),
      fetchShard: perInvocation(createFetchShardHandler),
      finish: perInvocation(createFinishHandler),
      fail: perInvocation(createFailHandler),
    },
    options.onDone ? { onDone: options.onDone } : {},
  );
  undo.push(() => starter.idle());
  // On close, a synthesis still running is stopped first: exports waiting for it end at once.
  undo.push(() => synthesis?.cancel());
  // The portal's development sign-in and the stand-in for API Gateway's JWT authorizer.
  const devAuth = createDevAuth(now);
  step('starting the HTTP API');
  // Built on the first request, when the server's own URL is known (port 0 picks a free port).
  const api: LocalApiServer = await startLocalApiServer(
    withDevAuthorizer(
      createApiFetch(() => ({
        obs,
        registry,
        jobs,
        starter,
        s3,
        bucket: LOCAL_BUCKET,
        now,
        linkExpirySeconds: 3600,
        publicBaseUrl: options.publicUrl ?? api.url,
        slots,
        profilesClaim: devAuth.profilesClaim,
        portal: { signIn: devAuth.signIn },
        adjustments: options.adjustments ?? createS3AdjustmentsStore({ client: s3, bucket: LOCAL_BUCKET }),
      })),
      devAuth,
    ),
    {
      port: options.port ?? 3000,
      ...(options.publicUrl !== undefined ? { publicUrl: options.publicUrl } : {}),
    },
  );
  undo.push(() => api.close());

  return {
    url: api.url,
    portalUrl: `${api.url}/portal`,
    devToken: async (profiles) => (await devAuth.signIn.issue(profiles)).token,
    simulator,
    s3Endpoint,
    s3Dir: dir,
    bucket: LOCAL_BUCKET,
    jobs,
    starter,
    machineReady: starter.ready,
    close: () => undo.run(),
  };
}

/**
 * A worker invocation's utilities. When the caller is told the notices (`npm run serve` prints
 * each, a failure with its reason), a request found invalid is logged as info, not said twice.
 */
function workerObservability(noticesTold: boolean): Observability {
  const obs = createObservability(SERVICE_NAME);
  return noticesTold ? { ...obs, invalidRequestsAsInfo: true } : obs;
}
