import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import JSZip from 'jszip';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_ID } from '../../infra/pbs-app.ts';
import { PROJECT_ROOT } from '../../infra/pbs-function.ts';
import { FUNCTIONS, type FunctionKey } from '../../infra/stack.ts';
import type { TableSource } from '../../lib/domain/table.ts';
import { parseExportRequest } from '../../lib/export/index.ts';
import { writeXlsx, type XlsxOptions } from '../../lib/export/report/writers/xlsx.ts';
import { createJobStore, KEYS } from '../../lib/jobs/index.ts';
import { ENV, OPTIONAL_ENV } from '../../lib/lambda/index.ts';
import { ecbHistZip, startRatesServer } from '../support/rates.ts';
import { type S3TestServer, startS3rver } from '../support/s3.ts';
import { sink } from '../support/writers.ts';

/** The ECB history the bundled rates fetch is served. */
const ECB_ZIP = ecbHistZip('2024-05-17');

const execFileAsync = promisify(execFile);

interface Resource {
  Type: string;
  Properties: Record<string, unknown>;
  Metadata?: Record<string, unknown>;
}

let outDir: string;
let result: { status: number | null; output: string };
let resources: Record<string, Resource>;

// The real app as an operator runs it: the pinned CLI, offline, esbuild bundling on this machine.
beforeAll(() => {
  outDir = mkdtempSync(join(tmpdir(), 'pbs-cdk-out-'));
  const run = spawnSync('npx', ['--no-install', 'cdk', 'synth', '--quiet', '--no-notices', '-o', outDir], {
    cwd: PROJECT_ROOT,
    encoding: 'utf8',
    timeout: 110_000,
    env: { ...process.env, CDK_DISABLE_VERSION_CHECK: '1' },
  });
  result = { status: run.status, output: `${run.stdout}\n${run.stderr}` };
  const templateFile = join(outDir, `${STACK_ID}.template.json`);
  resources = existsSync(templateFile)
    ? (JSON.parse(readFileSync(templateFile, 'utf8')) as { Resources: Record<string, Resource> }).Resources
    : {};
}, 120_000);

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
});

const functions = () =>
  Object.values(resources).filter((resource) => resource.Type === 'AWS::Lambda::Function');
const assetDirs = () => functions().map((fn) => join(outDir, String(fn.Metadata?.['aws:asset:path'])));
/** The bundles of the functions that run jobs (every one but the rates fetch, which touches no job). */
const jobAssetDirs = () =>
  Object.entries(resources)
    .filter(([id, resource]) => resource.Type === 'AWS::Lambda::Function' && !id.startsWith('RatesFetch'))
    .map(([, fn]) => join(outDir, String(fn.Metadata?.['aws:asset:path'])));

describe('cdk synth of the app', () => {
  it('exits 0', () => {
    expect(result.status, result.output).toBe(0);
  });

  it('reports no cdk-nag finding', () => {
    expect(result.output).not.toMatch(/AwsSolutions-/);
  });

  it('returns a template with the seven functions deployed from bundled assets', () => {
    expect(functions()).toHaveLength(7);
    for (const fn of functions()) {
      expect(fn.Properties).toMatchObject({
        Handler: 'index.handler',
        Code: { S3Bucket: expect.anything() },
      });
    }
  });

  it("copies the portal's static files beside the HTTP API bundle only", () => {
    const withStatic = assetDirs().filter((dir) => existsSync(join(dir, 'static', 'portal.js')));
    expect(withStatic).toHaveLength(1);
    for (const name of ['portal.js', 'portal.css']) {
      expect(readFileSync(join(withStatic[0] ?? '', 'static', name), 'utf8')).toBe(
        readFileSync(join(PROJECT_ROOT, 'lib/portal/static', name), 'utf8'),
      );
    }
  });

  it('bundles each function as an ES module, its source map kept outside the code package', () => {
    const maps = join(outDir, 'source-maps');
    for (const dir of assetDirs()) {
      expect(existsSync(join(dir, 'index.mjs')), dir).toBe(true);
      expect(
        readdirSync(dir).filter((name) => name.endsWith('.map')),
        dir,
      ).toEqual([]);
    }
    expect(readdirSync(maps).sort()).toEqual(
      Object.values(FUNCTIONS)
        .map((spec) => `${basename(spec.entry, '.ts')}.mjs.map`)
        .sort(),
    );
    const finishMap = JSON.parse(readFileSync(join(maps, 'export-finish.mjs.map'), 'utf8')) as {
      sources: string[];
    };
    expect(finishMap.sources).toContainEqual(expect.stringMatching(/lib\/export\/report\/render\.ts$/));
  });

  it('bundles archiver into the HTTP API only (the workbook has its own zip writer), and exceljs into none', () => {
    const code = (fn: Resource) =>
      readFileSync(join(outDir, String(fn.Metadata?.['aws:asset:path']), 'index.mjs'), 'utf8');
    // Class names survive minification (keepNames): archiver's error class, exceljs's streaming writer.
    const withArchiver = functions()
      .filter((fn) => code(fn).includes('ArchiverError'))
      .map((fn) => String(fn.Properties.Description));
    const withExcel = functions()
      .filter((fn) => code(fn).includes('WorksheetWriter'))
      .map((fn) => String(fn.Properties.Description));

    expect(withArchiver).toEqual([FUNCTIONS.httpApi.description]);
    expect(withExcel).toEqual([]);
  });

  it("copies the tax pack's fonts beside the finish function only, the one that writes the pack", () => {
    const finish = functions().find((fn) => fn.Properties.Description === FUNCTIONS.finish.description);
    const finishDir = join(outDir, String(finish?.Metadata?.['aws:asset:path']));
    expect(assetDirs().filter((dir) => existsSync(join(dir, 'fonts')))).toEqual([finishDir]);
    expect(readdirSync(join(finishDir, 'fonts')).sort()).toEqual([
      'DejaVuSans-Bold.ttf',
      'DejaVuSans.ttf',
      'LICENSE',
    ]);
  });

  it("bundles the XLSX writer's worker thread beside the finish function only, writing what the main thread would", async () => {
    const finish = functions().find((fn) => fn.Properties.Description === FUNCTIONS.finish.description);
    const finishDir = join(outDir, String(finish?.Metadata?.['aws:asset:path']));
    expect(assetDirs().filter((dir) => existsSync(join(dir, 'xlsx-worker.mjs')))).toEqual([finishDir]);

    const sheetXml = async (options: XlsxOptions) => {
      const { out, bytes } = sink();
      await writeXlsx([table], out, { created: new Date('2026-01-01T00:00:00Z'), ...options });
      return (await JSZip.loadAsync(await bytes)).file('xl/worksheets/sheet1.xml')?.async('string');
    };
    const table: TableSource = {
      spec: {
        name: 'transactions',
        title: 'Transactions',
        columns: [{ key: 'n', header: 'N', kind: 'decimal' }],
      },
      async *rows() {
        for (let i = 0; i < 1000; i += 1) yield [`${i}.5`];
      },
    };
    const bundled = await sheetXml({ workerEntry: pathToFileURL(join(finishDir, 'xlsx-worker.mjs')) });
    expect(bundled).toContain('<v>999.5</v>');
    expect(bundled).toBe(await sheetXml({ thread: 'same-thread' }));
  });

  it('bundles only the AWS SDK commands the project sends, as the bench builds the functions', () => {
    // The second is sent nowhere in the project: bundled only with a whole package.
    const commands = ['"PutObjectCommand"', 'PutBucketLifecycleConfigurationCommand'];
    const found = assetDirs().map((dir) => {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      return commands.filter((name) => code.includes(name));
    });

    expect(found).toEqual(assetDirs().map(() => ['"PutObjectCommand"']));
    expect(found).toHaveLength(7);
  });

  it('keeps the error class names in every bundle of a job, as the state machine retriers match them', () => {
    expect(jobAssetDirs()).toHaveLength(6);
    for (const dir of jobAssetDirs()) {
      const code = readFileSync(join(dir, 'index.mjs'), 'utf8');
      for (const name of ['ValidationError', 'JobNotFoundError', 'ProfileBusyError']) {
        expect(code, `${dir}: ${name}`).toContain(`"${name}"`);
      }
    }
  });

  it('answers real events through each bundle, with the environment the stack sets and S3 on loopback', async () => {
    const { answers, logged, failedJob, keptRates } = await invokeBundles();

    expect(answers.getReport).toMatchObject({ value: { statusCode: 200 } });
    expect(JSON.parse(answers.getReport?.value?.body ?? '{}')).toMatchObject({
      jobId: JOB_ID,
      state: 'queued',
    });
    expect(answers.getUnknown).toMatchObject({ value: { statusCode: 404 } });
    expect(JSON.parse(answers.getUnknown?.value?.body ?? '{}')).toMatchObject({
      error: { code: 'job_not_found', field: 'jobId' },
    });
    expect(answers.openapi).toMatchObject({ value: { statusCode: 200 } });
    expect(JSON.parse(answers.openapi?.value?.body ?? '{}')).toMatchObject({
      openapi: expect.stringMatching(/^3\.1\./),
      paths: { '/reports': expect.anything(), '/reports/{jobId}': expect.anything() },
    });
    for (const task of ['plan', 'fetchShard', 'finish'] as const) {
      expect(answers[task], task).toMatchObject({ error: { name: 'JobNotFoundError' } });
    }
    expect(answers.fail).toEqual({ value: { jobId: JOB_ID, state: 'failed' } });
    expect(answers.monthlyStart).toMatchObject({ error: { name: 'UnknownProfileError' } });
    // The job as the fail task left it in S3, read with the test's own client: failed, no secret kept.
    expect(failedJob).toMatchObject({ jobId: JOB_ID, state: 'failed' });
    expect(JSON.stringify(failedJob)).not.toContain('sk_acme');
    // Powertools logged each failed invocation once, with its error; the unknown profile (a
    // request found invalid) as a warning naming the field.
    expect(logged).toEqual({
      plan: 'JobNotFoundError',
      fetchShard: 'JobNotFoundError',
      finish: 'JobNotFoundError',
      monthlyStart: 'invalid request: profile',
    });
    // The rates fetch kept the ECB's history under its sha256; HMRC's months were not published.
    const sha256 = createHash('sha256').update(ECB_ZIP).digest('hex');
    expect(keptRates).toEqual([`rates/ecb/${sha256}/eurofxref-hist.zip`]);
    expect(
      (answers.ratesFetch?.value as { files?: { outcome: string }[] } | undefined)?.files?.map(
        (f) => f.outcome,
      ),
    ).toEqual(['kept', 'not-published', 'not-published']);
  });
});

/** The job the fixtures name (`test/fixtures/events/`), created queued before the bundles run. */
const JOB_ID = '0123456789abcdef0123456789abcdef';
/** A job id no job has. */
const UNKNOWN_JOB_ID = 'f'.repeat(32);

interface Answer {
  value?: { statusCode?: number; body?: string } & Record<string, unknown>;
  error?: { name: string; message: string };
}

/**
 * Invokes each bundled handler once per case in one child process (a fresh module cache, no
 * vitest in between), with the template's own environment values where they are literal and
 * loopback stand-ins where they are CloudFormation references (bucket, state machine, API URL).
 */
async function invokeBundles(): Promise<{
  answers: Record<string, Answer | undefined>;
  logged: Record<string, string | undefined>;
  failedJob: unknown;
  keptRates: (string | undefined)[];
}> {
  const s3 = await startS3rver();
  const site = await startRatesServer();
  try {
    const jobs = createJobStore({ client: s3.client, bucket: s3.bucket });
    const request = parseExportRequest({ profile: 'demo', period: '2025-10' });
    const createdAt = '2026-11-22T10:00:00.000Z';
    await jobs.create({
      jobId: JOB_ID,
      profile: 'demo',
      request,
      state: 'queued',
      source: 'api',
      idempotencyKey: 'cdk-synth-test',
      createdAt,
      updatedAt: createdAt,
    });
    const events = join(import.meta.dirname, '..', 'fixtures', 'events');
    const fixture = (name: string) =>
      JSON.parse(readFileSync(join(events, name), 'utf8')) as Record<string, unknown>;
    const getReport = fixture('get-report.json');
    const openapi = {
      ...getReport,
      routeKey: '$default',
      rawPath: '/openapi.json',
      pathParameters: undefined,
      requestContext: {
        ...(getReport.requestContext as Record<string, unknown>),
        http: { ...(getReport.requestContext as { http: object }).http, path: '/openapi.json' },
      },
    };
    const unknown = { jobId: UNKNOWN_JOB_ID };
    const cases: [string, FunctionKey, unknown][] = [
      ['getReport', 'httpApi', getReport],
      [
        'getUnknown',
        'httpApi',
        { ...getReport, rawPath: `/reports/${UNKNOWN_JOB_ID}`, pathParameters: unknown },
      ],
      ['openapi', 'httpApi', openapi],
      ['plan', 'plan', { ...fixture('export-input.json'), ...unknown }],
      ['fetchShard', 'fetchShard', { ...fixture('fetch-shard-input.json'), ...unknown }],
      ['finish', 'finish', { ...fixture('export-input.json'), ...unknown }],
      ['fail', 'fail', fixture('fail-input.json')],
      ['monthlyStart', 'monthlyStart', { profile: 'not-registered', scheduledTime: '2026-11-01T00:30:00Z' }],
      ['ratesFetch', 'ratesFetch', { scheduledTime: '2026-11-26T16:30:00Z' }],
    ];
    const script = `
      const cases = JSON.parse(process.argv[1]);
      const answers = {};
      for (const { name, dir, env, event } of cases) {
        Object.assign(process.env, env);
        try {
          const { handler } = await import(dir + '/index.mjs');
          const context = { functionName: name, awsRequestId: name, getRemainingTimeInMillis: () => 30000 };
          answers[name] = { value: await handler(event, context) };
        } catch (error) {
          answers[name] = { error: { name: error.name, message: error.message } };
        }
      }
      console.log(JSON.stringify(answers));`;
    // The rates fetch reads the ECB's history from a loopback site (HMRC's months are not on it: 404).
    site.files.set('/eurofxref-hist.zip', ECB_ZIP);
    const ratesUrls = {
      [ENV.ratesEcbUrl]: `${site.url}/eurofxref-hist.zip`,
      [ENV.ratesHmrcUrl]: `${site.url}/monthly_xml_{month}.xml`,
    };
    const input = cases.map(([name, key, event]) => {
      const bundle = bundleOf(key, s3);
      if (key === 'ratesFetch') bundle.env = { ...bundle.env, ...ratesUrls };
      return { name, event: withCallerClaims(event, bundle.env), ...bundle };
    });
    // Not spawnSync: s3rver runs in this process and must keep answering while the child runs.
    const run = await execFileAsync(
      process.execPath,
      ['--input-type=module', '-e', script, JSON.stringify(input)],
      {
        encoding: 'utf8',
        timeout: 60_000,
        maxBuffer: 64 * 1024 * 1024,
        env: { PATH: process.env.PATH, AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' },
      },
    );
    const answers = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}') as Record<
      string,
      Answer | undefined
    >;
    // Powertools logs each failed invocation as one JSON line on stderr, with the error.
    const failures = run.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map(
        (line) =>
          JSON.parse(line) as {
            function_name?: string;
            level?: string;
            message?: string;
            field?: string;
            error?: { name?: string };
          },
      )
      .filter((f) => f.level === 'ERROR' || f.message === 'invocation failed: invalid request');
    // An invalid request is one warning line with its field (lib/lambda/observability.ts), no error.
    const logged = Object.fromEntries(
      failures.map((f) => [f.function_name ?? '', f.error?.name ?? `invalid request: ${f.field}`]),
    );
    const stored = await s3.client.send(new GetObjectCommand({ Bucket: s3.bucket, Key: KEYS.job(JOB_ID) }));
    const failedJob = JSON.parse((await stored.Body?.transformToString('utf8')) ?? 'null') as unknown;
    const kept = await s3.client.send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: 'rates/' }));
    return { answers, logged, failedJob, keptRates: (kept.Contents ?? []).map((object) => object.Key) };
  } finally {
    await site.close();
    await s3.close();
  }
}

/**
 * `event` as API Gateway passes it when the stack reads a profiles claim (the default stack's
 * Cognito groups): the JWT authorizer's verified claims list the job's profile (demo), as the user
 * pool's group would. An event of a function without a claim setting is left as it is.
 */
function withCallerClaims(event: unknown, env: Record<string, string>): unknown {
  const claim = env[ENV.profilesClaim];
  if (claim === undefined) return event;
  const http = event as { requestContext: Record<string, unknown> };
  const claims = { [claim]: '[demo]' };
  return {
    ...http,
    requestContext: { ...http.requestContext, authorizer: { jwt: { claims, scopes: null } } },
  };
}

/** The asset folder of a function and its environment: literal values as synthesized, references stood in for. */
function bundleOf(key: FunctionKey, s3: S3TestServer): { dir: string; env: Record<string, string> } {
  const fn = functions().find((candidate) => candidate.Properties.Description === FUNCTIONS[key].description);
  if (fn === undefined) throw new Error(`no synthesized function ${key}`);
  const variables = (fn.Properties.Environment as { Variables: Record<string, unknown> }).Variables;
  const literal = Object.fromEntries(
    Object.entries(variables).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
  );
  return {
    dir: join(outDir, String(fn.Metadata?.['aws:asset:path'])),
    env: {
      ...literal,
      [ENV.bucket]: s3.bucket,
      [ENV.profiles]: JSON.stringify({ demo: { secretArn: SECRET_ARN, timeZone: 'UTC', monthly: true } }),
      [ENV.exportStateMachineArn]: 'arn:aws:states:eu-central-1:123456789012:stateMachine:pbs-export',
      [ENV.publicBaseUrl]: 'https://abc123.execute-api.eu-central-1.amazonaws.com',
      [OPTIONAL_ENV.s3Endpoint]: s3.endpoint,
      AWS_REGION: 'eu-central-1',
    },
  };
}

const SECRET_ARN = 'arn:aws:secretsmanager:eu-central-1:123456789012:secret:pbs/demo-AbCdEf';
