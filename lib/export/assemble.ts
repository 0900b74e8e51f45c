/**
 * Stage 3, assemble: the fetched shards merged window by window into the snapshot, every record
 * observed by the report model (the live reports rendered meanwhile).
 */
import { join } from 'node:path';
import type { LoadedAdjustments } from '../adjustments/index.ts';
import { ValidationError } from '../errors.ts';
import type { RateTable } from '../fx/index.ts';
import type { TransactionFieldMap } from '../pbs/index.ts';
import type { Digest } from '../storage/index.ts';
import type { ExportServiceClient } from './client.ts';
import type { FetchedShard, FetchRun } from './fetch/index.ts';
import { type ExportPlan, type ExportRequest, keptRange, resolveChangesSince } from './plan/index.ts';
import { publicApiBase } from './publish/index.ts';
import {
  createLiveOutputs,
  createReportModel,
  type LiveOutputs,
  type ReportModel,
  workbookOptions,
} from './report/index.ts';
import { assembleSnapshot, changesSince, SNAPSHOT_FORMAT, type SnapshotHeader } from './snapshot/index.ts';

/** What the assembly tells of its progress: the snapshot is complete. */
export type AssembleProgress = { stage: 'fetched'; transactions: number };

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
  onProgress?: (progress: AssembleProgress) => void;
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
      xlsx: workbookOptions(request, deps.demo === true, deps.startedAt),
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
    const before = droppedBefore(await allFetched);
    return {
      snapshotFile,
      // The header the snapshot holds (the callback runs once every window is assembled).
      header: header as SnapshotHeader,
      ...(assembled.digest !== undefined ? { snapshotDigest: assembled.digest } : {}),
      counts: {
        transactions: assembled.transactions,
        duplicatesDropped: assembled.duplicates + before.duplicates,
        conflictingCopies: assembled.conflictingCopies,
        outsideWindowDropped: assembled.outsideWindow + before.outsideWindow,
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
export function snapshotHeader(
  request: ExportRequest,
  plan: ExportPlan,
  shards: readonly FetchedShard[],
  deps: Pick<AssembleDeps, 'apiBase' | 'demo' | 'startedAt' | 'fields'>,
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
      ...(f.orders !== undefined ? { orders: [...f.orders] } : {}),
      listings: f.attempts,
      ...(f.listed !== undefined ? { listed: f.listed } : {}),
    })),
  };
}

/** What the shards' windows dropped before their parts were made of their snapshot members. */
function droppedBefore(shards: readonly FetchedShard[]): { duplicates: number; outsideWindow: number } {
  let duplicates = 0;
  let outsideWindow = 0;
  for (const shard of shards) {
    duplicates += shard.droppedBefore?.duplicates ?? 0;
    outsideWindow += shard.droppedBefore?.outsideWindow ?? 0;
  }
  return { duplicates, outsideWindow };
}

function isFetchRun(fetched: readonly FetchedShard[] | FetchRun): fetched is FetchRun {
  return !Array.isArray(fetched);
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
