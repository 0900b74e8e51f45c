import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import type { DateBounds, RawTimelineItem, TimelineQuery } from '../pbs/model.ts';
import type { TransactionFieldMap } from '../pbs/shape.ts';
import { messageOf } from '../storage/errors.ts';
import { currentProcessOwner, type ProcessOwner } from '../storage/owner.ts';
import { openScratch } from '../storage/scratch.ts';
import type { Sink } from '../storage/sink.ts';
import { abortableClient } from './client.ts';
import { RunAbortedError } from './errors.ts';
import {
  type FetchedShard,
  type FetchProgress,
  type FetchRun,
  startFetch,
  type TransactionPageSource,
} from './fetch/fetch.ts';
import { type Period, periodLabel, periodRange, resolveChangesSince } from './plan/period.ts';
import { planShards, planWindows, resolveProtocols, type Shard, type Window } from './plan/plan.ts';
import { type ExportRequest, requestWarnings } from './plan/request.ts';
import { type Manifest, publicApiBase } from './publish/manifest.ts';
import { createLiveOutputs } from './report/live-outputs.ts';
import { publishReports, workbookOptions } from './report/render.ts';
import { createReportModel } from './report/report-model.ts';
import { assembleSnapshot } from './snapshot/assemble.ts';
import { SNAPSHOT_FORMAT, type SnapshotHeader } from './snapshot/snapshot.ts';

/** What `runExport` needs of the service client. */
export interface ExportServiceClient extends TransactionPageSource {
  dateBounds(): Promise<DateBounds>;
  defiProtocols(): Promise<string[]>;
  timeline(query?: TimelineQuery): AsyncIterable<RawTimelineItem>;
}

/** Progress of a run, for a progress bar or log lines. */
export type ExportProgress =
  | { stage: 'planned'; windows: number; shards: number }
  | ({ stage: 'page' } & FetchProgress)
  | { stage: 'shard'; shard: string; rows: number }
  | { stage: 'fetched'; transactions: number }
  | { stage: 'published'; file: string; bytes: number };

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
  /** Run id; default: UTC time of the run plus random hex. */
  runId?: string;
  generator?: { name: string; version: string };
  onProgress?: (progress: ExportProgress) => void;
  warn?: (message: string) => void;
}

export interface ExportResult {
  runId: string;
  /** Folder (relative to the sink) that holds the run's files. */
  prefix: string;
  manifest: Manifest;
}

/** Name and version written into every manifest and About sheet. */
export const GENERATOR = { name: 'pbs-export', version: '0.1.0' };

/**
 * Runs one export: plans windows from the portfolio's date-bounds, fetches every shard in full,
 * spools a raw snapshot, renders the reports from it and publishes them as one set, manifest
 * last. A run that fails or is stopped leaves nothing at a final name, so no report set looks
 * finished unless it is.
 */
export async function runExport(request: ExportRequest, deps: ExportDeps): Promise<ExportResult> {
  if (deps.signal?.aborted) throw new RunAbortedError({ cause: deps.signal.reason });
  for (const warning of requestWarnings(request)) deps.warn?.(warning);
  const startedAt = deps.now();
  const workDir = await openScratch(
    deps.workDir ?? tmpdir(),
    deps.owner ?? currentProcessOwner(),
    (path, error) =>
      deps.warn?.(`could not remove the scratch folder of a stopped run (${path}): ${messageOf(error)}`),
  );
  const { signal } = deps;
  const client = signal === undefined ? deps.client : abortableClient(deps.client, signal);
  try {
    const plan = await planExport(request, client);
    deps.onProgress?.({ stage: 'planned', windows: plan.windows.length, shards: plan.shards.length });
    // Windows are assembled and rendered while later shards are still being fetched.
    const fetching = startFetch(client, plan.shards, request.filters, {
      workDir,
      concurrency: deps.concurrency ?? 4,
      shardAttempts: deps.shardAttempts ?? 3,
      fields: deps.fields,
      protocolField: deps.fields.protocol,
      onPage: (page) => deps.onProgress?.({ stage: 'page', ...page }),
      onShardDone: (done) => deps.onProgress?.({ stage: 'shard', shard: done.shard.id, rows: done.rows }),
    });
    return await finishExport(request, plan, fetching, { ...deps, client, workDir, startedAt });
  } catch (error) {
    // Whatever surfaced first (a destroyed stream, an abandoned request), the run was stopped.
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    throw error;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** What to fetch: the windows of the period within the date-bounds, and window × protocol shards. */
export interface ExportPlan {
  windows: Window[];
  shards: Shard[];
}

/**
 * Plans an export from the portfolio's date-bounds (and, for protocol searches, its protocol
 * list). An empty portfolio or a period outside the bounds plans nothing, which is not an error.
 */
export async function planExport(
  request: ExportRequest,
  client: Pick<ExportServiceClient, 'dateBounds' | 'defiProtocols'>,
): Promise<ExportPlan> {
  const bounds = await client.dateBounds();
  const protocols =
    request.protocols === undefined || request.filters.hash !== undefined
      ? null
      : resolveProtocols(request.protocols, await client.defiProtocols());
  const planned = planWindows({
    period: request.gains !== undefined ? historyPeriod(request, bounds) : request.period,
    timeZone: request.timeZone,
    window: request.window,
    bounds,
  });
  // The service ignores the window when a hash is given, so one search covers the period.
  const windows = request.filters.hash !== undefined && planned.length > 0 ? [wholePeriod(request)] : planned;
  // `all` covers the whole period: the per-protocol searches plus the transactions of none of them.
  return { windows, shards: planShards(windows, protocols, { withRest: request.protocols === 'all' }) };
}

/**
 * The last stage of an export: writes the snapshot (plus the timeline items when the changes
 * report is asked for) window by window as the shards arrive, renders the transactions and
 * movements reports meanwhile, then the others, publishes them all and writes the manifest last.
 * `fetched` holds every shard fetched already, or a fetch still under way. `deps.workDir` must
 * exist; the caller owns it.
 */
export async function finishExport(
  request: ExportRequest,
  plan: ExportPlan,
  fetched: readonly FetchedShard[] | FetchRun,
  deps: ExportDeps & { workDir: string; startedAt: Date },
): Promise<ExportResult> {
  const runId = deps.runId ?? newRunId(deps.startedAt);
  const prefix = runPrefix(request, runId);
  const allFetched = isFetchRun(fetched) ? fetched.done : Promise.resolve(fetched);
  const headerOf = (shards: readonly FetchedShard[]): SnapshotHeader => ({
    kind: 'header',
    format: SNAPSHOT_FORMAT,
    request,
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
      listings: f.attempts,
      ...(f.listed !== undefined ? { listed: f.listed } : {}),
    })),
  });
  const snapshotFile = join(deps.workDir, 'snapshot.ndjson.gz');
  const changes = request.reports.includes('changes')
    ? deps.client.timeline({
        lastModifiedDate: resolveChangesSince(request.changesSince as string, request.timeZone),
      })
    : undefined;
  const live = createLiveOutputs({
    formats: request.formats,
    csv: request.csv,
    xlsx: workbookOptions(request, deps.demo === true),
    workDir: deps.workDir,
  });
  const model = createReportModel(deps.fields, request, {
    spoolDir: deps.workDir,
    live,
    ...(deps.warn ? { warn: deps.warn } : {}),
  });
  try {
    const assembled = await assembleSnapshot({
      header: async () => headerOf(await allFetched),
      windows: plan.windows,
      fetched: isFetchRun(fetched)
        ? { shards: plan.shards, shard: (index) => fetched.shard(index) }
        : fetched,
      fields: deps.fields,
      snapshotFile,
      onWindow: (records) => model.lookAhead(records),
      onRecord: (record) => model.observe(record),
      ...(changes ? { changes } : {}),
      ...(request.conflictingCopies !== undefined ? { conflictingCopies: request.conflictingCopies } : {}),
      ...(deps.warn ? { warn: deps.warn } : {}),
    });
    model.endLive();
    deps.onProgress?.({ stage: 'fetched', transactions: assembled.transactions });
    const header = headerOf(await allFetched);
    const manifest = await publishReports({
      snapshotFile,
      header,
      model,
      live,
      sink: deps.sink,
      prefix,
      runId,
      now: deps.now,
      generator: deps.generator ?? GENERATOR,
      counts: {
        transactions: assembled.transactions,
        duplicatesDropped: assembled.duplicates,
        conflictingCopies: assembled.conflictingCopies,
        outsideWindowDropped: assembled.outsideWindow,
        changes: assembled.changes,
      },
      onPublished: (file) =>
        deps.onProgress?.({ stage: 'published', file: file.location, bytes: file.bytes }),
      onCleanupError: (error) =>
        deps.warn?.(`could not remove what the failed run had written: ${messageOf(error)}`),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    return { runId, prefix, manifest };
  } catch (error) {
    await live.abort(error instanceof Error ? error : new Error(String(error)));
    // The fetch may still be running (a window failed before the last shard came): start no
    // more shards, and let the running ones settle before the caller removes their folder.
    if (isFetchRun(fetched)) fetched.stop();
    await allFetched.catch(() => {});
    throw error;
  }
}

function isFetchRun(fetched: readonly FetchedShard[] | FetchRun): fetched is FetchRun {
  return !Array.isArray(fetched);
}

/**
 * Lots need history: for the gains reports the fetch starts on the local day of the portfolio's
 * earliest transaction and runs to the end of the period; only the output keeps to the period.
 */
function historyPeriod(request: ExportRequest, bounds: DateBounds): Period {
  const range = periodRange(request.period, request.timeZone);
  if (bounds.earliest === null || bounds.earliest.getTime() >= range.start.toMillis()) return request.period;
  const from = DateTime.fromJSDate(bounds.earliest, { zone: request.timeZone }).toFormat('yyyy-MM-dd');
  return { from, to: range.end.minus({ days: 1 }).toFormat('yyyy-MM-dd') };
}

/** Folder of a run's files: `reports/{profile}/{period}/{runId}`. */
export function runPrefix(request: ExportRequest, runId: string): string {
  return `reports/${request.profile}/${periodLabel(request.period)}/${runId}`;
}

function wholePeriod(request: ExportRequest) {
  const range = periodRange(request.period, request.timeZone);
  return {
    index: 0,
    label: periodLabel(request.period),
    start: range.start.toJSDate(),
    end: range.end.toJSDate(),
  };
}

/** A sortable, unique run id such as `20261122T041500Z-3f9a1c`. */
export function newRunId(at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return `${stamp}-${randomBytes(3).toString('hex')}`;
}
