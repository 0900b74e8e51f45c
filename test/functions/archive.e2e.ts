/**
 * "Download all" over real HTTP on loopback, as `npm run serve` serves it: the zip of a finished
 * gains set opens with Debian's `unzip`, holds every file of the manifest byte for byte, is
 * refused to a caller of another profile, and is never offered once a stored file was altered.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
let s3: S3Client;
let job: JobRecord;
let dir: string;
beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint: service.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  dir = mkdtempSync(join(tmpdir(), 'archive-test-'));
  const started = await fetch(`${service.url}/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      profile: 'demo',
      period: '2024-01',
      reports: ['transactions', 'gains'],
      formats: ['csv', 'xlsx'],
      gains: { taxRules: 'us' },
    }),
  });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  await service.starter.idle();
  const stored = await service.jobs.get(jobId);
  expect(stored?.state).toBe('succeeded');
  job = stored as JobRecord;
}, 120_000);
afterAll(async () => {
  await service?.close();
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
});

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** An object of the bucket, read straight from the store (not through the API). */
async function stored(key: string): Promise<Buffer> {
  const answer = await s3.send(new GetObjectCommand({ Bucket: service.bucket, Key: key }));
  return Buffer.from(
    await (answer.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
  );
}

/** `POST /reports/{jobId}/archive`, with a development token for `profiles` when given. */
async function archive(profiles?: string[]) {
  const headers: Record<string, string> =
    profiles === undefined ? {} : { authorization: `Bearer ${await service.devToken(profiles)}` };
  const response = await fetch(`${service.url}/reports/${job.jobId}/archive`, { method: 'POST', headers });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('download all: one zip of a finished set', () => {
  it('answers a link to a zip that unzip opens, every manifest file inside byte for byte', async () => {
    const answer = await archive(['demo']);
    expect(answer.status).toBe(200);
    const result = job.result as NonNullable<JobRecord['result']>;
    expect(answer.body.name).toBe(`demo_2024-01_${result.runId}.zip`);
    const download = await fetch(String(answer.body.url));
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toContain(
      `attachment; filename="demo_2024-01_${result.runId}.zip"`,
    );
    const zip = join(dir, 'set.zip');
    writeFileSync(zip, Buffer.from(await download.arrayBuffer()));
    execFileSync('unzip', ['-tq', zip]);

    const manifestKey = result.files.find((file) => file.name === 'manifest.json')?.key as string;
    const manifestBytes = await stored(manifestKey);
    const manifest = JSON.parse(manifestBytes.toString('utf8')) as {
      files: { name: string; sha256: string }[];
    };
    // A gains set: the manifest lists many files (the workbook among them).
    expect(manifest.files.length).toBeGreaterThan(5);
    const listed = execFileSync('unzip', ['-Z1', zip], { encoding: 'utf8' }).trim().split('\n').sort();
    expect(listed).toEqual([...manifest.files.map((file) => file.name), 'manifest.json'].sort());
    for (const file of manifest.files) {
      const inside = execFileSync('unzip', ['-p', zip, file.name], { maxBuffer: 64 * 1024 * 1024 });
      expect(sha256(inside), file.name).toBe(file.sha256);
    }
    expect(sha256(execFileSync('unzip', ['-p', zip, 'manifest.json']))).toBe(sha256(manifestBytes));
  });

  it("refuses a caller of another profile as it refuses the job's files: 404, no link", async () => {
    const answer = await archive(['acme']);
    expect(answer.status).toBe(404);
    expect(answer.body).not.toHaveProperty('url');
    expect((answer.body.error as { code: string }).code).toBe('job_not_found');
  });

  it('offers no zip once a stored file differs from the manifest (same size, one byte changed)', async () => {
    const result = job.result as NonNullable<JobRecord['result']>;
    const target = result.files.find((file) => file.name.endsWith('.xlsx')) ?? result.files[0];
    if (target === undefined) throw new Error('the set has no files');
    const bytes = await stored(target.key);
    bytes[bytes.length - 1] = (bytes[bytes.length - 1] ?? 0) ^ 0xff;
    await s3.send(new PutObjectCommand({ Bucket: service.bucket, Key: target.key, Body: bytes }));

    const answer = await archive(['demo']);
    expect(answer.status).toBe(500);
    expect(answer.body).not.toHaveProperty('url');
    const error = answer.body.error as { code: string; message: string };
    expect(error.code).toBe('archive_failed');
    expect(error.message).toContain(target.name);
  });
});
