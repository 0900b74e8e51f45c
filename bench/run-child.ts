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
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import pLimit from 'p-limit';
import {
  createGainsFeed,
  createNormalizer,
  type ExportDeps,
  parseExportRequest,
  periodRange,
  planExport,
  readSnapshotRecords,
  runExport,
  shardQuery,
} from '../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../lib/pbs/index.ts';
import { createServiceClient } from '../lib/service-client.ts';
import type { SimulatedProfile } from '../lib/simulator/types.ts';
import { createLocalSink } from '../lib/storage/index.ts';

export interface BenchTask {
  mode: 'export-csv' | 'export-xlsx' | 'raw-csv' | 'raw-xlsx' | 'raw-fetch' | 'latency' | 'gains';
  url: string;
  profile: SimulatedProfile;
  rows: number;
  /** From/to days (inclusive) of the export. */
  period: { from: string; to: string };
  concurrency: number;
  pageSize: number;
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

async function exportRun(format: 'csv' | 'xlsx') {
  const started = performance.now();
  let fetchStarted = 0;
  let fetchEnded = 0;
  let pages = 0;
  const result = await runExport(
    parseExportRequest({
      profile: 'demo',
      period: task.period,
      reports: ['transactions'],
      formats: [format],
    }),
    {
      ...exportDeps(),
      onProgress: (p) => {
        if (p.stage === 'planned') fetchStarted = performance.now();
        if (p.stage === 'page') pages += 1;
        if (p.stage === 'shard') fetchEnded = performance.now();
      },
    },
  );
  return {
    rows: result.manifest.counts.transactions ?? 0,
    ms: performance.now() - started,
    fetchMs: fetchEnded - fetchStarted,
    tailMs: performance.now() - fetchEnded,
    pages,
    shards: result.manifest.shards.length,
  };
}

/**
 * A gains export of the last month of the data, which feeds the whole history to the engine; then
 * the engine alone over the published snapshot, timing only the feed's calls (the engine's work).
 */
async function gainsRun() {
  const started = performance.now();
  const request = parseExportRequest({
    profile: 'demo',
    period: task.period.to.slice(0, 7),
    reports: ['gains'],
    formats: ['csv'],
    // One window is held twice (the assembler's and the engine's batch): weeks keep a dense
    // history (1M transactions over three years) inside the benchmark's 128 MB heap.
    window: 'week',
  });
  const result = await runExport(request, exportDeps());
  const ms = performance.now() - started;
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
async function rawFetch() {
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, client);
  const started = performance.now();
  let rows = 0;
  const limit = pLimit(task.concurrency);
  await Promise.all(
    plan.shards.map((shard) =>
      limit(async () => {
        for await (const page of client.transactionPages(shardQuery(shard, request.filters))) {
          rows += page.items.length;
        }
      }),
    ),
  );
  return { rows, ms: performance.now() - started };
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

const runners = {
  'export-csv': () => exportRun('csv'),
  'export-xlsx': () => exportRun('xlsx'),
  'raw-csv': rawCsv,
  'raw-xlsx': rawXlsx,
  'raw-fetch': rawFetch,
  latency: () => exportRun('csv'),
  gains: gainsRun,
};
try {
  const figures = await runners[task.mode]();
  const peakRssMb = process.resourceUsage().maxRSS / 1024;
  process.send?.({ ...figures, peakRssMb });
} finally {
  await rm(workDir, { recursive: true, force: true });
}
process.disconnect?.();
