/**
 * The deployed finish writes the PDF tax pack: its bundle built as CDK builds it
 * (`functionBuildOptions`, then the bundling hook's commands: the fonts and the XLSX worker beside
 * it), run in a child process from a folder with no `node_modules` in reach, over S3 on loopback
 * with the plan and the parts the plan and fetch-shard handlers stored. Its pack reads, page for
 * page, as the CLI's of the same request (one simulator, one clock; the run id named instead).
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFileCommands, functionBuildOptions, workerBundleCommands } from '../../infra/bundling.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';
import { main } from '../../lib/cli/main.ts';
import { createFetchShardHandler, createPlanHandler, ENV, OPTIONAL_ENV } from '../../lib/lambda/index.ts';
import { type SecretsServer, startSecretsServer } from '../support/secrets-server.ts';
import { NOW, secretArnOf, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

const run = promisify(execFile);
const ENTRY = 'functions/export-finish.ts';

/** A gains export of the demo under US rules into a workbook: the pack goes with it. */
const REQUEST = {
  profile: 'demo',
  period: '2025',
  reports: ['gains'],
  formats: ['xlsx'],
  gains: { taxRules: 'us' },
};

let dir: string;
let bundleDir: string;
let h: WorkflowHarness;
let secrets: SecretsServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-finish-bundle-'));
  bundleDir = join(dir, 'export-finish');
  await build(functionBuildOptions(ENTRY, PROJECT_ROOT, join(bundleDir, 'index.mjs')));
  // What `PbsFunction`'s afterBundling hook runs (bash, as CDK's local bundling does).
  for (const command of [
    ...bundleFileCommands(ENTRY, PROJECT_ROOT, bundleDir),
    ...workerBundleCommands(ENTRY, PROJECT_ROOT, bundleDir),
  ]) {
    await run('bash', ['-c', command]);
  }
  h = await startWorkflowHarness();
  const demo = h.simulator.profiles.find((profile) => profile.name === 'demo');
  secrets = await startSecretsServer({
    [secretArnOf('demo')]: {
      apiKey: demo?.apiKey,
      apiSecret: demo?.apiSecret,
      profileGuid: demo?.profileGuid,
    },
  });
}, 120_000);

afterAll(async () => {
  await secrets?.close();
  await h?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

/** Runs the bundled finish handler once, in a child process, with the environment the stack sets. */
async function invokeBundledFinish(jobId: string, folder = bundleDir): Promise<unknown> {
  // A script file, not `--eval`: the XLSX writer's worker thread would inherit `--input-type`.
  const script = join(dir, 'invoke.mjs');
  await writeFile(
    script,
    `const { handler } = await import(process.argv[3]);
    const context = { functionName: 'finish', awsRequestId: 'finish-1', getRemainingTimeInMillis: () => 600000 };
    try {
      console.log(JSON.stringify({ value: await handler(JSON.parse(process.argv[2]), context) }));
    } catch (error) {
      console.log(JSON.stringify({ error: { name: error.name, code: error.code, message: error.message } }));
    }`,
  );
  const bundle = pathToFileURL(join(folder, 'index.mjs')).href;
  const { stdout } = await run(process.execPath, [script, JSON.stringify({ jobId }), bundle], {
    cwd: folder,
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
    env: {
      PATH: process.env.PATH,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_REGION: 'eu-central-1',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.url,
      POWERTOOLS_SERVICE_NAME: 'pbs-export',
      [ENV.bucket]: h.bucket,
      [ENV.profiles]: JSON.stringify({ demo: h.registry.demo }),
      [ENV.baseUrl]: h.simulator.url,
      [ENV.requestsPerSecond]: '100',
      [OPTIONAL_ENV.s3Endpoint]: h.s3.endpoint,
    },
  });
  return JSON.parse(stdout.trim().split('\n').at(-1) ?? 'null');
}

/**
 * `pdftotext -layout` of `bytes`, the run id named instead, runs of spaces as one: the layout pads
 * a line by the printed width of the run id, which differs between two runs' ids in a
 * proportional font (as in test/export/pipeline-parity.test.ts).
 */
async function packText(bytes: Buffer, runId: string): Promise<string> {
  const file = join(dir, `${runId}.pdf`);
  await writeFile(file, bytes);
  const { stdout } = await run('pdftotext', ['-layout', file, '-']);
  return stdout.replaceAll(runId, '<run id>').replace(/ {2,}/g, ' ');
}

/** The CLI's pack of the same request, against the harness' simulator at the harness' clock. */
async function cliPack(): Promise<{ runId: string; bytes: Buffer }> {
  const demo = h.simulator.profiles.find((profile) => profile.name === 'demo');
  const out = join(dir, 'cli');
  const errors: string[] = [];
  const code = await main(
    [
      'run',
      '--profile=demo',
      '--period=2025',
      '--report=gains',
      '--format=xlsx',
      '--tax-rules=us',
      `--out=${out}`,
    ],
    {
      stdout: { write: () => true },
      stderr: { write: (text: string) => errors.push(text) },
      env: {
        PBS_BASE_URL: h.simulator.url,
        PBS_API_KEY: demo?.apiKey,
        PBS_API_SECRET: demo?.apiSecret,
        PBS_PROFILE_GUID: demo?.profileGuid,
        PBS_REQUESTS_PER_SECOND: '100',
      },
      now: () => NOW,
    },
  );
  expect(code, errors.join('')).toBe(0);
  const runs = join(out, 'reports', 'demo', '2025');
  const [runId = ''] = await readdir(runs);
  return { runId, bytes: await readFile(join(runs, runId, 'demo_2025_tax_pack.pdf')) };
}

describe('the bundled finish function (fonts shipped beside it)', () => {
  it("cannot reach the font package from its folder: the pack's fonts are the ones shipped beside it", () => {
    expect(() =>
      createRequire(join(bundleDir, 'index.mjs')).resolve('dejavu-fonts-ttf/package.json'),
    ).toThrow();
  });

  it("writes the tax pack of a gains export in a workbook, reading as the CLI's of the same request", async () => {
    const context = h.workerContext({ slots: h.slots });
    const job = await h.queueJob(REQUEST);
    const { shards } = await createPlanHandler(context)({ jobId: job.jobId });
    const fetchShard = createFetchShardHandler(context);
    for (const shard of shards) await fetchShard({ jobId: job.jobId, shard });

    const answer = await invokeBundledFinish(job.jobId);

    expect(answer).toMatchObject({ value: { jobId: job.jobId, state: 'succeeded' } });
    const finished = await h.jobs.require(job.jobId);
    const pack = finished.result?.files.find((file) => file.name === 'demo_2025_tax_pack.pdf');
    expect(pack).toBeDefined();
    const stored = await h.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: pack?.key }));
    const bytes = Buffer.from((await stored.Body?.transformToByteArray()) ?? []);
    const text = await packText(bytes, String(finished.result?.runId));
    expect(text).toContain('Tax pack: demo, 2025');
    // The reconciliation's result in the deployed finish's pack too (the demo reconciles).
    expect(text).toContain(
      "Reconciliation with the service's balances\nStatus reconciled\nResult reconciled: ",
    );
    const cli = await cliPack();
    expect(text).toBe(await packText(cli.bytes, cli.runId));
    const { stdout: fonts } = await run('pdffonts', [join(dir, `${finished.result?.runId}.pdf`)]);
    expect(fonts).toMatch(/DejaVuSans-Bold/);
  });

  it('fails naming the missing font files when packaged without them', async () => {
    const bare = join(dir, 'export-finish-without-fonts');
    await mkdir(bare);
    await copyFile(join(bundleDir, 'index.mjs'), join(bare, 'index.mjs'));
    const context = h.workerContext({ slots: h.slots });
    const job = await h.queueJob({ ...REQUEST, period: '2025-06' });
    const { shards } = await createPlanHandler(context)({ jobId: job.jobId });
    const fetchShard = createFetchShardHandler(context);
    for (const shard of shards) await fetchShard({ jobId: job.jobId, shard });

    const answer = await invokeBundledFinish(job.jobId, bare);

    expect(answer).toMatchObject({
      error: {
        name: 'TaxPackFontsError',
        code: 'tax_pack_fonts_missing',
        message: expect.stringMatching(/DejaVuSans\.ttf/),
      },
    });
  });
});
