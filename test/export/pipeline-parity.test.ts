/**
 * One pipeline (docs/pipeline.md): the same request through the CLI (`main`, to a folder), `serve`
 * (its HTTP API, the synthesized export state machine run locally, the handlers) and the Lambda
 * handlers called in the state machine's order (plan, every shard, finish) over S3 on loopback,
 * all three against one simulator (serve's) and one clock, gives the same files.
 *
 * Normalised, and only that: the run id (random in the CLI, tagged with the job on AWS), which
 * names the run, not its data; and in the workbook's About sheet, the SHA-256s and sizes of the
 * two files that print the run id (README.txt and the tax pack); and in the tax pack's text, the
 * spaces `pdftotext -layout` sets between columns, which follow the printed width of the run id.
 * Everything else is compared as it is, the snapshot (and so its SHA-256 on every page of the
 * pack) included.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.ts';
import { parseExportRequest } from '../../lib/export/index.ts';
import {
  addConditionalWrites,
  createJobStore,
  jobIdFor,
  type ProfileRegistry,
} from '../../lib/jobs/index.ts';
import {
  createFetchShardHandler,
  createFinishHandler,
  createObservability,
  createPlanHandler,
  createServiceFactory,
  type WorkerContext,
} from '../../lib/lambda/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';

const run = promisify(execFile);

/** The request of every path: the demo portfolio, US rules for 2025, with the journal and the tax pack. */
const REQUEST = {
  profile: 'demo',
  period: '2025',
  reports: ['transactions', 'gains', 'journal'],
  formats: ['csv', 'xlsx'],
  gains: { taxRules: 'us' },
};
/** The same request as CLI flags. */
const CLI_FLAGS = [
  '--profile=demo',
  '--period=2025',
  '--report=transactions,gains,journal',
  '--format=csv,xlsx',
  '--tax-rules=us',
];
/** The clock of every path: the minute the suite started (s3rver checks link expiry against the real time). */
const NOW = new Date(Math.floor(Date.now() / 60_000) * 60_000);
const now = () => NOW;

/** A path's published set: its run id and each file's bytes by name. */
interface RunFiles {
  runId: string;
  files: Map<string, Buffer>;
}

let serve: LocalService;
let s3: S3TestServer;
let outDir: string;
const runs: Record<'cli' | 'serve' | 'lambda', RunFiles> = {} as Record<'cli' | 'serve' | 'lambda', RunFiles>;

beforeAll(async () => {
  serve = await startLocalService({ port: 0, now });
  s3 = await startS3rver();
  outDir = await mkdtemp(join(tmpdir(), 'pbs-parity-'));
  await serve.machineReady;
  // One after another: they share the simulator's rate limit of the demo key.
  runs.cli = await viaCli();
  runs.serve = await viaServe();
  runs.lambda = await viaLambdaHandlers();
}, 400_000);

afterAll(async () => {
  await serve?.close();
  await s3?.close();
  if (outDir !== undefined) await rm(outDir, { recursive: true, force: true });
});

/** The simulated demo profile's credentials. */
function demoProfile() {
  const profile = serve.simulator.profiles.find((candidate) => candidate.name === 'demo');
  if (profile === undefined) throw new Error('the simulator has no demo profile');
  return profile;
}

/** (a) `pbs-export run … --out DIR` against serve's simulator, configured as for a real service. */
async function viaCli(): Promise<RunFiles> {
  const profile = demoProfile();
  const out = join(outDir, 'cli');
  const errors: string[] = [];
  const code = await main(['run', ...CLI_FLAGS, `--out=${out}`], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => errors.push(text) },
    env: {
      PBS_BASE_URL: serve.simulator.url,
      PBS_API_KEY: profile.apiKey,
      PBS_API_SECRET: profile.apiSecret,
      PBS_PROFILE_GUID: profile.profileGuid,
      PBS_REQUESTS_PER_SECOND: '10',
    },
    now,
  });
  expect(code, errors.join('')).toBe(0);
  const runDir = join(out, 'reports', 'demo', '2025');
  const [runId] = await readdir(runDir);
  const folder = join(runDir, String(runId));
  const files = new Map<string, Buffer>();
  for (const name of await readdir(folder)) files.set(name, await readFile(join(folder, name)));
  return { runId: String(runId), files };
}

/** (b) `POST /reports` to serve, run by its state machine, every file downloaded through its link. */
async function viaServe(): Promise<RunFiles> {
  const posted = await fetch(`${serve.url}/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(REQUEST),
  });
  expect(posted.status).toBe(202);
  const { jobId } = (await posted.json()) as { jobId: string };
  await serve.starter.idle();
  const job = (await (await fetch(`${serve.url}/reports/${jobId}`)).json()) as {
    state: string;
    reason?: string;
    files: { name: string; url: string }[];
  };
  expect(job.state, job.reason).toBe('succeeded');
  const files = new Map<string, Buffer>();
  for (const file of job.files) {
    files.set(file.name, Buffer.from(await (await fetch(file.url)).arrayBuffer()));
  }
  const record = await serve.jobs.require(jobId);
  return { runId: String(record.result?.runId), files };
}

/** (c) The Lambda handlers as the state machine calls them, over S3 on loopback. */
async function viaLambdaHandlers(): Promise<RunFiles> {
  const profile = demoProfile();
  const client = s3.createClient();
  addConditionalWrites(client, s3.client);
  const jobs = createJobStore({ client, bucket: s3.bucket });
  const secretArn = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/demo-AbCdEf';
  const registry: ProfileRegistry = { demo: { secretArn, timeZone: 'UTC', monthly: false } };
  const context: WorkerContext = {
    obs: createObservability('pbs-export-parity'),
    jobs,
    s3: client,
    bucket: s3.bucket,
    now,
    services: createServiceFactory({
      registry,
      readSecret: async () => ({
        apiKey: profile.apiKey,
        apiSecret: profile.apiSecret,
        profileGuid: profile.profileGuid,
      }),
      settings: { baseUrl: serve.simulator.url, requestsPerSecond: 10 },
    }),
  };
  const jobId = jobIdFor('demo', 'parity');
  await jobs.create({
    jobId,
    profile: 'demo',
    request: parseExportRequest(REQUEST),
    state: 'queued',
    source: 'api',
    idempotencyKey: 'parity',
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
  });
  const planned = await createPlanHandler(context)({ jobId });
  const fetchShard = createFetchShardHandler(context);
  for (const shard of planned.shards) await fetchShard({ jobId, shard });
  await createFinishHandler(context)({ jobId });
  const job = await jobs.require(jobId);
  const files = new Map<string, Buffer>();
  for (const file of job.result?.files ?? []) files.set(file.name, await objectBytes(client, file.key));
  return { runId: String(job.result?.runId), files };
}

async function objectBytes(client: S3Client, key: string): Promise<Buffer> {
  const answer = await client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: key }));
  return Buffer.from((await answer.Body?.transformToByteArray()) ?? []);
}

/** `text` with the run's id (and the SHA-256s of the files that print it) named instead. */
function normalised(text: string, of: RunFiles): string {
  let out = text.replaceAll(of.runId, '<run id>');
  for (const name of [...of.files.keys()].filter((n) => n === 'README.txt' || n.endsWith('_tax_pack.pdf'))) {
    const bytes = of.files.get(name) as Buffer;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    // The About sheet lists each file as `sha256 …, N bytes`: the PDF's size varies with its
    // compressed pages, which print the run id.
    out = out.replaceAll(`${sha256}, ${bytes.length} bytes`, `<sha256 and size of ${name}>`);
    out = out.replaceAll(sha256, `<sha256 of ${name}>`);
  }
  return out;
}

/** The names of `of`'s files that end with `suffix`, sorted. */
const named = (of: RunFiles, suffix: string) => [...of.files.keys()].filter((n) => n.endsWith(suffix)).sort();

/**
 * Each sheet's XML (and the workbook's list of sheets), normalised, by part name: as its SHA-256,
 * so that a difference names the part without printing sheets of thousands of rows.
 */
async function sheets(of: RunFiles): Promise<Record<string, string>> {
  const [name] = named(of, '.xlsx');
  const zip = await JSZip.loadAsync(of.files.get(String(name)) as Buffer);
  const parts = Object.keys(zip.files).filter((part) =>
    /^xl\/(worksheets\/sheet\d+|workbook)\.xml$/.test(part),
  );
  const xml: Record<string, string> = {};
  for (const part of parts.sort()) {
    const text = normalised((await zip.file(part)?.async('string')) ?? '', of);
    xml[part] = createHash('sha256').update(text).digest('hex');
  }
  return xml;
}

/** The tax pack's text as `pdftotext -layout` reads it, spaces between columns as one. */
async function packText(of: RunFiles): Promise<string> {
  const [name] = named(of, '_tax_pack.pdf');
  const file = join(outDir, `${of.runId}-pack.pdf`);
  await writeFile(file, of.files.get(String(name)) as Buffer);
  const { stdout } = await run('pdftotext', ['-layout', file, '-']);
  // DejaVu Sans is proportional: `-layout` pads a line by the printed width of the run id's hex
  // digits, which differ from run to run. Runs of spaces are compared as one.
  return normalised(stdout, of).replace(/ {2,}/g, ' ');
}

const PATHS = ['serve', 'lambda'] as const;

describe('one pipeline: the CLI, serve and the Lambda handlers', () => {
  it('publish the same files, by name', () => {
    const names = (of: RunFiles) => [...of.files.keys()].sort();
    expect(names(runs.cli)).toContain('demo_2025_tax_pack.pdf');
    for (const path of PATHS) expect(names(runs[path]), path).toEqual(names(runs.cli));
  });

  it.each(PATHS)('give the CLI CSV files byte for byte through %s', (path) => {
    const csv = named(runs.cli, '.csv');
    expect(csv).toContain('demo_2025_form-8949.csv');
    for (const name of csv)
      expect(runs[path].files.get(name)?.equals(runs.cli.files.get(name) as Buffer), name).toBe(true);
  });

  it.each(PATHS)("give the CLI's journals byte for byte through %s", (path) => {
    const journals = named(runs.cli, '').filter((name) => name.includes('_journal.'));
    expect(journals).toEqual([
      'demo_2025_journal.beancount',
      'demo_2025_journal.csv',
      'demo_2025_journal.hledger',
    ]);
    for (const name of journals) {
      expect(runs[path].files.get(name)?.equals(runs.cli.files.get(name) as Buffer), name).toBe(true);
    }
  });

  it.each(PATHS)("give the CLI's snapshot byte for byte through %s", (path) => {
    const name = 'demo_2025_snapshot.ndjson.gz';
    expect(runs[path].files.get(name)?.equals(runs.cli.files.get(name) as Buffer)).toBe(true);
  });

  it.each(PATHS)("give the CLI's workbook sheets through %s", async (path) => {
    const cli = await sheets(runs.cli);
    expect(Object.keys(cli).length).toBeGreaterThan(10);
    expect(await sheets(runs[path])).toEqual(cli);
  });

  it.each(PATHS)("give the CLI's tax pack text through %s", async (path) => {
    const cli = await packText(runs.cli);
    expect(cli).toContain('Tax pack: demo, 2025');
    expect(await packText(runs[path])).toBe(cli);
  });

  it.each(PATHS)("give the CLI's Read me through %s", (path) => {
    const text = (of: RunFiles) => normalised((of.files.get('README.txt') as Buffer).toString('utf8'), of);
    expect(text(runs[path])).toBe(text(runs.cli));
  });
});
