import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadedAdjustments } from '../adjustments/index.ts';
import { ValidationError } from '../errors.ts';
import type { RateTable } from '../fx/index.ts';
import type { TransactionFieldMap } from '../pbs/shape.ts';
import { messageOf } from '../storage/errors.ts';
import type { Digest } from '../storage/hashing.ts';
import { currentProcessOwner, type ProcessOwner } from '../storage/owner.ts';
import { openScratch } from '../storage/scratch.ts';
import type { Sink } from '../storage/sink.ts';
import { abortableClient, type ExportServiceClient, servedDemoData } from './client.ts';
import { RunAbortedError } from './errors.ts';
import { type FetchedShard, type FetchProgress, type FetchRun, startFetch } from './fetch/index.ts';
import {
  type ExportPlan,
  type ExportRequest,
  keptRange,
  periodLabel,
  planExport,
  requestWarnings,
  resolveChangesSince,
} from './plan/index.ts';
import {
  type Manifest,
  type ManifestFile,
  type PublishTarget,
  publicApiBase,
  publishReports,
} from './publish/index.ts';
import {
  createLiveOutputs,
  createReportModel,
  type LiveOutputs,
  type ReportModel,
  renderReports,
  workbookOptions,
} from './report/index.ts';
import { assembleSnapshot, changesSince, SNAPSHOT_FORMAT, type SnapshotHeader } from './snapshot/index.ts';

/** Progress of a run, for a progress bar or log lines. */
export type ExportProgress =
  | { stage: 'planned'; windows: number; shards: number }
  | ({ stage: 'page' } & FetchProgress)
  | { stage: 'shard'; shard: string; rows: number }
  | { stage: 'fetched'; transactions: number }
  | { stage: 'published'; file: string; bytes: number };

/** Defaults of every export, whichever process runs it (CLI, Lambda workers, benchmark). */
export const EXPORT_DEFAULTS = {
  /** Requests in flight at once over the whole fetch (and shards open, or parts read, at once). */
  concurrency: 4,
  /** Whole-shard attempts on an incomplete fetch. */
  shardAttempts: 3,
} as const;

/** Everything `runExport` uses besides the request; built once per process by the caller. */
export interface ExportDeps {
  client: ExportServiceClient;
  sink: Sink;
  /** Where the service puts each transaction field (the configured shape's field map). */
  fields: TransactionFieldMap;
  /** Base URL of the service, recorded in the manifest without any credential. */
  apiBase: string;
  /**
   * The service is the simulator: its data is demo data, not a real portfolio. The snapshot, the
   * manifest, the Read me, the About sheet and every printed page say so. Default false.
   */
  demo?: boolean;
  now: () => Date;
  /**
   * Parent of the run's scratch folder (removed afterwards; the scratch folders that dead runs
   * left there are removed first). Default: the OS temp folder.
   */
  workDir?: string;
  /** Owner of the scratch folder, and judge of whether another run's owner is alive (default: this process). */
  owner?: ProcessOwner;
  /**
   * Stops the run (Ctrl-C, SIGTERM): no further request, the file being published is aborted,
   * what was staged and the scratch folder are removed, and `runExport` rejects with a
   * `RunAbortedError`. A set already in place when it fires is kept.
   */
  signal?: AbortSignal;
  /** Requests in flight at once over the whole fetch (and shards open at once). Default 4. */
  concurrency?: number;
  /** Whole-shard attempts on an incomplete fetch. Default 3. */
  shardAttempts?: number;
  /** Run id; default: {@link newRunId} of the run's start. */
  runId?: string;
  generator?: { name: string; version: string };
  onProgress?: (progress: ExportProgress) => void;
  warn?: (message: string) => void;
  /** The rates files' table when the request asks for `gains.rates` (the trigger reads the files). */
  rates?: RateTable;
  /**
   * The preparer's adjustments for the gains figures (read and validated by the trigger). The
   * snapshot stays what the service sent; the manifest records their version and SHA-256.
   */
  adjustments?: LoadedAdjustments;
}

export interface ExportResult {
  runId: string;
  /** Folder (relative to the sink) that holds the run's files. */
  prefix: string;
  manifest: Manifest;
  /** Every object stored, as the sink describes it (reports with their rows), the manifest last. */
  files: ManifestFile[];
}

/** Name and version written into every manifest and About sheet. */
export const GENERATOR = { name: 'pbs-export', version: '0.1.0' };

/**
 * Runs one export: plans windows from the portfolio's date-bounds, fetches every shard in full,
 * then `assembleExport → renderReports → publishReports`: a raw snapshot (with the live reports
 * rendered meanwhile), the other reports from it, and all of them published as one set, manifest
 * last. A run that fails or is stopped leaves nothing at a final name, so no report set looks
 * finished unless it is.
 */
export async function runExport(request: ExportRequest, deps: ExportDeps): Promise<ExportResult> {
  if (deps.signal?.aborted) throw new RunAbortedError({ cause: deps.signal.reason });
  for (const warning of requestWarnings(request)) deps.warn?.(warning);
  const startedAt = deps.now();
  const workDir = await openRunScratch(deps);
  const { signal } = deps;
  const client = signal === undefined ? deps.client : abortableClient(deps.client, signal);
  try {
    const plan = await planExport(request, client);
    deps.onProgress?.({ stage: 'planned', windows: plan.windows.length, shards: plan.shards.length });
    // Windows are assembled and rendered while later shards are still being fetched.
    const fetching = startFetch(client, plan.shards, request.filters, {
      workDir,
      concurrency: deps.concurrency ?? EXPORT_DEFAULTS.concurrency,
      shardAttempts: deps.shardAttempts ?? EXPORT_DEFAULTS.shardAttempts,
      fields: deps.fields,
      protocolField: deps.fields.protocol,
      // The parts are read back here and removed with the scratch folder: no deflate and inflate.
      compressParts: false,
      onPage: (page) => deps.onProgress?.({ stage: 'page', ...page }),
      onShardDone: (done) => deps.onProgress?.({ stage: 'shard', shard: done.shard.id, rows: done.rows }),
    });
    // Planning has had answers already: the simulator's mark them as demo data, however reached.
    const demo = deps.demo === true || servedDemoData(client);
    const assembled = await assembleExport(request, plan, fetching, {
      ...deps,
      client,
      workDir,
      startedAt,
      demo,
    });
    const runId = deps.runId ?? newRunId(startedAt);
    const rendered = await renderReports({
      ...assembled,
      runId,
      now: deps.now,
      generator: deps.generator ?? GENERATOR,
      workDir,
      ...(signal ? { signal } : {}),
    });
    const prefix = runPrefix(request, runId);
    const { manifest, files } = await publishReports(rendered, {
      sink: deps.sink,
      prefix,
      now: deps.now,
      ...publishListeners(deps),
    });
    return { runId, prefix, manifest, files };
  } catch (error) {
    // Whatever surfaced first (a destroyed stream, an abandoned request), the run was stopped.
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    throw error;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** What `publishReports` tells a run's caller: progress, cleanup failures as warnings, the stop signal. */
export function publishListeners(
  deps: Pick<ExportDeps, 'onProgress' | 'warn' | 'signal'>,
): Omit<PublishTarget, 'sink' | 'prefix' | 'now'> {
  return {
    onPublished: (file) => deps.onProgress?.({ stage: 'published', file: file.location, bytes: file.bytes }),
    onCleanupError: (error) =>
      deps.warn?.(`could not remove what the failed run had written: ${messageOf(error)}`),
    ...(deps.signal ? { signal: deps.signal } : {}),
  };
}

/**
 * A run's scratch folder under `workDir` (default: the OS temp folder), after removing the ones
 * that dead runs left there. The caller removes it.
 */
export function openRunScratch(deps: Pick<ExportDeps, 'workDir' | 'owner' | 'warn'>): Promise<string> {
  return openScratch(deps.workDir ?? tmpdir(), deps.owner ?? currentProcessOwner(), (path, error) =>
    deps.warn?.(`could not remove the scratch folder of a stopped run (${path}): ${messageOf(error)}`),
  );
}

/** What `assembleExport` uses. */
export interface AssembleDeps {
  /** For the changes report's timeline. */
  client: Pick<ExportServiceClient, 'timeline'>;
  fields: TransactionFieldMap;
  apiBase: string;
  demo?: boolean;
  /** When the export started: the snapshot's and manifest's `createdAt`. */
  startedAt: Date;
  /** The run's scratch folder (it must exist; the caller owns it). */
  workDir: string;
  onProgress?: (progress: ExportProgress) => void;
  warn?: (message: string) => void;
  /** The rates of `gains.rates`, for the gains feed. */
  rates?: RateTable;
  /** The preparer's adjustments, for the gains feed. */
  adjustments?: LoadedAdjustments;
}

/** An assembled run: its snapshot, and the report model that observed every record of it. */
export interface AssembledExport {
  snapshotFile: string;
  header: SnapshotHeader;
  /** Size and SHA-256 of the snapshot, taken while it was written (the About sheet lists them). */
  snapshotDigest?: Digest;
  /** Counts of the fetch and assembly, for the manifest. */
  counts: Record<string, number>;
  model: ReportModel;
  /** The reports rendered while assembling; `renderReports` finishes them. */
  live: LiveOutputs;
  /** The adjustments the model applied, for the manifest. */
  adjustments?: LoadedAdjustments;
}

/**
 * Writes the snapshot (plus the timeline items when the changes report is asked for) window by
 * window as the shards arrive, and meanwhile renders the transactions and movements reports.
 * `fetched` holds every shard fetched already, or a fetch still under way. On failure the live
 * writers are stopped and a fetch still under way starts no further shard and settles.
 */
export async function assembleExport(
  request: ExportRequest,
  plan: ExportPlan,
  fetched: readonly FetchedShard[] | FetchRun,
  deps: AssembleDeps,
): Promise<AssembledExport> {
  const allFetched = isFetchRun(fetched) ? fetched.done : Promise.resolve(fetched);
  /**
   * On any failure, the setup's included (the fetch is running already): the live writers are
   * stopped, the fetch starts no more shards, and the running ones settle before the caller
   * removes their folder (else the removal fails with ENOTEMPTY and hides the error).
   */
  const fail = async (error: unknown, live: LiveOutputs | undefined): Promise<never> => {
    await live?.abort(error instanceof Error ? error : new Error(String(error)));
    if (isFetchRun(fetched)) fetched.stop();
    await allFetched.catch(() => {});
    throw error;
  };
  const snapshotFile = join(deps.workDir, 'snapshot.ndjson.gz');
  const changes = request.reports.includes('changes') ? changesOf(request, deps) : undefined;
  let live: LiveOutputs | undefined;
  let model: ReportModel;
  try {
    checkRequestedAdjustments(request, deps.adjustments);
    live = createLiveOutputs({
      formats: request.formats,
      csv: request.csv,
      xlsx: workbookOptions(request, deps.demo === true),
      workDir: deps.workDir,
    });
    model = createReportModel(deps.fields, request, {
      spoolDir: deps.workDir,
      // The data is as it was when the export started: later days are not over.
      now: () => deps.startedAt,
      live,
      ...(deps.warn ? { warn: deps.warn } : {}),
      ...(deps.rates ? { rates: deps.rates } : {}),
      ...(deps.adjustments ? { adjustments: deps.adjustments } : {}),
    });
  } catch (error) {
    return fail(error, live);
  }
  try {
    let header: SnapshotHeader | undefined;
    const assembled = await assembleSnapshot({
      header: async () => {
        header = snapshotHeader(request, plan, await allFetched, deps);
        return header;
      },
      windows: plan.windows,
      range: keptRange(request, plan.windows),
      fetched: isFetchRun(fetched)
        ? { shards: plan.shards, shard: (index) => fetched.shard(index) }
        : fetched,
      fields: deps.fields,
      snapshotFile,
      onWindow: (records) => model.lookAhead(records),
      onRecord: (record) => model.observe(record),
      ...(changes ? { changes: changes.items } : {}),
      ...(request.conflictingCopies !== undefined ? { conflictingCopies: request.conflictingCopies } : {}),
      ...(deps.warn ? { warn: deps.warn } : {}),
    });
    model.endLive();
    deps.onProgress?.({ stage: 'fetched', transactions: assembled.transactions });
    return {
      snapshotFile,
      // The header the snapshot holds (the callback runs once every window is assembled).
      header: header as SnapshotHeader,
      ...(assembled.digest !== undefined ? { snapshotDigest: assembled.digest } : {}),
      counts: {
        transactions: assembled.transactions,
        duplicatesDropped: assembled.duplicates,
        conflictingCopies: assembled.conflictingCopies,
        outsideWindowDropped: assembled.outsideWindow,
        keptFromOtherWindow: assembled.otherWindow,
        changes: assembled.changes,
        ...(changes ? { changesBeforeSinceDropped: changes.dropped() } : {}),
      },
      model,
      live,
      ...(deps.adjustments ? { adjustments: deps.adjustments } : {}),
    };
  } catch (error) {
    // The fetch may still be running (a window failed before the last shard came).
    return fail(error, live);
  }
}

/**
 * The timeline since `changesSince`, filtered on this side too (see `changesSince`): the items a
 * service sent although they were modified before that instant are dropped, counted for the
 * manifest, and named in one warning at the end.
 */
function changesOf(request: ExportRequest, deps: AssembleDeps) {
  const since = resolveChangesSince(request.changesSince as string, request.timeZone);
  // A service that ignores lastModifiedDate sends its whole timeline: count, name only a few.
  let dropped = 0;
  const named: string[] = [];
  const filtered = changesSince(deps.client.timeline({ lastModifiedDate: since }), {
    since,
    fields: deps.fields,
    onDropped: (id) => {
      dropped += 1;
      if (named.length < 5) named.push(JSON.stringify(id));
    },
  });
  async function* items() {
    yield* filtered;
    if (dropped === 0) return;
    deps.warn?.(
      `the timeline sent ${dropped} item(s) last modified before ${since.toISOString()} ` +
        `(${named.join(', ')}${dropped > named.length ? ', …' : ''}): not changes since then, left out of the changes report`,
    );
  }
  return { items: items(), dropped: () => dropped };
}

/** The snapshot's first line: the request, where the data came from, the plan and each shard's fetch. */
function snapshotHeader(
  request: ExportRequest,
  plan: ExportPlan,
  shards: readonly FetchedShard[],
  deps: AssembleDeps,
): SnapshotHeader {
  return {
    kind: 'header',
    format: SNAPSHOT_FORMAT,
    // The snapshot is what the service sent: which adjustments the figures use is the manifest's.
    request: withoutAdjustments(request),
    apiBase: publicApiBase(deps.apiBase),
    ...(deps.demo === true ? { demo: true } : {}),
    createdAt: deps.startedAt.toISOString(),
    fields: deps.fields,
    windows: plan.windows.map((w) => ({
      index: w.index,
      label: w.label,
      start: w.start.toISOString(),
      end: w.end.toISOString(),
    })),
    shards: shards.map((f) => ({
      id: f.shard.id,
      window: f.shard.window.index,
      protocol: f.shard.protocol,
      rows: f.rows,
      totalReported: f.totalReported,
      completeness: f.completeness,
      ...(f.pageSizes !== undefined ? { pageSizes: [...f.pageSizes] } : {}),
      listings: f.attempts,
      ...(f.listed !== undefined ? { listed: f.listed } : {}),
    })),
  };
}

function isFetchRun(fetched: readonly FetchedShard[] | FetchRun): fetched is FetchRun {
  return !Array.isArray(fetched);
}

/** Folder of a run's files: `reports/{profile}/{period}/{runId}`. */
export function runPrefix(request: ExportRequest, runId: string): string {
  return `reports/${request.profile}/${periodLabel(request.period)}/${runId}`;
}

/**
 * A sortable run id such as `20261122T041500Z-3f9a1c`: the UTC time of `at`, then `tag`. The
 * default tag is six random hex digits (unique per run); a retried task passes a tag derived
 * from its job, so every attempt names the same run.
 */
export function newRunId(at: Date, tag: string = randomBytes(3).toString('hex')): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `${stamp}-${tag}`;
}

/** `request` without its `adjustments` reference (see `snapshotHeader`). */
function withoutAdjustments(request: ExportRequest): ExportRequest {
  if (request.adjustments === undefined) return request;
  const { adjustments: _left, ...rest } = request;
  return rest;
}

/**
 * Refuses a run whose request names adjustments (`request.adjustments`) the caller did not load,
 * or loaded in another version or with other bytes: the figures would not be the ones asked for.
 */
function checkRequestedAdjustments(request: ExportRequest, loaded: LoadedAdjustments | undefined): void {
  const asked = request.adjustments;
  if (asked === undefined) return;
  if (loaded === undefined)
    throw new ValidationError(
      'adjustments',
      `version ${asked.version} is asked for, but no adjustments were read`,
    );
  const other =
    loaded.document.version !== asked.version ||
    (asked.sha256 !== undefined && asked.sha256 !== loaded.sha256);
  if (other)
    throw new ValidationError(
      'adjustments',
      `version ${asked.version}${asked.sha256 ? ` (SHA-256 ${asked.sha256})` : ''} is asked for, but version ${loaded.document.version} (SHA-256 ${loaded.sha256}) was read`,
    );
}
