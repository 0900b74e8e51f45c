/**
 * "Download all" through the Lambda handler (API Gateway HTTP API events), as deployed: a set
 * larger than one part (5 MiB) is zipped through a multipart upload, read back with Debian's
 * `unzip`, and a file altered after its run gets no zip at all.
 */
import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { createApiHandler } from '../../lib/lambda/index.ts';
import { loadEvent, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
let dir: string;
beforeAll(async () => {
  h = await startWorkflowHarness();
  dir = mkdtempSync(join(tmpdir(), 'archive-lambda-'));
});
afterAll(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/**
 * A finished set written straight into the bucket as a finish leaves it: its files, a manifest
 * listing their sizes and SHA-256, and a succeeded job naming them all (the manifest last) but
 * `unnamed`.
 */
async function storedSet(jobId: string, files: Record<string, Buffer>, unnamed?: string): Promise<JobRecord> {
  const prefix = `reports/demo/2024-02/r-${jobId.slice(0, 6)}`;
  const listed = Object.entries(files).map(([name, body]) => ({
    name,
    key: `${prefix}/${name}`,
    bytes: body.length,
    sha256: sha256(body),
  }));
  const manifest = Buffer.from(JSON.stringify({ format: 'pbs-export/manifest@1', files: listed }));
  for (const [name, body] of [...Object.entries(files), ['manifest.json', manifest] as const]) {
    await h.client.send(new PutObjectCommand({ Bucket: h.bucket, Key: `${prefix}/${name}`, Body: body }));
  }
  const at = h.now().toISOString();
  const job: JobRecord = {
    jobId,
    profile: 'demo',
    request: parseExportRequest({ profile: 'demo', period: '2024-02' }),
    state: 'succeeded',
    source: 'api',
    idempotencyKey: `test:${jobId}`,
    createdAt: at,
    updatedAt: at,
    result: {
      runId: `r-${jobId.slice(0, 6)}`,
      prefix,
      files: [
        ...listed.filter((file) => file.name !== unnamed),
        {
          name: 'manifest.json',
          key: `${prefix}/manifest.json`,
          bytes: manifest.length,
          sha256: sha256(manifest),
        },
      ],
    },
  };
  await h.jobs.create(job);
  return job;
}

type ApiHandler = ReturnType<typeof createApiHandler>;

/** `POST /reports/{jobId}/archive` as API Gateway hands it to the function (`handler`: one container's). */
async function archive(jobId: string, handler: ApiHandler = createApiHandler(h.apiContext())) {
  const event = await loadEvent<APIGatewayProxyEventV2>('get-report.json');
  event.routeKey = 'POST /reports/{jobId}/archive';
  event.rawPath = `/reports/${jobId}/archive`;
  event.pathParameters = { jobId };
  event.requestContext.http.method = 'POST';
  event.requestContext.http.path = event.rawPath;
  const result = (await handler(event)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') as Record<string, unknown> };
}

/** The function's S3 client, recording each command it sends with its key. */
function recordingClient(): { client: S3Client; sent: { command: string; key: string }[] } {
  const client = h.s3.createClient();
  const sent: { command: string; key: string }[] = [];
  client.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push({
        command: context.commandName ?? '',
        key: String((args.input as { Key?: unknown }).Key ?? ''),
      });
      return next(args);
    },
    { step: 'initialize', name: 'recordCommands' },
  );
  return { client, sent };
}

/** The commands that write the zip (a PUT, or the start of a multipart upload). */
const zipWrites = (sent: readonly { command: string; key: string }[], jobId: string) =>
  sent.filter(
    (call) =>
      call.key.startsWith(`work/${jobId}/archive/`) &&
      (call.command === 'PutObjectCommand' || call.command === 'CreateMultipartUploadCommand'),
  );

describe('download all on Lambda', () => {
  it('zips a set larger than one upload part; unzip finds every file byte for byte', async () => {
    // Random bytes do not compress: the zip is over 5 MiB, so it is uploaded in several parts.
    const files = { 'big.bin': randomBytes(6 * 1024 * 1024), 'demo_2024-02.csv': Buffer.from('a,b\n1,2\n') };
    const job = await storedSet('6'.repeat(32), files);

    const answer = await archive(job.jobId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.name).toBe(`demo_2024-02_${job.result?.runId}.zip`);
    const download = await fetch(String(answer.body.url));
    expect(download.status).toBe(200);
    const bytes = Buffer.from(await download.arrayBuffer());
    expect(bytes.length).toBeGreaterThan(5 * 1024 * 1024);
    expect(answer.body.bytes).toBe(bytes.length);

    const zip = join(dir, 'set.zip');
    writeFileSync(zip, bytes);
    const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listed).toEqual(['big.bin', 'demo_2024-02.csv', 'manifest.json']);
    for (const file of job.result?.files ?? []) {
      const inside = execFileSync('unzip', ['-p', zip, file.name], { maxBuffer: 64 * 1024 * 1024 });
      expect(sha256(inside), file.name).toBe(file.sha256);
    }
  });

  it('stores no zip and answers 500 naming the file when a large file was altered after its run', async () => {
    const big = randomBytes(6 * 1024 * 1024);
    const job = await storedSet('7'.repeat(32), {
      'demo_2024-02.csv': Buffer.from('a\n1\n'),
      'big.bin': big,
    });
    const altered = Buffer.from(big);
    altered[altered.length - 1] = (altered[altered.length - 1] ?? 0) ^ 0xff;
    const key = `${job.result?.prefix}/big.bin`;
    await h.client.send(new PutObjectCommand({ Bucket: h.bucket, Key: key, Body: altered }));

    const answer = await archive(job.jobId);
    expect(answer.status, JSON.stringify(answer.body)).toBe(500);
    expect(answer.body).not.toHaveProperty('url');
    const error = answer.body.error as { code: string; message: string };
    expect(error.code).toBe('archive_failed');
    expect(error.message).toContain('big.bin');
    expect(await h.keysUnder(`work/${job.jobId}/archive/`)).toEqual([]);
  });

  it('answers 500 naming a file the manifest lists but the job does not, rather than a zip without it', async () => {
    const files = {
      'demo_2024-02.csv': Buffer.from('a\n1\n'),
      'demo_2024-02.pdf': Buffer.from('%PDF-1.7\n'),
    };
    const job = await storedSet('8'.repeat(32), files, 'demo_2024-02.pdf');

    const answer = await archive(job.jobId);
    expect(answer.status).toBe(500);
    expect((answer.body.error as { message: string }).message).toContain('demo_2024-02.pdf');
    expect(await h.keysUnder(`work/${job.jobId}/archive/`)).toEqual([]);
  });
});

describe('download all, built once per set', () => {
  const files = () => ({
    'demo_2024-02.xlsx': randomBytes(64 * 1024),
    'demo_2024-02.csv': Buffer.from('a,b\n1,2\n'),
    'demo_2024-02_snapshot.ndjson.gz': randomBytes(32 * 1024),
  });

  it('answers a second click with the zip the first one stored, reading none of the set again', async () => {
    const job = await storedSet('a'.repeat(32), files());
    const { client, sent } = recordingClient();
    const handler = createApiHandler(h.apiContext({ s3: client }));

    const first = await archive(job.jobId, handler);
    const afterFirst = sent.length;
    const second = await archive(job.jobId, handler);
    const secondCalls = sent.slice(afterFirst);

    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect(zipWrites(sent, job.jobId)).toHaveLength(1);
    // The second click only looks: no file of the set read, nothing written.
    expect(
      secondCalls.filter(
        (call) => call.command !== 'HeadObjectCommand' && call.command !== 'GetObjectCommand',
      ),
    ).toEqual([]);
    expect(
      secondCalls.filter((call) => call.command === 'GetObjectCommand' && call.key.startsWith('reports/')),
    ).toEqual([]);
    expect(second.body.bytes).toBe(first.body.bytes);
    const zip = join(dir, 'again.zip');
    writeFileSync(zip, Buffer.from(await (await fetch(String(second.body.url))).arrayBuffer()));
    const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listed).toEqual([...Object.keys(files()), 'manifest.json'].sort());
    for (const file of job.result?.files ?? []) {
      expect(sha256(execFileSync('unzip', ['-p', zip, file.name])), file.name).toBe(file.sha256);
    }
  });

  it('builds one zip for two clicks at once', async () => {
    const job = await storedSet('b'.repeat(32), files());
    const { client, sent } = recordingClient();
    const handler = createApiHandler(h.apiContext({ s3: client }));

    const answers = await Promise.all([archive(job.jobId, handler), archive(job.jobId, handler)]);

    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);
    expect(zipWrites(sent, job.jobId)).toHaveLength(1);
  });

  it('offers no stored zip once a file of its set was altered after it was built: 500 naming the file', async () => {
    const job = await storedSet('c'.repeat(32), files());
    const handler = createApiHandler(h.apiContext());
    expect((await archive(job.jobId, handler)).status).toBe(200);
    const target = job.result?.files.find((file) => file.name === 'demo_2024-02.csv');
    await h.client.send(
      new PutObjectCommand({ Bucket: h.bucket, Key: target?.key, Body: Buffer.from('a,b\n1,3\n') }),
    );

    const answer = await archive(job.jobId, handler);

    expect(answer.status).toBe(500);
    expect(answer.body).not.toHaveProperty('url');
    expect((answer.body.error as { message: string }).message).toContain('demo_2024-02.csv');
  });
});
