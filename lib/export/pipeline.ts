/**
 * The one export pipeline (docs/pipeline.md): plan → fetch → assemble → render → publish, run by
 * {@link runPipeline} for every caller: the CLI (`runExport`, `render`), `serve` and the Lambda
 * finish. What differs between them is only where a stage's input comes from, the stage sources
 * they pass (plan now or the stored plan, shards fetched now or downloaded parts, rates and
 * adjustments from files or from S3, a snapshot instead of the service), and the sink.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import type { LoadedAdjustments } from '../adjustments/index.ts';
import type { RateTable } from '../fx/index.ts';
import type { TransactionFieldMap } from '../pbs/index.ts';
import type { ManifestSigner, PreviousSet } from '../proof/index.ts';
import type { Sink } from '../storage/index.ts';
import { currentProcessOwner, messageOf, openScratch, type ProcessOwner } from '../storage/index.ts';
import type { AssembledExport, AssembleProgress, assembleExport } from './assemble.ts';
import { abortableClient, type ExportServiceClient, servedDemoData } from './client.ts';
import { RunAbortedError } from './errors.ts';
import {
  type FetchedShard,
  type FetchOptions,
  type FetchProgress,
  type FetchRun,
  startFetch,
} from './fetch/index.ts';
import {
  type ExportPlan,
  type ExportRequest,
  periodLabel,
  planExport,
  requestWarnings,
} from './plan/index.ts';
import type { Manifest, ManifestFile, PublishTarget, publishReports } from './publish/index.ts';
import { type ClosedPrevious, DIFFERENCE_ACTION } from './reconcile/index.ts';
import { reconcileRun, reconciliationAttention, withReconciliation } from './reconciling.ts';
import type { RenderedReports, RenderInput, renderReports } from './report/index.ts';
import { createPartStore, partBudgetFor, type SnapshotHeader } from './snapshot/index.ts';

/** Progress of a run, for a progress bar or log lines. */
export type ExportProgress =
  | { stage: 'planned'; windows: number; shards: number }
  | ({ stage: 'page' } & FetchProgress)
  | { stage: 'shard'; shard: string; rows: number }
  | AssembleProgress
  | { stage: 'published'; file: string; bytes: number };

/** Defaults of every export, whichever process runs it (CLI, Lambda workers, benchmark). */
export const EXPORT_DEFAULTS = {
  /** Requests in flight at once over the whole fetch (and shards open, or parts read, at once). */
  concurrency: 4,
  /** Whole-shard attempts on an incomplete fetch. */
  shardAttempts: 3,
} as const;

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

/** The request as run, with what it needs besides the service's data. */
export interface ResolvedInputs {
  /** The request as run (e.g. `gains.rates.files` filled in from the rates files read). */
  request: ExportRequest;
  /** The rates files' table when the request asks for `gains.rates`. */
  rates?: RateTable;
  /** The preparer's adjustments the request names (`request.adjustments`). */
  adjustments?: LoadedAdjustments;
}

/** Stage 0: the request's rates and adjustments, resolved before anything is fetched. */
export type InputsStage = (request: ExportRequest) => Promise<ResolvedInputs>;

/** A planned run. */
export interface PlannedRun {
  plan: ExportPlan;
  /** When the export started: the snapshot's and the manifest's `createdAt`. */
  startedAt: Date;
  /** Planning had an answer from the project's simulator (the plan was made in another process). */
  demo?: boolean;
}

/** Stage 1: where the plan comes from (planned now, or the plan task's stored plan). */
export type PlanStage = (request: ExportRequest, client: ExportServiceClient) => Promise<PlannedRun>;

/** What a fetch stage is given. */
export interface FetchContext {
  request: ExportRequest;
  client: ExportServiceClient;
  fields: TransactionFieldMap;
  /** The run's scratch folder: the part files go there. */
  workDir: string;
  onProgress?: (progress: ExportProgress) => void;
}

/** What the fetch stage hands the assembly. */
export interface FetchedShards {
  /** The shards as they come (a fetch or a download under way). */
  run: FetchRun;
  /**
   * Whether any shard come so far had answers from the project's simulator: for shards fetched in
   * other processes (their parts say it). Absent: the client of this run tells.
   */
  demo?: () => boolean;
}

/** Stage 2: where the fetched shards come from (fetched now, or the parts the fetch tasks stored). */
export type FetchStage = (plan: ExportPlan, context: FetchContext) => FetchedShards;

/** What a join stage is given besides the request and plan. */
export interface JoinContext {
  /** The run's scratch folder: the joined files go there. */
  workDir: string;
  startedAt: Date;
  /** Planning had answers from the project's simulator. */
  demo: boolean;
  onProgress?: (progress: ExportProgress) => void;
}

/**
 * Stage 3 from windows assembled and rendered elsewhere (the Lambda fetch-shard tasks' pieces,
 * joined by the finish: `joinWindowPieces`); null when the run has none to join, and its fetched
 * shards are assembled here.
 */
export type JoinStage = (
  request: ExportRequest,
  plan: ExportPlan,
  context: JoinContext,
) => Promise<AssembledExport | null>;

/** Records from the service: planned, fetched and assembled by this run (stages 1 to 3). */
export interface ServiceSource {
  kind: 'service';
  client: ExportServiceClient;
  /** Where the service puts each transaction field (the configured shape's field map). */
  fields: TransactionFieldMap;
  /** Base URL of the service, recorded in the manifest without any credential. */
  apiBase: string;
  /** The service is known to serve demo data (the embedded simulator). Default: as its answers say. */
  demo?: boolean;
  plan: PlanStage;
  fetch: FetchStage;
  /** Windows assembled elsewhere, joined instead of fetched and assembled here (see {@link JoinStage}). */
  join?: JoinStage;
}

/** Records of a snapshot written by an earlier run (`render`): stages 1 to 3 are done. */
export interface SnapshotSource {
  kind: 'snapshot';
  file: string;
  /** The snapshot's header, its request as it is to be rendered. */
  header: SnapshotHeader;
  /** The zone the reports' dates are shown in, when not the request's (`render --time-zone`). */
  displayTimeZone?: string;
}

/**
 * The stages after the fetch of a run that publishes: assemble, render, publish (`PUBLISHING` of
 * `publishing.ts`). Passed in rather than imported here, so that a task running only the stages
 * before them (the Lambda plan and fetch-shard tasks) bundles none of the renderer.
 */
export interface PublishingStages {
  assemble: typeof assembleExport;
  render: typeof renderReports;
  publish: typeof publishReports;
}

/** The stage sources of a run (see docs/pipeline.md). */
export interface PipelineStages {
  /** Assemble, render, publish: `PUBLISHING`. */
  publishing: PublishingStages;
  /** Default: the request as it is, without rates or adjustments. */
  inputs?: InputsStage;
  source: ServiceSource | SnapshotSource;
  /**
   * Lines the manifest records besides the run's own description, asked once the reports are
   * rendered (the monthly close check: `closeCheck`). Null: none.
   */
  describe?: () => Promise<Readonly<Record<string, string>> | null>;
  /**
   * The set this one continues (README: Proof), looked up where the set is published, asked once
   * the reports are rendered: the manifest's `previous`. Absent: the manifest records no chain.
   */
  previous?: (request: ExportRequest, periodStart: string) => Promise<PreviousSet | null>;
  /**
   * The closed set of the profile's period ending at `periodStart` (lib/close, looked up where the
   * set is published), whose closing balances a reconciled run's opening balances are checked
   * against (`reconciliation.opening`). Absent: the manifest records no opening check.
   */
  closedPrevious?: (request: ExportRequest, periodStart: string) => Promise<ClosedPrevious | null>;
  /** Where the set is published (the caller's, behind the close guard). */
  sink: Sink;
}

/**
 * The stages of the Lambda plan task: the inputs checked (rates the bucket must keep) and the
 * plan made; `runPipeline` returns the planned run for the task to store.
 */
export interface PlanStages {
  through: 'plan';
  inputs?: InputsStage;
  source: Pick<ServiceSource, 'kind' | 'client' | 'plan'>;
}

/**
 * The stages of a Lambda fetch-shard task: the stored plan (narrowed to the task's shard) and the
 * fetch. `keep` gets the fetched shards while their part files are still in the run's scratch
 * folder (the task uploads them), with whether the service's answers were demo data.
 */
export interface FetchStages {
  through: 'fetch';
  inputs?: InputsStage;
  source: Pick<ServiceSource, 'kind' | 'client' | 'fields' | 'plan' | 'fetch'>;
  keep: (fetched: readonly FetchedShard[], demo: boolean) => Promise<void>;
}

/** How a run goes, whoever runs it. */
export interface PipelineOptions {
  now: () => Date;
  /** Run id; default: {@link newRunId} of the run's start. */
  runId?: string;
  /**
   * Whether the PDF tax pack is written when the gains reports go into a workbook. Default true,
   * for every caller (the finish function ships the font files it needs).
   */
  taxPack?: boolean;
  generator?: { name: string; version: string };
  /**
   * Parent of the run's scratch folder (removed afterwards; the scratch folders that dead runs
   * left there are removed first). Default: the OS temp folder.
   */
  workDir?: string;
  /** Owner of the scratch folder, and judge of whether another run's owner is alive (default: this process). */
  owner?: ProcessOwner;
  /**
   * Stops the run (Ctrl-C, SIGTERM): no further request, the file being published is aborted,
   * what was staged and the scratch folder are removed, and the run rejects with a
   * `RunAbortedError`. A set already in place when it fires is kept.
   */
  signal?: AbortSignal;
  onProgress?: (progress: ExportProgress) => void;
  warn?: (message: string) => void;
  /** Signs the manifest (README: Proof). Absent: the set is not signed. */
  signer?: ManifestSigner;
}

/**
 * Runs one export through every stage: its inputs resolved, its records planned, fetched and
 * assembled into a snapshot (with the live reports rendered meanwhile) or read from a snapshot,
 * the other reports rendered from it, more description asked for, and all of it published as one
 * set, manifest last. A run that fails or is stopped leaves nothing at a final name, so no report
 * set looks finished unless it is.
 */
export function runPipeline(
  asked: ExportRequest,
  stages: PlanStages,
  options: PipelineOptions,
): Promise<PlannedRun & { demo: boolean }>;
export function runPipeline(
  asked: ExportRequest,
  stages: FetchStages,
  options: PipelineOptions,
): Promise<FetchedShard[]>;
export function runPipeline(
  asked: ExportRequest,
  stages: PipelineStages,
  options: PipelineOptions,
): Promise<ExportResult>;
export function runPipeline(
  asked: ExportRequest,
  stages: PipelineStages | PlanStages | FetchStages,
  options: PipelineOptions,
): Promise<ExportResult | PlannedRun | FetchedShard[]> {
  if ('through' in stages) return runFirstStages(asked, stages, options);
  return runAllStages(asked, stages, options);
}

/** Every stage, inputs to publish (see {@link runPipeline}). */
async function runAllStages(
  asked: ExportRequest,
  stages: PipelineStages,
  options: PipelineOptions,
): Promise<ExportResult> {
  const { signal } = options;
  if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
  // About what is asked of the service: a render from a snapshot asks nothing.
  if (stages.source.kind === 'service') for (const warning of requestWarnings(asked)) options.warn?.(warning);
  const { request, ...inputs } = await (stages.inputs ?? asAsked)(asked);
  const workDir = await openRunScratch(options);
  try {
    const records =
      stages.source.kind === 'service'
        ? await assembleFromService(
            request,
            stages.source,
            stages.publishing.assemble,
            inputs,
            workDir,
            options,
          )
        : fromSnapshot(stages.source, options.now);
    const runId = options.runId ?? newRunId(records.startedAt);
    const { source } = stages;
    const reconciled = await reconcileRun({
      request,
      runId,
      snapshotFile: records.render.snapshotFile,
      fields: source.kind === 'service' ? source.fields : source.header.fields,
      startedAt: records.startedAt,
      // A render from a snapshot asks no service.
      service: source.kind === 'snapshot' ? null : abortableIf(source.client, signal),
      ...(stages.closedPrevious ? { closedPrevious: stages.closedPrevious } : {}),
      ...(options.warn ? { warn: options.warn } : {}),
      // The balances the assembly's model tallied: the snapshot is not read again for them.
      tallied: records.render.model?.reconciliationBalances?.() ?? null,
    });
    const rendered = await stages.publishing.render({
      ...records.render,
      ...(reconciled === null || reconciled.quiet
        ? {}
        : {
            extraTables: reconciled.tables,
            attention: reconciliationAttention(reconciled.record),
            reconciliation: {
              status: reconciled.record.status,
              note: reconciled.record.note,
              ...(reconciled.record.periodEnd === undefined
                ? {}
                : { periodEnd: reconciled.record.periodEnd }),
              whatToDo: DIFFERENCE_ACTION,
            },
          }),
      runId,
      now: options.now,
      generator: options.generator ?? GENERATOR,
      workDir,
      ...(inputs.rates ? { rates: inputs.rates } : {}),
      ...(inputs.adjustments ? { adjustments: inputs.adjustments } : {}),
      ...(signal ? { signal } : {}),
      taxPack: options.taxPack !== false,
    });
    const prefix = runPrefix(request, runId);
    const previous = await previousSet(stages, request, rendered.description.period.start, options.warn);
    const set = reconciled === null ? rendered : withReconciliation(rendered, reconciled.record);
    const { manifest, files } = await stages.publishing.publish(await described(set, stages.describe), {
      sink: stages.sink,
      prefix,
      now: options.now,
      ...publishListeners(options),
      ...(previous === undefined ? {} : { previous }),
      ...(options.signer ? { signer: options.signer } : {}),
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

/**
 * The stages a Lambda task owns before the finish: inputs and plan (the plan task), or inputs,
 * plan and fetch (a fetch-shard task, its parts handed to `keep` before the scratch folder goes).
 */
async function runFirstStages(
  asked: ExportRequest,
  stages: PlanStages | FetchStages,
  options: PipelineOptions,
): Promise<(PlannedRun & { demo: boolean }) | FetchedShard[]> {
  const { signal } = options;
  if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
  for (const warning of requestWarnings(asked)) options.warn?.(warning);
  const { request } = await (stages.inputs ?? asAsked)(asked);
  const { source } = stages;
  const client = signal === undefined ? source.client : abortableClient(source.client, signal);
  try {
    const planned = await source.plan(request, client);
    options.onProgress?.({
      stage: 'planned',
      windows: planned.plan.windows.length,
      shards: planned.plan.shards.length,
    });
    if (stages.through === 'plan')
      return { ...planned, demo: planned.demo === true || servedDemoData(client) };
    const workDir = await openRunScratch(options);
    try {
      const { run } = (stages as FetchStages).source.fetch(planned.plan, {
        request,
        client,
        fields: (stages as FetchStages).source.fields,
        workDir,
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
      });
      const fetched = await run.done;
      await (stages as FetchStages).keep(fetched, servedDemoData(client));
      return fetched;
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  } catch (error) {
    if (signal?.aborted) throw new RunAbortedError({ cause: signal.reason });
    throw error;
  }
}

/** What the render stage gets of stages 1 to 3, and when the run started. */
interface Records {
  render: Omit<RenderInput, 'runId' | 'now' | 'generator' | 'workDir'>;
  startedAt: Date;
}

/** Stages 1 to 3 from the service: planned, fetched, assembled (the live reports rendered meanwhile). */
async function assembleFromService(
  request: ExportRequest,
  source: ServiceSource,
  assembleExport: PublishingStages['assemble'],
  inputs: Omit<ResolvedInputs, 'request'>,
  workDir: string,
  options: PipelineOptions,
): Promise<Records> {
  const { signal } = options;
  const client = signal === undefined ? source.client : abortableClient(source.client, signal);
  const { plan, startedAt, demo: plannedOnDemoData } = await source.plan(request, client);
  options.onProgress?.({ stage: 'planned', windows: plan.windows.length, shards: plan.shards.length });
  const joined = await source.join?.(request, plan, {
    workDir,
    startedAt,
    demo: source.demo === true || plannedOnDemoData === true || servedDemoData(client),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  if (joined) return { render: joined, startedAt };
  // Windows are assembled and rendered while later shards are still being fetched (or downloaded).
  const fetched = source.fetch(plan, {
    request,
    client,
    fields: source.fields,
    workDir,
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  // Demo data when any answer came from the simulator (see `pbs/demo-data.ts`): planning has had
  // answers already, however reached. Shards fetched elsewhere say it as they come, and all have
  // by the time the snapshot's header is written. A workbook's print header needs it at the
  // start: then every shard is in first (the rare case that would differ); a failed download
  // reaches the assembly through its shard instead.
  let demo = source.demo === true || plannedOnDemoData === true || servedDemoData(client);
  const shardsSay = fetched.demo;
  if (!demo && shardsSay !== undefined && request.formats.includes('xlsx')) {
    await fetched.run.done.catch(() => {});
    demo = shardsSay();
  }
  const assembled: AssembledExport = await assembleExport(request, plan, fetched.run, {
    client,
    fields: source.fields,
    apiBase: source.apiBase,
    startedAt,
    workDir,
    get demo() {
      return demo || shardsSay?.() === true;
    },
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    ...(options.warn ? { warn: options.warn } : {}),
    ...(inputs.rates ? { rates: inputs.rates } : {}),
    ...(inputs.adjustments ? { adjustments: inputs.adjustments } : {}),
  });
  return { render: assembled, startedAt };
}

/** Stages 1 to 3 done by an earlier run: its snapshot, rendered in one pass. */
function fromSnapshot(source: SnapshotSource, now: () => Date): Records {
  return {
    render: {
      snapshotFile: source.file,
      header: source.header,
      counts: { renderedFromSnapshot: 1 },
      ...(source.displayTimeZone === undefined ? {} : { displayTimeZone: source.displayTimeZone }),
    },
    startedAt: now(),
  };
}

/** The rendered set with the lines `describe` adds to its description. */
async function described(
  rendered: RenderedReports,
  describe: PipelineStages['describe'],
): Promise<RenderedReports> {
  const more = describe === undefined ? null : await describe();
  return more === null ? rendered : { ...rendered, description: { ...rendered.description, ...more } };
}

/**
 * The set this one continues, when the caller looks for it (`stages.previous`). A store that
 * cannot be listed (credentials that may write but not list) is warned about and the manifest then
 * records no chain (`previous` absent), never a chain that begins here by mistake.
 */
async function previousSet(
  stages: PipelineStages,
  request: ExportRequest,
  periodStart: string,
  warn: PipelineOptions['warn'],
): Promise<PreviousSet | null | undefined> {
  if (stages.previous === undefined) return undefined;
  try {
    return await stages.previous(request, periodStart);
  } catch (error) {
    warn?.(
      `could not look for the set this one continues, so its manifest records no chain: ${messageOf(error)}`,
    );
    return undefined;
  }
}

/** `client`, stopped by `signal` when there is one. */
function abortableIf(client: ExportServiceClient, signal: AbortSignal | undefined): ExportServiceClient {
  return signal === undefined ? client : abortableClient(client, signal);
}

/** The request as asked, with no rates or adjustments. */
const asAsked: InputsStage = async (request) => ({ request });

/** Stage 0 of a caller that read the inputs itself (the CLI: from files). */
export function givenInputs(inputs: { rates?: RateTable; adjustments?: LoadedAdjustments }): InputsStage {
  return async (request) => ({
    request,
    ...(inputs.rates ? { rates: inputs.rates } : {}),
    ...(inputs.adjustments ? { adjustments: inputs.adjustments } : {}),
  });
}

/** Stage 1 planned now: the export starts now, planned from the portfolio's date-bounds. */
export function planNow(now: () => Date): PlanStage {
  return async (request, client) => {
    const startedAt = now();
    return { startedAt, plan: await planExport(request, client) };
  };
}

/** Stage 1 planned before (by the Lambda plan task): its plan as it was stored. */
export function plannedBefore(planned: PlannedRun): PlanStage {
  return async () => planned;
}

/** How many requests and whole-shard attempts a fetch makes. */
export interface FetchSettings {
  /** Requests in flight at once over the whole fetch (and shards open at once). Default 4. */
  concurrency?: number;
  /** Whole-shard attempts on an incomplete fetch. Default 3. */
  shardAttempts?: number;
  /**
   * Bytes of part lines `fetchNow` keeps in memory before spilling parts to their files (see
   * `snapshot/part-store.ts`). Default `partBudgetFor(request.formats)`: 1/32 of the V8 heap limit,
   * at most `DEFAULT_PART_BUDGET_BYTES` (16 MiB), less what a workbook's worker takes when the run
   * writes XLSX; 0 writes every part to its file.
   */
  partMemoryBytes?: number;
}

/** How {@link fetchNow} fetches: the settings, and whether the part files are kept compressed. */
export interface FetchNowSettings extends FetchSettings {
  /**
   * True keeps the part files gzip-compressed: parts that travel (a fetch-shard task uploads
   * its part). Default false: parts read back in this process are not deflated and inflated.
   */
  compressParts?: boolean;
}

/**
 * The fetch stage's options for the service's `fields`: what every fetch of shards uses, in this
 * process (`fetchNow`) or one shard per Lambda task.
 */
export function fetchOptions(
  fields: TransactionFieldMap,
  workDir: string,
  settings: FetchSettings = {},
): FetchOptions {
  return {
    workDir,
    concurrency: settings.concurrency ?? EXPORT_DEFAULTS.concurrency,
    shardAttempts: settings.shardAttempts ?? EXPORT_DEFAULTS.shardAttempts,
    fields,
    protocolField: fields.protocol,
  };
}

/** Stage 2 fetched now: every shard of the plan paged through the service in this process. */
export function fetchNow(settings: FetchNowSettings = {}): FetchStage {
  return (plan, { request, client, fields, workDir, onProgress }) => ({
    run: startFetch(client, plan.shards, request.filters, {
      ...fetchOptions(fields, workDir, settings),
      // Parts read back here are removed with the scratch folder: no deflate and inflate, and
      // held in memory while they fit the budget (compressed parts are written to files).
      compressParts: settings.compressParts === true,
      ...(settings.compressParts === true
        ? {}
        : { partStore: createPartStore(settings.partMemoryBytes ?? partBudgetFor(request.formats)) }),
      onPage: (page) => onProgress?.({ stage: 'page', ...page }),
      onShardDone: (done) => onProgress?.({ stage: 'shard', shard: done.shard.id, rows: done.rows }),
    }),
  });
}

/** What `publishReports` tells a run's caller: progress, cleanup failures as warnings, the stop signal. */
export function publishListeners(
  deps: Pick<PipelineOptions, 'onProgress' | 'warn' | 'signal'>,
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
export function openRunScratch(deps: Pick<PipelineOptions, 'workDir' | 'owner' | 'warn'>): Promise<string> {
  return openScratch(deps.workDir ?? tmpdir(), deps.owner ?? currentProcessOwner(), (path, error) =>
    deps.warn?.(`could not remove the scratch folder of a stopped run (${path}): ${messageOf(error)}`),
  );
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
