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
import { PutObjectCommand } from '@aws-sdk/client-s3';
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

/** `POST /reports/{jobId}/archive` as API Gateway hands it to the function. */
async function archive(jobId: string) {
  const event = await loadEvent<APIGatewayProxyEventV2>('get-report.json');
  event.routeKey = 'POST /reports/{jobId}/archive';
  event.rawPath = `/reports/${jobId}/archive`;
  event.pathParameters = { jobId };
  event.requestContext.http.method = 'POST';
  event.requestContext.http.path = event.rawPath;
  const result = (await createApiHandler(h.apiContext())(event)) as APIGatewayProxyStructuredResultV2;
  return { status: result.statusCode, body: JSON.parse(result.body ?? 'null') as Record<string, unknown> };
}

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
