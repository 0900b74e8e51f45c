/**
 * Benchmark worker: performs one measured task in a fresh process, so its peak RSS is its own,
 * and reports `{ rows, ms, peakRssMb, ... }` over IPC.
 */
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { stringify } from 'csv-stringify';
import pLimit from 'p-limit';
import {
  createGainsFeed,
  createNormalizer,
  EXPORT_DEFAULTS,
  type ExportDeps,
  parseExportRequest,
  periodRange,
  planExport,
  readSnapshotRecords,
  runExport,
  shardQuery,
  startFetch,
} from '../lib/export/index.ts';
import { addConditionalWrites, createJobStore, type JobRecord, jobIdFor } from '../lib/jobs/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../lib/pbs/index.ts';
import { createServiceClient } from '../lib/service-client.ts';
import type { SimulatedProfile } from '../lib/simulator/index.ts';
import { createLocalSink, createS3Client } from '../lib/storage/index.ts';
import { minimalExport } from './minimal-export.ts';
import { minimalFetch } from './minimal-fetch.ts';
import { plainExport } from './plain-export.ts';

/** What an export of the benchmark asks for: one report in one format, or the gains reports. */
export type ExportKind = 'csv' | 'xlsx' | 'gains';

export interface BenchTask {
  mode:
    | 'export-csv'
    | 'export-csv-spill'
    | 'export-xlsx'
    | 'export-xlsx-spill'
    | 'raw-csv'
    | 'raw-xlsx'
    | 'raw-fetch'
    | 'minimal-fetch'
    | 'minimal-http'
    | 'minimal-export'
    | 'plain-export'
    | 'latency'
    | 'latency-fetch'
    | 'gains'
    | 'rate-limited'
    | 'rate-limited-fetch'
    | 'lambda-fetch'
    | 'lambda-finish'
    | 'minimal-lambda-fetch'
    | 'minimal-lambda-finish';
  url: string;
  profile: SimulatedProfile;
  rows: number;
  /** From/to days (inclusive) of the export. */
  period: { from: string; to: string };
  concurrency: number;
  pageSize: number;
  /** Lambda path: the export asked for, local S3, and (finish) the job the fetch prepared. */
  kind?: ExportKind;
  s3?: { endpoint: string; bucket: string };
  jobId?: string;
  /** Minimal Lambda path's finish: how many shard objects the fetch stored. */
  shardCount?: number;
}

/** What a task reports to the benchmark over IPC: its runner's figures, then its process's own. */
export interface Figures {
  rows: number;
  ms: number;
  peakRssMb: number;
  fetchMs?: number;
  /** From the last shard fetched to the manifest: the work the fetch could not hide. */
  tailMs?: number;
  pages?: number;
  shards?: number;
  /** Latency bench: each listing's pages (an empty last one included) and items, for the schedule's floor. */
  listings?: { pages: number; rows: number }[];
  engineMs?: number;
  /** Gains: CPU of the export alone, every thread (the task goes on to time the engine alone). */
  exportCpuMs?: number;
  lotsMatched?: number;
  exportLotsMatched?: number;
  /** CPU time of the whole child process, every thread. */
  cpuMs: number;
  /**
   * CPU time of the task itself, every thread (the process's start and its imports left out):
   * the figure the benchmark gives per 100 000 transactions.
   */
  taskCpuMs: number;
  /** What the peak RSS was made of. */
  atPeakRss?: MemoryAtPeak;
  requests?: number;
  rateLimited?: number;
  planMs?: number;
  /** Lambda path: the fetch-shard tasks' own times, summed (what Lambda bills). */
  shardMs?: number;
  jobId?: string;
  /** Minimal export: CPU ms of the main thread per step (`bench/minimal-export.ts`). */
  steps?: Record<string, number>;
}

const task = JSON.parse(process.argv[2] ?? '{}') as BenchTask;
const workDir = await mkdtemp(join(tmpdir(), 'pbs-bench-'));
const client = createServiceClient(
  {
    baseUrl: task.url,
    requestsPerSecond: 100_000,
    burst: 1_000,
    shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: task.pageSize } },
  },
  { apiKey: task.profile.apiKey, apiSecret: task.profile.apiSecret },
);

/** Deps of `runExport` over the benchmark's simulator and a scratch folder. */
const exportDeps = (): ExportDeps => ({
  client,
  sink: createLocalSink(workDir),
  fields: client.shape.fields,
  apiBase: task.url,
  now: () => new Date(),
  concurrency: task.concurrency,
  workDir,
});

/** The request of an export of `kind` over the benchmark's period (see {@link gainsRun} for gains). */
function requestOf(kind: ExportKind) {
  if (kind === 'gains') {
    return parseExportRequest({
      profile: 'demo',
      period: task.period.to.slice(0, 7),
      reports: ['gains'],
      formats: ['csv'],
      // One window is held twice (the assembler's and the engine's batch): weeks keep a dense
      // history (1M transactions over three years) inside the benchmark's 128 MB heap.
      window: 'week',
    });
  }
  return parseExportRequest({
    profile: 'demo',
    period: task.period,
    reports: ['transactions'],
    formats: [kind],
  });
}

async function exportRun(format: 'csv' | 'xlsx', deps: ExportDeps = exportDeps()) {
  const started = performance.now();
  let fetchStarted = 0;
  let fetchEnded = 0;
  let pages = 0;
  const listings = listingCounter();
  const result = await runExport(requestOf(format), {
    ...deps,
    onProgress: (p) => {
      if (p.stage === 'planned') fetchStarted = performance.now();
      if (p.stage === 'page') {
        pages += 1;
        listings.page(p);
      }
      if (p.stage === 'shard') fetchEnded = performance.now();
    },
  });
  return {
    rows: result.manifest.counts.transactions ?? 0,
    ms: performance.now() - started,
    fetchMs: fetchEnded - fetchStarted,
    tailMs: performance.now() - fetchEnded,
    pages,
    shards: result.manifest.shards.length,
    listings: listings.list(),
  };
}

/** Counts each shard's pages and items as the fetch reports them (one listing a shard here). */
function listingCounter() {
  const byShard = new Map<string, { pages: number; rows: number }>();
  return {
    page(progress: { shard: string; rows: number }) {
      const listing = byShard.get(progress.shard) ?? { pages: 0, rows: 0 };
      listing.pages += 1;
      listing.rows += progress.rows;
      byShard.set(progress.shard, listing);
    },
    list: () => [...byShard.values()],
  };
}

/**
 * A gains export of the last month of the data, which feeds the whole history to the engine; then
 * the engine alone over the published snapshot, timing only the feed's calls (the engine's work).
 */
async function gainsRun() {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const request = requestOf('gains');
  const result = await runExport(request, exportDeps());
  const ms = performance.now() - started;
  const exportCpu = process.cpuUsage(cpuBefore);
  const snapshot = result.manifest.files.find((file) => file.name.endsWith('_snapshot.ndjson.gz'));
  if (snapshot === undefined) throw new Error('the gains export published no snapshot');
  const range = periodRange(request.period, request.timeZone);
  const feed = createGainsFeed(request, { start: range.start.toJSDate(), end: range.end.toJSDate() });
  const normalizer = createNormalizer({ fields: client.shape.fields, timeZone: request.timeZone });
  let engineMs = 0;
  for await (const record of readSnapshotRecords(join(workDir, snapshot.key))) {
    if (record.kind !== 'transaction') continue;
    const tx = normalizer.canonical(record.data);
    const at = performance.now();
    feed.add(record.shard, tx);
    engineMs += performance.now() - at;
  }
  const at = performance.now();
  const counts = feed.counts();
  engineMs += performance.now() - at;
  return {
    rows: counts.historyTransactions ?? 0,
    ms,
    engineMs,
    lotsMatched: counts.gainsLotsMatched ?? 0,
    exportLotsMatched: result.manifest.counts.gainsLotsMatched ?? 0,
    exportCpuMs: (exportCpu.user + exportCpu.system) / 1000,
  };
}

/** The first page of the portfolio, normalised: the rows the raw baselines write, cycled. */
async function sampleRows() {
  const normalizer = createNormalizer({ fields: client.shape.fields, timeZone: 'UTC' });
  const sample = [];
  for await (const page of client.transactionPages({})) {
    sample.push(...page.items);
    break;
  }
  for (const raw of sample) normalizer.observe(raw);
  return { spec: normalizer.transactionsSpec(), rows: sample.map((raw) => normalizer.transactionRow(raw)) };
}

/**
 * The service alone: every shard of the export's plan paged through the client, with the same
 * concurrency, and nothing done with the items. No export of the same data can be faster.
 */
async function rawFetch(source = client, concurrency = task.concurrency) {
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, source);
  const started = performance.now();
  let rows = 0;
  let pages = 0;
  const limit = pLimit(concurrency);
  await Promise.all(
    plan.shards.map((shard) =>
      limit(async () => {
        for await (const page of source.transactionPages(shardQuery(shard, request.filters))) {
          rows += page.items.length;
          pages += 1;
        }
      }),
    ),
  );
  return { rows, ms: performance.now() - started, pages };
}

/**
 * The fetch stage alone, as an export runs it (shared request limiter, pages requested ahead,
 * part files written) but with nothing assembled or rendered meanwhile: how well the stage
 * overlaps waiting, apart from the export's other work on the same thread.
 */
async function fetchStageAlone() {
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, client);
  let rows = 0;
  let pages = 0;
  const listings = listingCounter();
  const started = performance.now();
  await startFetch(client, plan.shards, request.filters, {
    workDir,
    concurrency: task.concurrency,
    shardAttempts: EXPORT_DEFAULTS.shardAttempts,
    fields: client.shape.fields,
    compressParts: false,
    onPage: (page) => {
      rows += page.rows;
      pages += 1;
      listings.page(page);
    },
  }).done;
  const ms = performance.now() - started;
  return { rows, ms, fetchMs: ms, pages, listings: listings.list() };
}

async function rawCsv() {
  const { spec, rows } = await sampleRows();
  const started = performance.now();
  async function* records() {
    yield spec.columns.map((c) => c.key);
    for (let i = 0; i < task.rows; i += 1) yield rows[i % rows.length];
  }
  await pipeline(
    Readable.from(records()),
    stringify({ bom: true }),
    createWriteStream(join(workDir, 'raw.csv')),
  );
  return { rows: task.rows, ms: performance.now() - started };
}

async function rawXlsx() {
  const { spec, rows } = await sampleRows();
  const typed = rows.map((row) =>
    row.map((cell, i) => {
      const kind = spec.columns[i]?.kind;
      if (cell === null) return null;
      if (kind === 'decimal' || kind === 'integer') return Number(cell);
      if (kind === 'datetime') return new Date(cell);
      return cell;
    }),
  );
  // Loaded by this mode only (before the clock starts): the export modes' main thread does not
  // load exceljs, their worker does.
  const { default: ExcelJS } = await import('exceljs');
  const started = performance.now();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({
    filename: join(workDir, 'raw.xlsx'),
    useSharedStrings: false,
    useStyles: true,
  });
  const sheet = workbook.addWorksheet('Transactions');
  sheet.addRow(spec.columns.map((c) => c.header)).commit();
  for (let i = 0; i < task.rows; i += 1) sheet.addRow(typed[i % typed.length] as unknown[]).commit();
  sheet.commit();
  await workbook.commit();
  return { rows: task.rows, ms: performance.now() - started };
}

/**
 * An export at the client's defaults (rate, burst, concurrency) against a simulator that enforces
 * the service's 20 requests/s per key; pages of 1 000. Counts the requests and the 429s.
 */
async function rateLimitedRun() {
  const limited = defaultClient();
  const { concurrency: _default, ...deps } = exportDeps();
  const figures = await exportRun('csv', { ...deps, client: limited, fields: limited.shape.fields });
  return { ...figures, requests: limited.stats.requestsSent, rateLimited: limited.stats.rateLimited };
}

/** The raw fetch (see {@link rawFetch}) at the client's defaults, as many shards at once as an export would. */
async function rateLimitedFetch() {
  const limited = defaultClient();
  const figures = await rawFetch(limited, EXPORT_DEFAULTS.concurrency);
  return { ...figures, rateLimited: limited.stats.rateLimited };
}

/** A client at its defaults (rate, burst), reading pages of `task.pageSize`. */
function defaultClient() {
  return createServiceClient(
    {
      baseUrl: task.url,
      shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: task.pageSize } },
    },
    { apiKey: task.profile.apiKey, apiSecret: task.profile.apiSecret },
  );
}

/**
 * The export state machine's workers over local S3 (s3rver in its own process) and the simulator.
 * The workflow is imported here, for the Lambda modes only, so that the other modes' processes do
 * not evaluate it (the AWS SDK itself loads only when used: lib/aws-sdk.ts). `await` on the client:
 * an older checkout's `createS3Client` (`--against`) returns it at once.
 */
async function lambdaWorkers() {
  if (task.s3 === undefined) throw new Error('the Lambda path needs local S3');
  const { createWorkers } = await import('../lib/workflow/workers.ts');
  const s3 = await createS3Client({
    region: 'us-east-1',
    endpoint: task.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  // The job store's conditional writes, which s3rver ignores (as `npm run serve` does).
  addConditionalWrites(s3);
  const jobs = createJobStore({ client: s3, bucket: task.s3.bucket });
  const workers = createWorkers({
    jobs,
    s3,
    bucket: task.s3.bucket,
    services: async () => ({ client, fields: client.shape.fields, apiBase: task.url }),
    now: () => new Date(),
    workDir,
  });
  return { jobs, workers };
}

/**
 * The Lambda path's first two steps, as the state machine runs them: the plan task, then one
 * fetch-shard task per shard, `concurrency` at a time (the Map). Each task's own time is summed,
 * as Lambda bills each invocation. The finish task runs in a process of its own (its peak RSS).
 */
async function lambdaFetch() {
  const { jobs, workers } = await lambdaWorkers();
  const request = requestOf(task.kind ?? 'csv');
  const key = `bench-${process.pid}-${Date.now()}`;
  const jobId = jobIdFor(request.profile, key);
  const at = new Date().toISOString();
  const job: JobRecord = {
    jobId,
    profile: request.profile,
    request,
    state: 'queued',
    source: 'api',
    idempotencyKey: key,
    createdAt: at,
    updatedAt: at,
  };
  await jobs.create(job);
  const requestsBefore = client.stats.requestsSent;
  const started = performance.now();
  const planned = await workers.plan({ jobId });
  const planMs = performance.now() - started;
  let shardMs = 0;
  let rows = 0;
  const limit = pLimit(task.concurrency);
  await Promise.all(
    planned.shards.map((shard) =>
      limit(async () => {
        const shardStarted = performance.now();
        const output = await workers.fetchShard({ jobId, shard });
        shardMs += performance.now() - shardStarted;
        rows += output.rows;
      }),
    ),
  );
  const requests = client.stats.requestsSent - requestsBefore;
  return {
    rows,
    ms: performance.now() - started,
    planMs,
    shardMs,
    requests,
    jobId,
  };
}

/** The Lambda path's finish task alone, over the parts `lambdaFetch` stored. */
async function lambdaFinish() {
  if (task.jobId === undefined) throw new Error('the finish task needs the job of a Lambda fetch');
  const { workers } = await lambdaWorkers();
  const started = performance.now();
  const output = await workers.finish({ jobId: task.jobId });
  const ms = performance.now() - started;
  if (output.state !== 'succeeded') throw new Error(`the finish task ended ${output.state}`);
  return { rows: task.rows, ms };
}

/** Where the memory was when RSS was highest, in MB: V8's heap spaces, and memory outside the heap. */
export interface MemoryAtPeak {
  rss: number;
  /** The young generation (V8 reserves its semi-spaces whole). */
  newSpace: number;
  oldSpace: number;
  /** Objects over V8's regular size (long strings, big arrays), young and old. */
  largeObjects: number;
  /** Code, maps and read-only space. */
  otherHeap: number;
  /** Buffers and other memory V8 only points to. */
  external: number;
}

/**
 * Samples the process's memory every 50 ms and keeps the sample with the highest RSS: what the
 * peak RSS was made of. Sampling costs ~20 µs a time.
 */
function watchPeakMemory(): { stop(): MemoryAtPeak } {
  const mb = (bytes: number) => Math.round(bytes / 1_048_576);
  let best: MemoryAtPeak = { rss: 0, newSpace: 0, oldSpace: 0, largeObjects: 0, otherHeap: 0, external: 0 };
  const sample = () => {
    const usage = process.memoryUsage();
    if (mb(usage.rss) <= best.rss) return;
    const spaces = Object.fromEntries(getHeapSpaceStatistics().map((s) => [s.space_name, s.space_size]));
    const newSpace = spaces.new_space ?? 0;
    const oldSpace = spaces.old_space ?? 0;
    const largeObjects = (spaces.large_object_space ?? 0) + (spaces.new_large_object_space ?? 0);
    best = {
      rss: mb(usage.rss),
      newSpace: mb(newSpace),
      oldSpace: mb(oldSpace),
      largeObjects: mb(largeObjects),
      otherHeap: mb(usage.heapTotal - newSpace - oldSpace - largeObjects),
      external: mb(usage.external),
    };
  };
  const timer = setInterval(sample, 50);
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      sample();
      return best;
    },
  };
}

/** A runner per mode (a mode without one fails the typecheck); the child adds its process's figures. */
const runners = {
  'export-csv': () => exportRun('csv'),
  // Every part spilled to its file (a part memory budget of 0): the export past its budget.
  'export-csv-spill': () => exportRun('csv', { ...exportDeps(), partMemoryBytes: 0 }),
  'export-xlsx': () => exportRun('xlsx'),
  'export-xlsx-spill': () => exportRun('xlsx', { ...exportDeps(), partMemoryBytes: 0 }),
  'raw-csv': rawCsv,
  'raw-xlsx': rawXlsx,
  latency: () => exportRun('csv'),
  'latency-fetch': fetchStageAlone,
  gains: gainsRun,
  'raw-fetch': () => rawFetch(),
  'minimal-fetch': () => minimalFetch(task, client, task.profile),
  'minimal-http': () => minimalFetch(task, client, task.profile, 'http'),
  'minimal-export': () => minimalExport(task, client, task.profile, workDir),
  'plain-export': () => plainExport(task, client, task.profile, workDir),
  'rate-limited': rateLimitedRun,
  'rate-limited-fetch': rateLimitedFetch,
  'lambda-fetch': lambdaFetch,
  'lambda-finish': lambdaFinish,
  // Imported by these modes only (it loads the AWS SDK); their clock starts after it, as the Lambda modes' do.
  'minimal-lambda-fetch': async () =>
    (await import('./minimal-lambda.ts')).minimalLambdaFetch(task, client, task.profile),
  'minimal-lambda-finish': async () => (await import('./minimal-lambda.ts')).minimalLambdaFinish(task),
} satisfies Record<
  BenchTask['mode'],
  () => Promise<Omit<Figures, 'peakRssMb' | 'cpuMs' | 'taskCpuMs' | 'atPeakRss'>>
>;
const peak = watchPeakMemory();
try {
  const cpuBefore = process.cpuUsage();
  const figures = await runners[task.mode]();
  const cpuOfTask = process.cpuUsage(cpuBefore);
  const taskCpuMs = (cpuOfTask.user + cpuOfTask.system) / 1000;
  const atPeakRss = peak.stop();
  const usage = process.resourceUsage();
  const peakRssMb = usage.maxRSS / 1024;
  // CPU time of the whole process (all threads): steadier than wall time on a shared machine.
  const cpuMs = (usage.userCPUTime + usage.systemCPUTime) / 1000;
  process.send?.({ ...figures, peakRssMb, cpuMs, taskCpuMs, atPeakRss });
} finally {
  await rm(workDir, { recursive: true, force: true });
}
if (process.connected) process.disconnect();
