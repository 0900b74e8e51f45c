/**
 * Security: isolation between profiles at the HTTP API, secrets read only for registered profiles,
 * presigned links, secrets absent from everything a run leaves behind, least-privilege IAM.
 *
 * Figures (table `security`): `checks` made, `passed`, and `leaks`: checks that found something
 * disclosed (a secret, an API key or a request signature in an output; another profile's job
 * readable or startable). Real components: the simulator and s3rver on loopback, the handlers of
 * `functions/`, the CLI's `main`; Secrets Manager and Step Functions are mocked (no local server),
 * and the mock records every GetSecretValue call.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { parseExportRequest } from '../../lib/export/plan/index.ts';
import { createProfileSlots, type JobRecord, jobIdFor, KEYS } from '../../lib/jobs/index.ts';
import {
  type ApiContext,
  createApiHandler,
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createPlanHandler,
  type WorkerContext,
} from '../../lib/lambda/index.ts';
import { synthesize, TEST_CONFIG, secretArn as testSecretArn } from '../infra/support.ts';
import {
  captureOutput,
  loadEvent,
  NOW,
  secretArnOf,
  startWorkflowHarness,
  type WorkflowHarness,
} from '../support/workflow.ts';
import { recordFigures } from './support/figures.ts';
import { expandFile, findLeaks, type ScanSource } from './support/scan.ts';
import { verifyPresignedUrl } from './support/sigv4.ts';

/** Tallies checks; a failed one is listed by label (and counted as a leak when it disclosed something). */
class Checks {
  readonly failed: string[] = [];
  count = 0;
  leaks = 0;

  ok(label: string, condition: boolean, disclosure = false): void {
    this.count += 1;
    if (condition) return;
    this.failed.push(label);
    if (disclosure) this.leaks += 1;
  }

  record(name: string): void {
    recordFigures('security', name, {
      checks: this.count,
      passed: this.count - this.failed.length,
      leaks: this.leaks,
    });
  }
}

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.resetSfn();
  h.setNow(NOW);
});

interface Answer {
  status: number;
  body: Record<string, unknown> & { error?: { code: string; field: string | null } };
  raw: string;
}

async function callApi(event: APIGatewayProxyEventV2, context: ApiContext): Promise<Answer> {
  const result = (await createApiHandler(context)(event)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode ?? 0, body: JSON.parse(result.body ?? 'null'), raw: result.body ?? '' };
}

/** The event as API Gateway hands it after its JWT authorizer verified a token carrying `claims`. */
function signedIn(
  event: APIGatewayProxyEventV2,
  claims: Record<string, unknown> | null,
): APIGatewayProxyEventV2 {
  (event.requestContext as unknown as Record<string, unknown>).authorizer =
    claims === null ? undefined : { jwt: { claims: { sub: 'user', ...claims }, scopes: null } };
  return event;
}

async function postEvent(body: unknown, headers: Record<string, string> = {}) {
  const event = await loadEvent('post-reports.json');
  event.body = JSON.stringify(body);
  event.headers = { ...event.headers, ...headers };
  return event;
}

async function getEvent(jobId: string) {
  const event = await loadEvent('get-report.json');
  event.rawPath = `/reports/${jobId}`;
  event.pathParameters = { jobId };
  return event;
}

async function listEvent(profile: string) {
  const event = await loadEvent('list-reports.json');
  event.queryStringParameters = { profile, limit: '100' };
  return event;
}

/** Runs the export state machine's tasks for `jobId` with the handlers, as Step Functions would. */
async function runExport(jobId: string, context: WorkerContext = h.workerContext()): Promise<void> {
  const plan = await createPlanHandler(context)({ jobId });
  const fetchShard = createFetchShardHandler(context);
  for (const shard of plan.shards) await fetchShard({ jobId, shard });
  await createFinishHandler(context)({ jobId });
}

const secretCalls = () =>
  h.secrets.commandCalls(GetSecretValueCommand).map((call) => String(call.args[0].input.SecretId));

describe('security: one profile cannot use another through the HTTP API', () => {
  it("answers 403 to starting or listing another profile's jobs and 404 to reading one, and hides nothing from the profile's own callers", async () => {
    const c = new Checks();
    const scoped = h.apiContext({ profilesClaim: 'pbs_profiles' });
    const alice = { pbs_profiles: 'acme' };
    const bob = { pbs_profiles: ['demo'] };
    const admin = { pbs_profiles: '*' };
    const as = async (claims: Record<string, unknown> | null, event: Promise<APIGatewayProxyEventV2>) =>
      callApi(signedIn(await event, claims), scoped);

    const own = await as(
      alice,
      postEvent({ profile: 'acme', period: '2024-01' }, { 'Idempotency-Key': 'k-1' }),
    );
    const jobId = String(own.body.jobId);
    c.ok('alice starts an export of her profile', own.status === 202);
    const acmeJobsBefore = (await h.jobs.listByProfile('acme', 100)).length;
    const startsBefore = h.sfn.commandCalls(StartExecutionCommand).length;

    const forbiddenStart = await as(bob, postEvent({ profile: 'acme', period: '2024-02' }));
    c.ok(
      'bob cannot start an export of acme: 403',
      forbiddenStart.status === 403,
      forbiddenStart.status < 300,
    );
    c.ok('the 403 names profile', forbiddenStart.body.error?.field === 'profile');
    c.ok(
      'a refused start leaves no job and starts nothing',
      (await h.jobs.listByProfile('acme', 100)).length === acmeJobsBefore &&
        h.sfn.commandCalls(StartExecutionCommand).length === startsBefore,
      true,
    );
    const sameKey = await as(
      bob,
      postEvent({ profile: 'demo', period: '2024-01' }, { 'Idempotency-Key': 'k-1' }),
    );
    c.ok(
      "bob reusing alice's Idempotency-Key gets his own job, not hers",
      sameKey.status === 202 && sameKey.body.jobId !== jobId,
      sameKey.body.jobId === jobId,
    );
    const spoofed = await as(
      bob,
      postEvent({ profile: 'acme', period: '2024-03' }, { pbs_profiles: 'acme' }),
    );
    c.ok(
      'a pbs_profiles header grants nothing (only verified claims count)',
      spoofed.status === 403,
      spoofed.status < 300,
    );
    const caseVariant = await as(bob, postEvent({ profile: 'Demo', period: '2024-03' }));
    c.ok('profile names are exact: Demo is not demo', caseVariant.status === 403);
    for (const [label, claims] of [
      ['no claim', { email: 'x@example.com' }],
      ['an empty claim', { pbs_profiles: '' }],
      ['a numeric claim', { pbs_profiles: 42 }],
      ['no JWT at all', null],
    ] as const) {
      const answer = await as(claims, postEvent({ profile: 'acme', period: '2024-04' }));
      c.ok(`a caller with ${label} may start nothing`, answer.status === 403, answer.status < 300);
    }

    const missing = 'e'.repeat(32);
    const foreignRead = await as(bob, getEvent(jobId));
    const absentRead = await as(bob, getEvent(missing));
    c.ok("bob reading alice's job gets 404", foreignRead.status === 404, foreignRead.status === 200);
    c.ok(
      "the 404 of another profile's job is the 404 of a missing job",
      foreignRead.raw.replaceAll(jobId, missing) === absentRead.raw,
      true,
    );
    c.ok('the 404 says nothing of acme', !foreignRead.raw.includes('acme'), true);
    c.ok('alice reads her job', (await as(alice, getEvent(jobId))).status === 200);
    c.ok('a * caller reads any job', (await as(admin, getEvent(jobId))).status === 200);

    const foreignList = await as(bob, listEvent('acme'));
    c.ok("bob listing acme's jobs gets 403", foreignList.status === 403, foreignList.status === 200);
    const ownList = await as(alice, listEvent('acme'));
    const listed = (ownList.body.jobs as { jobId: string }[] | undefined) ?? [];
    c.ok(
      'alice lists her jobs, hers included',
      ownList.status === 200 && listed.some((job) => job.jobId === jobId),
    );
    const bobList = await as(bob, listEvent('demo'));
    const bobJobs = (bobList.body.jobs as { jobId: string }[] | undefined) ?? [];
    c.ok("bob's own listing holds none of alice's jobs", !bobJobs.some((job) => job.jobId === jobId), true);
    c.ok(
      'an unregistered profile the caller may not use answers 403, not 404 (registrations stay hidden)',
      (await as(bob, postEvent({ profile: 'nobody', period: '2024-01' }))).status === 403,
    );

    c.record('profile isolation (HTTP API)');
    expect(c.failed).toEqual([]);
  });
});

describe('security: secrets are read only for registered profiles', () => {
  it('answers 404 or 400 to unregistered, prototype-named and ARN-shaped profiles without reading any secret, and the workers refuse a job record naming an unregistered profile before reading one', async () => {
    const c = new Checks();
    const context = h.apiContext();
    const before = secretCalls().length;
    for (const [profile, status] of [
      ['nobody', 404],
      ['constructor', 404],
      ['toString', 404],
      ['hasOwnProperty', 404],
      ['__proto__', 400],
      [secretArnOf('acme'), 400],
      ['pbs/acme-AbCdEf', 400],
    ] as const) {
      const answer = await callApi(await postEvent({ profile, period: '2025-01' }), context);
      c.ok(`POST ${profile} answers ${status}`, answer.status === status, answer.status < 300);
    }
    const smuggled = await callApi(
      await postEvent({ profile: 'acme', period: '2025-01', secretArn: secretArnOf('demo') }),
      context,
    );
    c.ok('a secretArn field is refused (400)', smuggled.status === 400, smuggled.status < 300);
    c.ok('the HTTP API read no secret at all', secretCalls().length === before, true);

    // Job records the API would never write: forged straight into the store.
    const legit = await callApi(
      await postEvent({ profile: 'acme', period: '2025-09', formats: ['csv'] }),
      context,
    );
    const legitId = String(legit.body.jobId);
    const workers: WorkerContext = h.workerContext({
      slots: createProfileSlots({ client: h.client, bucket: h.bucket, registry: h.registry, now: h.now }),
    });
    await createPlanHandler(workers)({ jobId: legitId });
    const plan = await h.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: KEYS.plan(legitId) }));
    const planJson = JSON.parse((await plan.Body?.transformToString()) ?? '{}') as { jobId: string };
    const forged: JobRecord = {
      jobId: jobIdFor('intruder', 'forged'),
      profile: 'intruder',
      request: parseExportRequest({ profile: 'intruder', period: '2025-09' }),
      state: 'queued',
      source: 'api',
      idempotencyKey: 'forged',
      createdAt: NOW.toISOString(),
      updatedAt: NOW.toISOString(),
    };
    await h.jobs.create(forged);
    await h.client.send(
      new PutObjectCommand({
        Bucket: h.bucket,
        Key: KEYS.plan(forged.jobId),
        Body: JSON.stringify({ ...planJson, jobId: forged.jobId }),
      }),
    );
    const afterLegit = secretCalls().length;
    for (const [task, run] of [
      ['plan', () => createPlanHandler(workers)({ jobId: forged.jobId })],
      ['fetch-shard', () => createFetchShardHandler(workers)({ jobId: forged.jobId, shard: 0 })],
      ['finish', () => createFinishHandler(workers)({ jobId: forged.jobId })],
    ] as const) {
      const error = await (run as () => Promise<unknown>)().then(
        () => null,
        (thrown: unknown) => thrown as Error,
      );
      c.ok(
        `${task} of the forged job fails with UnknownProfileError`,
        error?.name === 'UnknownProfileError',
        error === null,
      );
      c.ok(`${task}'s error names no secret ARN`, !String(error?.message).includes('arn:'), true);
    }
    c.ok('the workers read no secret for the forged job', secretCalls().length === afterLegit, true);
    const registered = new Set(Object.values(h.registry).map((profile) => profile.secretArn));
    c.ok(
      'every secret read in this file is a registered one',
      secretCalls().every((arn) => registered.has(arn)),
      true,
    );

    c.record('secrets of unregistered profiles');
    expect(c.failed).toEqual([]);
  });
});

describe('security: presigned download links', () => {
  const EXPIRY = 900;
  const S3_SECRET = 'S3RVER';
  let files: { name: string; key: string; sha256: string; url: string }[];
  let jobId: string;
  let signedAt: Date;

  beforeAll(async () => {
    // Signed at the real time, so s3rver (which checks expiry against its own clock) can judge.
    signedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
    h.setNow(signedAt);
    const created = await callApi(
      await postEvent({ profile: 'acme', period: '2025-10', formats: ['csv', 'xlsx'] }),
      h.apiContext(),
    );
    jobId = String(created.body.jobId);
    await runExport(jobId);
    const answer = await callApi(await getEvent(jobId), h.apiContext({ linkExpirySeconds: EXPIRY }));
    // The answer names files; their keys are in the job record.
    const keys = new Map((await h.jobs.require(jobId)).result?.files.map((file) => [file.name, file.key]));
    files = (answer.body.files as Omit<(typeof files)[number], 'key'>[]).map((file) => ({
      ...file,
      key: keys.get(file.name) ?? '',
    }));
  });

  it('gives each file a link for exactly its key, signed over host only, expiring after linkExpirySeconds, that downloads it', async () => {
    const c = new Checks();
    c.ok('the job lists files', files.length >= 3);
    for (const file of files) {
      const url = new URL(file.url);
      const params = Object.fromEntries(url.searchParams);
      c.ok(
        `${file.name}: path is exactly bucket/key`,
        decodeURIComponent(url.pathname) === `/${h.bucket}/${file.key}`,
      );
      c.ok(`${file.name}: X-Amz-Expires is ${EXPIRY}`, params['X-Amz-Expires'] === String(EXPIRY));
      c.ok(`${file.name}: signed headers: host only`, params['X-Amz-SignedHeaders'] === 'host');
      c.ok(`${file.name}: SigV4`, params['X-Amz-Algorithm'] === 'AWS4-HMAC-SHA256');
      c.ok(
        `${file.name}: signed at the API's clock`,
        params['X-Amz-Date'] ===
          signedAt
            .toISOString()
            .replace(/[-:]/g, '')
            .replace(/\.\d{3}/, ''),
      );
      c.ok(
        `${file.name}: only the expected parameters`,
        Object.keys(params).sort().join() ===
          [
            'X-Amz-Algorithm',
            'X-Amz-Content-Sha256',
            'X-Amz-Credential',
            'X-Amz-Date',
            'X-Amz-Expires',
            'X-Amz-Signature',
            'X-Amz-SignedHeaders',
            'response-content-disposition',
            'x-id',
          ].join(),
      );
      c.ok(`${file.name}: the signature verifies`, verifyPresignedUrl(file.url, S3_SECRET, signedAt).valid);
      const download = await fetch(file.url);
      const bytes = Buffer.from(await download.arrayBuffer());
      c.ok(`${file.name}: downloads (200)`, download.status === 200);
      c.ok(
        `${file.name}: the bytes are the file's`,
        createHash('sha256').update(bytes).digest('hex') === file.sha256,
      );
    }
    c.record('presigned links');
    expect(c.failed).toEqual([]);
  });

  it('refuses a link whose key, method or expiry was changed: the recomputed SigV4 signature differs (s3rver itself does not verify V4 signatures and serves the altered key)', async () => {
    const c = new Checks();
    const [first, second] = files;
    if (first === undefined || second === undefined) throw new Error('expected two files');
    c.ok(
      'the genuine link verifies (the check reproduces S3)',
      verifyPresignedUrl(first.url, S3_SECRET, signedAt).valid,
    );
    const targets = [second.key, KEYS.job(jobId), 'reports/demo/2025-10/other/demo_2025-10_transactions.csv'];
    for (const key of targets) {
      const altered = new URL(first.url);
      altered.pathname = `/${h.bucket}/${key}`;
      const verdict = verifyPresignedUrl(altered.toString(), S3_SECRET, signedAt);
      c.ok(`another key (${key}) fails the signature`, verdict.reason === 'signature', verdict.valid);
    }
    c.ok(
      'a PUT with the link fails the signature',
      verifyPresignedUrl(first.url, S3_SECRET, signedAt, 'PUT').reason === 'signature',
    );
    const longer = new URL(first.url);
    longer.searchParams.set('X-Amz-Expires', '604800');
    c.ok(
      'a stretched X-Amz-Expires fails the signature',
      verifyPresignedUrl(longer.toString(), S3_SECRET, signedAt).reason === 'signature',
    );
    // What s3rver does with the altered key: it serves it (no V4 verification), so it proves nothing.
    const altered = new URL(first.url);
    altered.pathname = `/${h.bucket}/${second.key}`;
    const served = await fetch(altered);
    expect(served.status, 's3rver started verifying V4 signatures: assert its refusal here').toBe(200);
    c.record('presigned links');
    expect(c.failed).toEqual([]);
  });

  it('refuses an expired link: s3rver answers 403 "Request has expired" and the signature check says expired', async () => {
    const c = new Checks();
    const past = new Date(signedAt.getTime() - 2 * EXPIRY * 1000);
    h.setNow(past);
    const answer = await callApi(await getEvent(jobId), h.apiContext({ linkExpirySeconds: EXPIRY }));
    const expired = (answer.body.files as typeof files)[0];
    if (expired === undefined) throw new Error('no file');
    const download = await fetch(expired.url);
    const text = await download.text();
    c.ok('s3rver refuses the expired link with 403', download.status === 403, download.status === 200);
    c.ok('s3rver says the request has expired', text.includes('Request has expired'));
    c.ok(
      'the link is genuine but expired',
      verifyPresignedUrl(expired.url, S3_SECRET, new Date()).reason === 'expired',
    );
    c.ok(
      'linksExpireAt is signing time + linkExpirySeconds',
      answer.body.linksExpireAt === new Date(past.getTime() + EXPIRY * 1000).toISOString(),
    );
    c.record('presigned links');
    expect(c.failed).toEqual([]);
  });
});

describe('security: no secret in logs, errors, records, files or CLI output', () => {
  it('finds no API key, API secret or request signature anywhere after a succeeded job, two failed jobs and two CLI runs', async () => {
    const c = new Checks();
    const sources: ScanSource[] = [];
    const errors: unknown[] = [];
    const keep = (name: string, text: string) => sources.push({ name, text });
    const acme = h.simulator.profiles.find((profile) => profile.name === 'acme');
    if (acme === undefined) throw new Error('no acme profile');
    const wrongSecret = 'sk_wrong_5d1e0c9b8a7f6e5d4c3b2a1908f7e6d5';
    h.registry.rotated = { secretArn: secretArnOf('rotated'), timeZone: 'UTC', monthly: false };
    h.secrets
      .on(GetSecretValueCommand, { SecretId: secretArnOf('rotated') })
      .resolves({ SecretString: JSON.stringify({ apiKey: acme.apiKey, apiSecret: wrongSecret }) });
    const api = h.apiContext();
    const answer = async (event: Promise<APIGatewayProxyEventV2>) => {
      const result = await callApi(await event, api);
      keep(`API answer ${result.status}`, result.raw);
      return result;
    };
    const failJob = async (jobId: string, context: WorkerContext) => {
      try {
        await runExport(jobId, context);
      } catch (error) {
        errors.push(error);
        const failure = error as Error;
        await createFailHandler(context)({
          jobId,
          error: {
            Error: failure.name,
            Cause: JSON.stringify({
              errorType: failure.name,
              errorMessage: failure.message,
              trace: failure.stack?.split('\n'),
            }),
          },
        });
      }
    };

    const output = captureOutput();
    // console.* goes to vitest's reporter, not process.stdout, inside a test: capture it as well
    // (the service client's default logger warns through console).
    const consoleLines: string[] = [];
    const consoleMethods = ['log', 'info', 'warn', 'error', 'debug'] as const;
    const originalConsole = consoleMethods.map((method) => console[method]);
    for (const method of consoleMethods) {
      console[method] = (...args: unknown[]) => {
        consoleLines.push(args.map((arg) => (typeof arg === 'string' ? arg : JSON.stringify(arg))).join(' '));
      };
    }
    let cliDir = '';
    const cli: string[] = [];
    try {
      // 1. A succeeded job with every report, the changes timeline included (finish calls the service).
      const ok = await answer(
        postEvent({
          profile: 'acme',
          period: '2025',
          formats: ['csv', 'xlsx'],
          reports: ['transactions', 'movements', 'summary', 'changes'],
          changesSince: '2025-06-01',
        }),
      );
      await runExport(String(ok.body.jobId));
      await answer(getEvent(String(ok.body.jobId)));
      await answer(listEvent('acme'));
      // 2. A job failing on the service's 500s (few retries), marked failed as MarkFailed does.
      h.simulator.setFaults({ serverError: { rate: 1 } });
      const failing = await answer(postEvent({ profile: 'demo', period: '2025-03' }));
      await failJob(
        String(failing.body.jobId),
        h.workerContext({
          services: h.servicesWith({ retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 } }),
        }),
      );
      h.simulator.setFaults({});
      await answer(getEvent(String(failing.body.jobId)));
      // 3. A job whose secret is wrong: every request answers 401 invalid_signature.
      const rotated = await answer(postEvent({ profile: 'rotated', period: '2025-04' }));
      await failJob(String(rotated.body.jobId), h.workerContext());
      await answer(getEvent(String(rotated.body.jobId)));
      // 4. The CLI against the same service: a run to a folder, and a run with a wrong secret.
      cliDir = await mkdtemp(join(tmpdir(), 'pbs-security-cli-'));
      for (const secret of [acme.apiSecret, wrongSecret]) {
        const io: CliIo = {
          stdout: { write: (text: string) => cli.push(text) },
          stderr: { write: (text: string) => cli.push(text) },
          env: {
            PBS_BASE_URL: h.simulator.url,
            PBS_API_KEY: acme.apiKey,
            PBS_API_SECRET: secret,
            PBS_PROFILE_GUID: acme.profileGuid,
          },
          now: () => new Date(),
        };
        const code = await main(['run', '--profile', 'acme', '--period', '2025-10', '--out', cliDir], io);
        cli.push(`exit ${code}\n`);
      }
    } finally {
      output.stop();
      for (const [index, method] of consoleMethods.entries()) {
        console[method] = originalConsole[index] as (typeof console)[typeof method];
      }
    }
    keep('log output of the handlers and the CLI', output.text());
    keep('console output', consoleLines.join('\n'));
    keep('CLI stdout and stderr', cli.join(''));
    c.ok('the failed jobs threw', errors.length === 2);
    for (const [index, error] of errors.entries()) {
      const chain: string[] = [];
      for (let current: unknown = error; current instanceof Error; current = current.cause) {
        chain.push(`${current.name}: ${current.message}\n${current.stack ?? ''}`);
      }
      keep(`error ${index + 1} with its causes and stacks`, chain.join('\n'));
    }
    c.ok(
      'the CLI run with the right secret exited 0, the other 1',
      cli.includes('exit 0\n') && cli.includes('exit 1\n'),
    );
    // Everything in the bucket: job records, index markers, plans, parts, reports, manifests.
    let token: string | undefined;
    const keys: string[] = [];
    do {
      const page = await h.s3.client.send(
        new ListObjectsV2Command({ Bucket: h.bucket, ContinuationToken: token }),
      );
      keys.push(...(page.Contents ?? []).map((object) => object.Key ?? ''));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token !== undefined);
    for (const key of keys) {
      const object = await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: key }));
      sources.push(
        ...expandFile(`s3://${key}`, Buffer.from((await object.Body?.transformToByteArray()) ?? [])),
      );
    }
    const cliFiles = (await readdir(cliDir, { recursive: true, withFileTypes: true })).filter((entry) =>
      entry.isFile(),
    );
    for (const entry of cliFiles) {
      const path = join(entry.parentPath, entry.name);
      sources.push(...expandFile(`cli:${relative(cliDir, path)}`, await readFile(path)));
    }
    await rm(cliDir, { recursive: true, force: true });
    c.ok(
      'the bucket holds job records, parts, reports and manifests',
      ['jobs/', 'work/', 'reports/'].every((p) => keys.some((k) => k.startsWith(p))),
    );
    c.ok('the CLI wrote its files', cliFiles.length >= 3);

    const signatures = [
      ...new Set(
        h.simulator.requestLog.flatMap((entry) =>
          entry.query.filter(([name]) => name === 'signature').map(([, value]) => value),
        ),
      ),
    ];
    c.ok('the service received signed requests', signatures.length >= 10);
    const needles = [
      ...h.simulator.profiles.flatMap((profile) => [
        { label: `${profile.name} apiKey`, value: profile.apiKey },
        { label: `${profile.name} apiSecret`, value: profile.apiSecret },
      ]),
      { label: 'rotated apiSecret', value: wrongSecret },
      ...signatures.map((value, index) => ({ label: `signature #${index + 1}`, value })),
    ];
    // The scan can fail: a secret planted as is, URL-encoded, base64, or a signature inside a longer hex run.
    const signature = signatures[0] ?? '';
    const planted = [
      { name: 'planted secret', text: `x ${acme.apiSecret} y` },
      { name: 'planted url-encoded', text: `q=${encodeURIComponent(wrongSecret)}` },
      { name: 'planted base64', text: Buffer.from(acme.apiKey).toString('base64') },
      { name: 'planted signature', text: `ab${signature.toUpperCase()}cd` },
    ];
    c.ok('the scan finds planted secrets', findLeaks(planted, needles).leaks.length === planted.length);
    c.ok('the handlers logged (output was captured)', output.text().includes('invocation succeeded'));
    const scan = findLeaks(sources, needles);
    c.count += scan.checks;
    c.leaks += scan.leaks.length;
    if (scan.leaks.length > 0) c.failed.push(...scan.leaks.map((leak) => `${leak.needle} in ${leak.source}`));
    console.log(
      `secret scan: ${sources.length} texts (${Math.round(sources.reduce((n, s) => n + s.text.length, 0) / 1024)} KiB) × ${needles.length} secrets (${signatures.length} signatures): ${scan.leaks.length} leaks`,
    );
    c.record('secrets in outputs');
    expect(c.failed).toEqual([]);
  });
});

describe('security: IAM of the synthesized stack (cdk-nag: see test/infra/cdk-synth.e2e.ts and stack.test.ts)', () => {
  interface Statement {
    Effect: string;
    Action?: string | string[];
    NotAction?: unknown;
    Resource?: unknown;
    NotResource?: unknown;
    Principal?: unknown;
    Condition?: Record<string, Record<string, unknown>>;
  }
  const asArray = <T>(value: T | T[] | undefined): T[] =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];
  /** Actions AWS offers no resource-level permission for (X-Ray, log delivery of Step Functions). */
  const NO_RESOURCE_LEVEL = new Set([
    'xray:PutTraceSegments',
    'xray:PutTelemetryRecords',
    'xray:GetSamplingRules',
    'xray:GetSamplingTargets',
    'logs:CreateLogDelivery',
    'logs:DeleteLogDelivery',
    'logs:DescribeLogGroups',
    'logs:DescribeResourcePolicies',
    'logs:GetLogDelivery',
    'logs:ListLogDeliveries',
    'logs:PutResourcePolicy',
    'logs:UpdateLogDelivery',
  ]);

  it('grants no wildcard action, reads exactly the registered secrets, writes S3 only under prefixes, and trusts only AWS services', () => {
    const c = new Checks();
    const { template } = synthesize();
    const resources = template.toJSON().Resources as Record<
      string,
      { Type: string; Properties: Record<string, unknown> }
    >;
    const statements: { owner: string; statement: Statement }[] = [];
    const trust: { owner: string; statement: Statement }[] = [];
    for (const [id, resource] of Object.entries(resources)) {
      const documents: unknown[] = [];
      if (resource.Type === 'AWS::IAM::Policy') documents.push(resource.Properties.PolicyDocument);
      if (resource.Type === 'AWS::IAM::Role') {
        for (const inline of (resource.Properties.Policies as { PolicyDocument: unknown }[] | undefined) ??
          []) {
          documents.push(inline.PolicyDocument);
        }
        for (const statement of (resource.Properties.AssumeRolePolicyDocument as { Statement: Statement[] })
          .Statement) {
          trust.push({ owner: id, statement });
        }
        c.ok(`${id}: no managed policy attached`, resource.Properties.ManagedPolicyArns === undefined);
      }
      if (/^AWS::(S3::Bucket|SQS::Queue)Policy$/.test(resource.Type))
        documents.push(resource.Properties.PolicyDocument);
      for (const document of documents) {
        for (const statement of (document as { Statement: Statement[] }).Statement)
          statements.push({ owner: id, statement });
      }
    }
    const allows = statements.filter(({ statement }) => statement.Effect === 'Allow');
    c.ok('the template has Allow statements to check', allows.length > 20);
    const registered = Object.values(TEST_CONFIG.profiles)
      .map((profile) => profile.secretArn)
      .sort();
    c.ok(
      'the registered secrets are the test ARNs',
      registered.join() === ['acme', 'demo', 'empty'].map(testSecretArn).sort().join(),
    );
    const BUCKET_ACTIONS = new Set(['s3:ListBucket', 's3:GetBucketObjectLockConfiguration']);
    const bucketPrefix =
      /^\{"Fn::Join":\["",\[\{"Fn::GetAtt":\["(Reports|AccessLogs)[0-9A-F]{8}","Arn"\]\},"\/(jobs|work|reports|locks|_staging|rates|reports-bucket|adjustments|closes|restatements)\/\*"\]\]\}$/;
    for (const { owner, statement } of allows) {
      const actions = asArray(statement.Action);
      const label = `${owner} ${actions.join(',')}`;
      c.ok(
        `${label}: no NotAction/NotResource`,
        statement.NotAction === undefined && statement.NotResource === undefined,
      );
      c.ok(
        `${label}: no * or service:* action`,
        actions.every((action) => action !== '*' && !action.endsWith(':*')),
      );
      if (asArray(statement.Resource).includes('*')) {
        c.ok(
          `${label}: Resource * only for actions without resource-level permissions`,
          actions.every((action) => NO_RESOURCE_LEVEL.has(action)),
        );
      }
      if (actions.some((action) => action.startsWith('secretsmanager:'))) {
        c.ok(`${label}: only GetSecretValue`, actions.join() === 'secretsmanager:GetSecretValue');
        c.ok(
          `${label}: exactly the registered secrets`,
          asArray(statement.Resource).map(String).sort().join() === registered.join(),
          true,
        );
      }
      // Bucket-level actions name the bucket itself: listing (under s3:prefix, below) and reading
      // its Object Lock configuration (a close applies retention only where the bucket has it).
      const objectActions = actions.filter(
        (action) => action.startsWith('s3:') && !BUCKET_ACTIONS.has(action),
      );
      if (actions.includes('s3:GetBucketObjectLockConfiguration')) {
        c.ok(
          `${label}: the Object Lock configuration of the reports bucket only`,
          asArray(statement.Resource).every((resource) =>
            /^\{"Fn::GetAtt":\["Reports[0-9A-F]{8}","Arn"\]\}$/.test(JSON.stringify(resource)),
          ),
        );
      }
      if (objectActions.length > 0) {
        c.ok(
          `${label}: objects only under a prefix`,
          asArray(statement.Resource).every((resource) => bucketPrefix.test(JSON.stringify(resource))),
        );
      }
      if (actions.includes('s3:ListBucket')) {
        c.ok(
          `${label}: listing only under s3:prefix`,
          statement.Condition?.StringLike?.['s3:prefix'] !== undefined,
        );
      }
      if (statement.Principal !== undefined) {
        c.ok(
          `${label}: a bucket policy grants only an AWS service`,
          JSON.stringify(statement.Principal).startsWith('{"Service":'),
        );
      }
    }
    for (const { owner, statement } of trust) {
      const principal = statement.Principal as { Service?: string } | undefined;
      c.ok(
        `${owner}: assumed only by a service of this stack`,
        ['lambda.amazonaws.com', 'states.amazonaws.com', 'scheduler.amazonaws.com'].includes(
          principal?.Service ?? '',
        ),
        true,
      );
    }
    for (const [id, resource] of Object.entries(resources)) {
      if (resource.Type !== 'AWS::Lambda::Permission') continue;
      c.ok(
        `${id}: invocation limited to this API (SourceArn)`,
        resource.Properties.SourceArn !== undefined,
        true,
      );
    }
    c.record('IAM least privilege');
    expect(c.failed).toEqual([]);
  });
});
