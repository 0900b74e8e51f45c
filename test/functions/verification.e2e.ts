/**
 * `GET /reports/{jobId}/verification` over real HTTP on loopback, as `npm run serve` serves it
 * (s3rver for S3): two months exported through the local state machine chain in the bucket, the
 * later job's verdict holds and follows the chain to the earlier set, a byte changed in the earlier
 * set makes it fail naming the file, and a caller of another profile gets 404.
 */
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

let service: LocalService;
let s3: S3Client;
const jobs: JobRecord[] = [];

async function exportMonth(period: string, more: Record<string, unknown> = {}): Promise<JobRecord> {
  const started = await fetch(`${service.url}/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ profile: 'demo', period, reports: ['transactions'], formats: ['csv'], ...more }),
  });
  expect(started.status).toBe(202);
  const { jobId } = (await started.json()) as { jobId: string };
  await service.starter.idle();
  const stored = await service.jobs.get(jobId);
  expect(stored?.state).toBe('succeeded');
  return stored as JobRecord;
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  s3 = new S3Client({
    region: 'us-east-1',
    endpoint: service.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  jobs.push(await exportMonth('2024-01'), await exportMonth('2024-02'));
}, 180_000);
afterAll(async () => {
  await service?.close();
});

interface Verdict {
  holds: boolean;
  sets: { prefix: string; holds: boolean; findings: { holds: boolean; text: string }[] }[];
}

async function verification(job: JobRecord, profiles: string[] = ['demo']) {
  const response = await fetch(`${service.url}/reports/${job.jobId}/verification`, {
    headers: { authorization: `Bearer ${await service.devToken(profiles)}` },
  });
  return { status: response.status, body: (await response.json()) as Verdict & { error?: { code: string } } };
}

const resultOf = (job: JobRecord) => job.result as NonNullable<JobRecord['result']>;

describe("a set's reconciliation in its job", () => {
  it('is carried by a gains job (reconciled on the demo) and absent from a transactions-only job', async () => {
    const gains = await exportMonth('2024-03', {
      reports: ['transactions', 'gains'],
      gains: { taxRules: 'us' },
    });
    const answer = await fetch(`${service.url}/reports/${gains.jobId}`, {
      headers: { authorization: `Bearer ${await service.devToken(['demo'])}` },
    });
    const body = (await answer.json()) as { reconciliation?: { status: string; note: string } };
    expect(body.reconciliation?.status).toBe('reconciled');
    expect(body.reconciliation?.note).toMatch(/reconcil/);
    const plain = await fetch(`${service.url}/reports/${(jobs[0] as JobRecord).jobId}`, {
      headers: { authorization: `Bearer ${await service.devToken(['demo'])}` },
    });
    expect(((await plain.json()) as Record<string, unknown>).reconciliation).toBeUndefined();
  });
});

describe('a set verified from the API', () => {
  it('holds for the later month, and follows its chain to the earlier month’s set', async () => {
    const answer = await verification(jobs[1] as JobRecord);
    expect(answer.status).toBe(200);
    expect(answer.body.holds).toBe(true);
    expect(answer.body.sets.map((set) => set.prefix)).toEqual([
      resultOf(jobs[1] as JobRecord).prefix,
      resultOf(jobs[0] as JobRecord).prefix,
    ]);
    const texts = answer.body.sets[0]?.findings.map((finding) => finding.text) ?? [];
    expect(texts).toContain(
      `continues the previous set ${resultOf(jobs[0] as JobRecord).prefix} (2024-01), its manifest unchanged`,
    );
  });

  it('refuses a caller of another profile: 404, no verdict', async () => {
    const answer = await verification(jobs[1] as JobRecord, ['acme']);
    expect(answer.status).toBe(404);
    expect(answer.body.error?.code).toBe('job_not_found');
  });

  it('fails, naming the file, once a byte of the earlier set changed in the bucket', async () => {
    const earlier = resultOf(jobs[0] as JobRecord);
    const csv = earlier.files.find((file) => file.name.endsWith('_transactions.csv'));
    expect(csv).toBeDefined();
    const key = (csv as { key: string }).key;
    const got = await s3.send(new GetObjectCommand({ Bucket: service.bucket, Key: key }));
    const bytes = Buffer.from(
      await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 2) ^ 1, bytes.length - 2);
    await s3.send(new PutObjectCommand({ Bucket: service.bucket, Key: key, Body: bytes }));
    const answer = await verification(jobs[1] as JobRecord);
    expect(answer.status).toBe(200);
    expect(answer.body.holds).toBe(false);
    expect(answer.body.sets[0]?.holds).toBe(true);
    const failed = answer.body.sets[1]?.findings
      .filter((finding) => !finding.holds)
      .map((finding) => finding.text);
    const name = (csv as { name: string }).name;
    expect(failed?.some((text) => text.startsWith(`${name}: changed since it was published`))).toBe(true);
  });
});
