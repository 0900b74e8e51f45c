/**
 * The practice view and "Verify this set" in a real browser (Debian's chromium via playwright-core)
 * over `npm run serve`'s stack on loopback, s3rver for S3: two months of `demo` exported through
 * the local state machine, the earlier one closed through the API. The practice view lists both
 * months newest first with their state, at phone width too; Verify shows the verdict in words,
 * and after one byte of a file changed in the bucket it names that file as changed.
 */
import { rm } from 'node:fs/promises';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { type Browser, exportThroughApi, openBrowser, serveS3, signIn } from '../support/portal.ts';

let service: LocalService;
let s3: S3Client;
let browser: Browser | undefined;
let page: Page;
let token: string;
const jobs: JobRecord[] = [];

const resultOf = (job: JobRecord | undefined) => job?.result as NonNullable<JobRecord['result']>;

/** Exports one month of `demo` (transactions as CSV) through serve's API. */
async function exportMonth(period: string): Promise<JobRecord> {
  const body = { profile: 'demo', period, reports: ['transactions'], formats: ['csv'] };
  const stored = await exportThroughApi(service, token, body);
  expect(stored.state).toBe('succeeded');
  return stored;
}

async function close(job: JobRecord): Promise<void> {
  const answer = await fetch(`${service.url}/closes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ profile: 'demo', period: job.request.period, runId: resultOf(job).runId }),
  });
  expect(answer.status).toBe(201);
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  token = await service.devToken(['demo']);
  s3 = await serveS3(service);
  jobs.push(await exportMonth('2024-01'), await exportMonth('2024-02'));
  await close(jobs[0] as JobRecord);
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, service.url);
}, 180_000);

afterAll(async () => {
  await browser?.close();
  s3?.destroy();
  await service?.close();
  if (service) await rm(service.s3Dir, { recursive: true, force: true });
});

/** The practice view's row of a month, each cell's text by its column. */
async function rowOf(period: string): Promise<Record<string, string>> {
  const cells = page.locator(`#practice-demo-${period}`).locator('th, td');
  const pairs = await cells.evaluateAll((nodes) =>
    nodes.map((node) => [node.getAttribute('data-label') ?? '', (node.textContent ?? '').trim()]),
  );
  return Object.fromEntries(pairs);
}

describe('the practice view', () => {
  it('is linked from the home page and lists both months, newest first, with the close', async () => {
    await page.getByRole('link', { name: 'Practice view' }).click();
    await page.waitForURL(`${service.url}/portal/practice`);
    await page.locator('#practice-demo-2024-01').waitFor();

    const months = await page
      .locator('.practice-table tbody th')
      .evaluateAll((nodes) => nodes.map((node) => node.textContent));
    expect(months).toEqual(['2024-02', '2024-01']);
    const january = await rowOf('2024-01');
    const february = await rowOf('2024-02');
    expect(january.Exported).toContain(resultOf(jobs[0]).runId);
    expect(february.Exported).toContain(resultOf(jobs[1]).runId);
    expect(january.Closed).toMatch(/^✓ closed by developer, \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/);
    expect(february.Closed).toBe('not closed');
    expect(january['Changed since close']).toBe('no');
    // No reconciliation is recorded with these sets: "not yet", never a tick.
    expect(february.Reconciled).toBe('— not yet');
    // Nothing verified on load: a button per month, no verdict yet.
    expect(await page.locator('[data-verdict-result]').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Verify' }).count()).toBe(2);
  });

  it('is usable at phone width: nothing wider than the screen, each cell named', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    await page.locator('#practice-demo-2024-01').waitFor();
    const width = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
          .documentElement.scrollWidth,
    );
    expect(width).toBeLessThanOrEqual(390);
    const closed = page.locator('#practice-demo-2024-01 td[data-label="Closed"]');
    const box = await closed.boundingBox();
    expect((box?.x ?? -1) >= 0 && (box?.x ?? 0) + (box?.width ?? 0) <= 390).toBe(true);
    await page.setViewportSize({ width: 1200, height: 860 });
  });

  it('verifies a month when asked: the verdict in words', async () => {
    const row = page.locator('#practice-demo-2024-02');
    await row.getByRole('button', { name: 'Verify' }).click();
    const verdict = row.locator('[data-verdict-result]');
    await verdict.waitFor();
    const text = (await verdict.textContent()) ?? '';
    expect(text).toContain('✓ Verified');
    expect(text).toContain(resultOf(jobs[1]).prefix);
    expect(text).not.toContain('✗');
  });
});

describe('Verify this set on a client page', () => {
  it('names the file a changed byte broke, with a ✗ line', async () => {
    const earlier = resultOf(jobs[0]);
    const csv = earlier.files.find((file) => file.name.endsWith('_transactions.csv'));
    expect(csv).toBeDefined();
    const key = (csv as { key: string }).key;
    const got = await s3.send(new GetObjectCommand({ Bucket: service.bucket, Key: key }));
    const bytes = Buffer.from(
      await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 2) ^ 1, bytes.length - 2);
    await s3.send(new PutObjectCommand({ Bucket: service.bucket, Key: key, Body: bytes }));

    await page.goto(`${service.url}/portal/clients/demo`);
    const set = page.locator(`#set-${jobs[0]?.jobId}`);
    await set.waitFor();
    await set.getByRole('button', { name: 'Verify this set' }).click();
    const verdict = set.locator('[data-verdict-result]');
    await verdict.waitFor();
    expect(await verdict.locator('p strong').first().textContent()).toContain('✗ Not verified');
    const failed = await verdict.locator('li.fails').allTextContents();
    const name = (csv as { name: string }).name;
    expect(failed.some((line) => line.startsWith(`✗ ${name}: changed since it was published`))).toBe(true);
  });
});
