/**
 * One export through `runExport` under injected faults, then reruns until it succeeds: the run
 * either publishes exactly the reference or fails cleanly, and a rerun then publishes exactly the
 * reference. Returns what happened, for the figures and the assertions.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ExportDeps,
  type ExportRequest,
  type ExportServiceClient,
  runExport,
  runPrefix,
} from '../../../lib/export/index.ts';
import type { PbsClientConfig, ServiceShapeOverrides } from '../../../lib/pbs/index.ts';
import { startSimulator } from '../../../lib/simulator/index.ts';
import type { FaultOptions, RunningSimulator, SimulatedProfile } from '../../../lib/simulator/types.ts';
import { createLocalSink } from '../../../lib/storage/index.ts';
import type { Sink } from '../../../lib/storage/sink.ts';
import {
  checkCleanFailure,
  checkFinishedRun,
  clientFor,
  FAULT_NOW,
  type Reference,
  type RunFiles,
  readLocalRun,
  referenceFor,
  smallPages,
} from './fault-harness.ts';
import { recordFigures } from './figures.ts';

/** Options of {@link exportUnderFaults}. */
export interface FaultyExportOptions {
  request: ExportRequest;
  /** Profile of the request (default `acme`). */
  profile?: string;
  profiles?: SimulatedProfile[];
  /** Simulator seed: data and fault schedule (default 1). */
  seed?: number;
  /** Page size of the GAPS.md default shape (default 10). */
  pageSize?: number;
  /** A wire shape of GAPS.md's alternatives instead of the default's (for the simulator and the client). */
  shape?: ServiceShapeOverrides;
  faults: FaultOptions;
  /** Faults while rerunning (default none: the incident is over); the last rerun allowed has none. */
  rerunFaults?: FaultOptions;
  /** Reruns allowed after a clean failure (default 1). */
  maxReruns?: number;
  /**
   * Client settings of the faulty runs (default: 10 s timeout, 6 attempts, no sleeping). The
   * timeout is generous so that a busy machine never turns a healthy request into a fault; a test
   * of stalls sets a shorter one, still well below its `stallMs`.
   */
  client?: Partial<PbsClientConfig>;
  /** Wraps the client of the first run (e.g. to crash inside a shard's fetch). */
  wrapClient?: (client: ExportServiceClient) => ExportServiceClient;
  /** Wraps the sink of the first run (e.g. to fail mid-render). */
  wrapSink?: (sink: Sink) => Sink;
  /** The sink of every run instead of a scratch folder (e.g. S3); `read` returns a run's files. */
  sink?: { sink: Sink; read: (prefix: string) => Promise<RunFiles> };
  /** Other deps of every run (e.g. `concurrency`). */
  deps?: Partial<ExportDeps>;
  /** Accepts an error that is not a `PbsExportError` (an injected crash). */
  injectedError?: (error: unknown) => boolean;
  /** Called with the simulator once started (e.g. to move its clock or rotate keys). */
  onSimulator?: (simulator: RunningSimulator) => void;
}

/** What happened. `problems` is empty when the run survived. */
export interface FaultyExportResult {
  /** The first run published exactly the reference. */
  completed: boolean;
  /** The first run's error, when it failed. */
  error?: unknown;
  problems: string[];
  dataLost: boolean;
  reruns: number;
  /** Requests into which the simulator injected a fault (every run). */
  faultedRequests: number;
  /** Faults by kind. */
  faultKinds: Record<string, number>;
  /** Sleeps the client asked for, in ms (backoff and Retry-After). */
  sleeps: number[];
  reference: Reference;
  simulator: RunningSimulator;
}

/**
 * Runs the export under `faults`, checks it, and reruns after a clean failure (with
 * `rerunFaults`) up to `maxReruns` times. Never throws for what the export does: the caller
 * records the figures and asserts `problems` is empty.
 */
export async function exportUnderFaults(options: FaultyExportOptions): Promise<FaultyExportResult> {
  const profile = options.profile ?? 'acme';
  const seed = options.seed ?? 1;
  const shape = options.shape ?? smallPages(options.pageSize ?? 10);
  const reference = await referenceFor({
    seed,
    shape,
    profile,
    request: options.request,
    ...(options.profiles ? { profiles: options.profiles } : {}),
  });
  const simulator = await startSimulator({
    seed,
    shape,
    rateLimitPerSecond: 100_000,
    faults: options.faults,
    ...(options.profiles ? { profiles: options.profiles } : {}),
  });
  options.onSimulator?.(simulator);
  const sleeps: number[] = [];
  const client = clientFor(simulator.url, simulator.profiles, profile, shape, {
    timeoutMs: 10_000,
    retry: { maxAttempts: 6 },
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    logger: { warn: () => {}, debug: () => {} },
    ...options.client,
  });
  const outDir = await mkdtemp(join(tmpdir(), 'pbs-faults-run-'));
  const local = createLocalSink(outDir);
  const secrets = simulator.profiles.flatMap((p) => [p.apiKey, p.apiSecret]);
  const problems: string[] = [];
  let dataLost = false;
  let completed = false;
  let error: unknown;
  let reruns = 0;
  try {
    const attempt = async (run: number): Promise<boolean> => {
      const runId = `run-${run}`;
      const prefix = runPrefix(options.request, runId);
      const first = run === 1;
      const baseSink = options.sink ? options.sink.sink : local;
      const read = options.sink ? options.sink.read : (p: string) => readLocalRun(outDir, p);
      const deps: ExportDeps = {
        client: first && options.wrapClient ? options.wrapClient(client) : client,
        sink: first && options.wrapSink ? options.wrapSink(baseSink) : baseSink,
        fields: client.shape.fields,
        apiBase: simulator.url,
        now: () => FAULT_NOW,
        runId,
        ...options.deps,
      };
      try {
        await runExport(options.request, deps);
      } catch (failure) {
        if (first) error = failure;
        const files = await read(prefix);
        const injected = options.injectedError?.(failure) ?? false;
        const found = checkCleanFailure(failure, files, secrets, { injected });
        problems.push(...found.map((p) => `${runId} failed uncleanly (${describe(failure)}): ${p}`));
        return false;
      }
      const check = checkFinishedRun(await read(prefix), reference);
      problems.push(...check.problems.map((p) => `${runId}: ${p}`));
      dataLost ||= check.dataLost;
      return check.problems.length === 0;
    };
    completed = await attempt(1);
    let succeeded = completed;
    const maxReruns = options.maxReruns ?? 1;
    while (!succeeded && problems.length === 0 && reruns < maxReruns) {
      reruns += 1;
      simulator.setFaults(reruns < maxReruns ? (options.rerunFaults ?? {}) : {});
      succeeded = await attempt(reruns + 1);
    }
    if (!succeeded && problems.length === 0) problems.push(`no rerun succeeded in ${reruns} reruns`);
  } finally {
    await simulator.close();
    await rm(outDir, { recursive: true, force: true });
  }
  const faultKinds: Record<string, number> = {};
  for (const entry of simulator.requestLog) {
    if (entry.fault !== undefined && entry.fault !== 'latency') {
      faultKinds[entry.fault] = (faultKinds[entry.fault] ?? 0) + 1;
    }
  }
  return {
    completed,
    ...(error !== undefined ? { error } : {}),
    problems,
    dataLost,
    reruns,
    faultedRequests: Object.values(faultKinds).reduce((sum, n) => sum + n, 0),
    faultKinds,
    sleeps,
    reference,
    simulator,
  };
}

/** Records one run's row of the faults table: it was injected, survived or not, data lost or not. */
export function recordRun(
  name: string,
  result: { problems: string[]; dataLost: boolean; reruns: number },
  injected = 1,
): void {
  recordFigures('faults', name, {
    injected,
    survived: result.problems.length === 0 ? injected : 0,
    dataLost: result.dataLost ? 1 : 0,
    reruns: result.reruns,
  });
}

function describe(failure: unknown): string {
  return failure instanceof Error ? `${failure.name}: ${failure.message}` : String(failure);
}
