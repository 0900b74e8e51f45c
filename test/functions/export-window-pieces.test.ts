/**
 * Shards do their window's work (docs/pipeline.md, "Window pieces"): for a CSV or XLSX run of the
 * transactions and movements reports, each fetch-shard task stores its window's piece (its gzip
 * member of the snapshot, its CSV rows, its rows for the workbook, its totals) and the finish
 * joins them, without the parts, into the very bytes the CLI's `runExport` writes for the same
 * request against the same service (the workbook: every part of it, the run id named instead).
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { parse } from 'csv-parse/sync';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { KEYS } from '../../lib/jobs/index.ts';
import { createFetchShardHandler, createFinishHandler, createPlanHandler } from '../../lib/lambda/index.ts';
import { profilesWithCounts } from '../../lib/simulator/index.ts';
import { createLocalSink } from '../../lib/storage/index.ts';
import { startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

const REQUEST = {
  profile: 'demo',
  period: '2025',
  reports: ['transactions', 'movements'],
  formats: ['csv'] as string[],
};

let h: WorkflowHarness;
let outDir: string;
beforeAll(async () => {
  h = await startWorkflowHarness();
  outDir = await mkdtemp(join(tmpdir(), 'pbs-pieces-'));
});
afterAll(async () => {
  await h.close();
  await rm(outDir, { recursive: true, force: true });
});

/** Plan and every shard, as the state machine runs them; the plan's shard count. */
async function planAndFetch(jobId: string, at: WorkflowHarness = h): Promise<number> {
  const context = at.workerContext();
  const plan = await createPlanHandler(context)({ jobId });
  const fetchShard = createFetchShardHandler(context);
  for (const shard of plan.shards) await fetchShard({ jobId, shard });
  return plan.shards.length;
}

async function removeAll(keys: readonly string[], at: WorkflowHarness = h): Promise<void> {
  for (const key of keys) await at.client.send(new DeleteObjectCommand({ Bucket: h.bucket, Key: key }));
}

/** A published run: its files' bytes by name (the manifest left out: it names the run), and its id. */
interface Run {
  files: Map<string, Buffer>;
  runId: string;
  /** The manifest's counts (transactions, duplicates dropped, …). */
  counts: unknown;
}

/** The counts of a manifest's bytes. */
const countsOf = (manifest: Buffer) => (JSON.parse(manifest.toString('utf8')) as { counts: unknown }).counts;

/** The files of `run` but README.txt, which prints the run id. */
const data = (run: Run) => new Map([...run.files].filter(([name]) => name !== 'README.txt'));

/** The finish, then the published files. */
async function finishRun(jobId: string, at: WorkflowHarness = h): Promise<Run> {
  await createFinishHandler(at.workerContext())({ jobId });
  const job = await at.jobs.require(jobId);
  expect(job.state).toBe('succeeded');
  const files = new Map<string, Buffer>();
  let counts: unknown;
  for (const file of job.result?.files ?? []) {
    const answer = await at.client.send(new GetObjectCommand({ Bucket: at.bucket, Key: file.key }));
    const bytes = Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
    if (file.name === 'manifest.json') counts = countsOf(bytes);
    else files.set(file.name, bytes);
  }
  return { files, runId: String(job.result?.runId), counts };
}

const finishAndRead = async (jobId: string) => data(await finishRun(jobId));

/** The same request through the CLI's `runExport`, to a folder: its files. */
async function cliRun(request: typeof REQUEST, at: WorkflowHarness = h): Promise<Run> {
  const service = await at.workerContext().services(request.profile);
  const out = await mkdtemp(join(outDir, 'cli-'));
  await runExport(parseExportRequest(request), {
    client: service.client,
    fields: service.fields,
    apiBase: service.apiBase,
    sink: createLocalSink(out),
    now: at.now,
  });
  const runs = join(out, 'reports', request.profile, '2025');
  const runId = String((await readdir(runs))[0]);
  const files = new Map<string, Buffer>();
  let counts: unknown;
  for (const name of await readdir(join(runs, runId))) {
    const bytes = await readFile(join(runs, runId, name));
    if (name === 'manifest.json') counts = countsOf(bytes);
    else files.set(name, bytes);
  }
  return { files, runId, counts };
}

const viaCli = async (request: typeof REQUEST = REQUEST) => data(await cliRun(request));

/**
 * Every part of `run`'s workbook as text, the run id and README.txt's SHA-256 and size (which the
 * About sheet lists, and which follow the run id) named instead.
 */
async function workbookParts(run: Run): Promise<Map<string, string>> {
  const name = [...run.files.keys()].find((file) => file.endsWith('.xlsx')) as string;
  const readme = run.files.get('README.txt') as Buffer;
  const sha256 = createHash('sha256').update(readme).digest('hex');
  const zip = await JSZip.loadAsync(run.files.get(name) as Buffer);
  const parts = new Map<string, string>();
  for (const part of Object.keys(zip.files).sort()) {
    const text = (await zip.file(part)?.async('string')) ?? '';
    parts.set(
      part,
      text
        .replaceAll(run.runId, '<run id>')
        .replaceAll(`${sha256}, ${readme.length} bytes`, '<README.txt>')
        .replaceAll(sha256, '<README.txt>'),
    );
  }
  return parts;
}

describe('window pieces: the finish joins what the shards assembled and rendered', () => {
  let joined: Map<string, Buffer>;
  let assembled: Map<string, Buffer>;
  let cli: Map<string, Buffer>;
  let partsStored: string[];
  /** The manifests' counts: joined, assembled, CLI. */
  let counts: unknown[];
  beforeAll(async () => {
    // Joined: every shard stored its window's piece, and no part.
    const first = await h.queueJob(REQUEST);
    const shards = await planAndFetch(first.jobId);
    expect(await h.keysUnder(KEYS.piecesPrefix(first.jobId))).toHaveLength(shards);
    partsStored = await h.keysUnder(KEYS.partsPrefix(first.jobId));
    const joinedRun = await finishRun(first.jobId);
    joined = data(joinedRun);
    // Assembled: as when one window makes no piece (its task stores its part instead), the
    // finish assembles the run: that window from its part, every other from its piece's member.
    const second = await h.queueJob(REQUEST);
    expect(await planAndFetch(second.jobId)).toBe(shards);
    const other = await h.queueJob({ ...REQUEST, reports: [...REQUEST.reports, 'summary'] });
    expect(await planAndFetch(other.jobId)).toBe(shards);
    await removeAll([KEYS.piece(second.jobId, 0)]);
    await h.client.send(
      new CopyObjectCommand({
        Bucket: h.bucket,
        CopySource: `${h.bucket}/${KEYS.part(other.jobId, 0)}`,
        Key: KEYS.part(second.jobId, 0),
      }),
    );
    const assembledRun = await finishRun(second.jobId);
    assembled = data(assembledRun);
    const cliRunOf = await cliRun(REQUEST);
    cli = data(cliRunOf);
    counts = [joinedRun.counts, assembledRun.counts, cliRunOf.counts];
  }, 120_000);

  it('counts what the windows dropped as the CLI does, joined or read back as parts', () => {
    const [ofJoined, ofAssembled, ofCli] = counts;
    expect(ofJoined).toEqual(ofCli);
    expect(ofAssembled).toEqual(ofCli);
  });

  it('stores each window as its piece alone: no part beside it', () => {
    expect(partsStored).toEqual([]);
  });

  it('publishes the CLI files from the pieces alone, byte for byte', () => {
    expect([...joined.keys()].sort()).toEqual([...cli.keys()].sort());
    for (const [name, bytes] of cli) expect(joined.get(name)?.equals(bytes), name).toBe(true);
  });

  it('publishes the same bytes when the finish assembles a part and the other pieces read back as parts', () => {
    expect([...assembled.keys()].sort()).toEqual([...joined.keys()].sort());
    for (const [name, bytes] of assembled) expect(joined.get(name)?.equals(bytes), name).toBe(true);
  });

  it('joins every window: the rows of the whole year, one header, a snapshot csv-parse and gunzip read', () => {
    const csv = joined.get('demo_2025_transactions.csv') as Buffer;
    const rows = parse(csv, { bom: true, columns: true }) as Record<string, string>[];
    const snapshot = gunzipSync(joined.get('demo_2025_snapshot.ndjson.gz') as Buffer)
      .toString('utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as { kind: string; data?: { id: string } });
    const transactions = snapshot.filter((record) => record.kind === 'transaction');
    expect(rows.length).toBeGreaterThan(100);
    expect(rows.map((row) => row.id)).toEqual(transactions.map((record) => record.data?.id));
    // Every month of the year is in: the first and last rows a year apart.
    const months = new Set(rows.map((row) => String(row.date_local).slice(0, 7)));
    expect(months.size).toBe(12);
  });
});

describe('window pieces whose columns differ', () => {
  it('are not joined: the reports are rendered from the joined snapshot, and the files are the CLI files', async () => {
    // acme's transactions bring a field in some months only: each month's CSV header is its own.
    const request = { ...REQUEST, profile: 'acme' };
    const job = await h.queueJob(request);
    const shards = await planAndFetch(job.jobId);
    expect(await h.keysUnder(KEYS.piecesPrefix(job.jobId))).toHaveLength(shards);
    // No part to fall back on: the pieces are all there is.
    expect(await h.keysUnder(KEYS.partsPrefix(job.jobId))).toEqual([]);
    const files = await finishAndRead(job.jobId);
    const cli = await viaCli(request);
    expect([...files.keys()].sort()).toEqual([...cli.keys()].sort());
    for (const [name, bytes] of cli) expect(files.get(name)?.equals(bytes), name).toBe(true);
  }, 120_000);
});

/**
 * A CSV and XLSX run through the Lambda handlers from the pieces alone, and through the CLI: the
 * same CSV files and snapshot, the same workbook (every part of it).
 */
async function sameWorkbookAsCli(at: WorkflowHarness, profile = REQUEST.profile): Promise<void> {
  const request = { ...REQUEST, profile, formats: ['csv', 'xlsx'] };
  const job = await at.queueJob(request);
  const shards = await planAndFetch(job.jobId, at);
  expect(await at.keysUnder(KEYS.piecesPrefix(job.jobId))).toHaveLength(shards);
  // The pieces alone: no part for the finish to assemble from.
  expect(await at.keysUnder(KEYS.partsPrefix(job.jobId))).toEqual([]);
  const joined = await finishRun(job.jobId, at);
  const cli = await cliRun(request, at);
  expect([...joined.files.keys()].sort()).toEqual([...cli.files.keys()].sort());
  for (const [name, bytes] of data(cli)) {
    if (!name.endsWith('.xlsx')) expect(joined.files.get(name)?.equals(bytes), name).toBe(true);
  }
  const ours = await workbookParts(joined);
  const theirs = await workbookParts(cli);
  expect([...ours.keys()]).toEqual([...theirs.keys()]);
  for (const [part, text] of theirs) expect(ours.get(part) === text, part).toBe(true);
  // The sheets hold the whole year: the Transactions sheet a row per CSV row, and its header.
  const csvRows = parse(joined.files.get(`${profile}_2025_transactions.csv`) as Buffer, { bom: true });
  const sheet = [...ours.entries()].find(
    ([part, text]) => part.startsWith('xl/worksheets/sheet') && text.includes(String(csvRows[1]?.[0])),
  );
  expect(sheet?.[1].match(/<row /g)?.length).toBe(csvRows.length);
}

describe('window pieces of a workbook run', () => {
  it('are joined into the CLI workbook, every part of it, and the CLI CSV files and snapshot', async () => {
    await sameWorkbookAsCli(h);
  }, 120_000);

  it('whose columns differ give the CLI workbook, rendered from the joined snapshot', async () => {
    await sameWorkbookAsCli(h, 'acme');
  }, 120_000);

  it('are joined into the CLI workbook on generated data, with more rows a window than the sheets sample', async () => {
    // Generated data, some 250 transactions a month: a sheet's widths come from its first 100
    // rows and the widths the producer measured (every row's, or the first window's for the
    // sheet written while fetching); here the sampled rows are the widest.
    const generated = await startWorkflowHarness({ profiles: profilesWithCounts({ demo: 9_000 }) });
    try {
      await sameWorkbookAsCli(generated);
    } finally {
      await generated.close();
    }
  }, 240_000);
});
