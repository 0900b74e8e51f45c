/**
 * Closing in the portal, over real HTTP on loopback as `npm run serve` serves it: a report set
 * offers "Close this month", the close is attributed to the signed-in person and shown with who
 * and when, the client page lists the closed periods; and `serve` stopping keeps its data folder
 * once it holds a closed set (the project never deletes one).
 */
import { rm, stat } from 'node:fs/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { createS3Client } from '../../lib/storage/index.ts';

const RUN_ID = '20240201T000000Z-abc123';
let service: LocalService;
let token: string;
let closed = false;
beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  token = await service.devToken(['demo']);
  const s3 = await createS3Client({
    region: 'us-east-1',
    endpoint: service.s3Endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const prefix = `reports/demo/2024-01/${RUN_ID}`;
  await s3.send(
    new PutObjectCommand({ Bucket: service.bucket, Key: `${prefix}/manifest.json`, Body: '{"files":[]}' }),
  );
  s3.destroy();
  const at = new Date().toISOString();
  const job: JobRecord = {
    jobId: 'e'.repeat(32),
    profile: 'demo',
    request: parseExportRequest({
      profile: 'demo',
      period: '2024-01',
      reports: ['transactions'],
      formats: ['csv'],
    }),
    state: 'succeeded',
    source: 'schedule',
    idempotencyKey: 'test:close',
    createdAt: at,
    updatedAt: at,
    result: {
      runId: RUN_ID,
      prefix,
      files: [{ name: 'manifest.json', key: `${prefix}/manifest.json`, bytes: 12, sha256: 'ab'.repeat(32) }],
    },
  };
  await service.jobs.create(job);
}, 120_000);
afterAll(async () => {
  if (!closed) await service.close();
  await rm(service.s3Dir, { recursive: true, force: true });
});

const view = async () =>
  (
    await fetch(`${service.url}/portal/view/clients/demo`, { headers: { authorization: `Bearer ${token}` } })
  ).text();

describe('closing a month in the portal', () => {
  it('offers "Close this month" on a report set', async () => {
    const html = await view();
    expect(html).toContain('Close this month');
    expect(html).toContain(`value="${RUN_ID}"`);
    expect(html).toContain('No period is closed.');
  });

  it('closes it as the signed-in person and shows who closed it and when', async () => {
    const answer = await fetch(`${service.url}/portal/view/clients/demo/close`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        fields: { period: ['2024-01'], runId: [RUN_ID], reason: ['books of January done'], confirm: ['yes'] },
      }),
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-portal-location')).toBe('/portal/clients/demo#closed-periods');
    const html = await view();
    expect(html).toMatch(
      /Closed by developer on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC: books of January done\. This set is never replaced or deleted\./,
    );
    expect(html).not.toContain('Close this month');
    const listed = html.slice(html.indexOf('id="closed-periods"'));
    expect(listed).toContain('2024-01');
    expect(listed).toMatch(/Closed by developer on \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \(run/);
  });

  it('keeps the local store when serve stops, since it holds a closed set', async () => {
    closed = true;
    await service.close();
    expect((await stat(service.s3Dir)).isDirectory()).toBe(true);
  });
});
