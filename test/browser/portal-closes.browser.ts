/**
 * Closing a month in the portal, and what a client page shows around it, in a real browser
 * (Debian's chromium via playwright-core, over `npm run serve`'s stack with a machine that runs
 * nothing: the sets are written into the job store and the bucket). Closing is folded away below
 * the set's files and sent only once confirmed (the server refuses a close without the
 * confirmation too); after it the page lists the close at once; a failed export a later set of
 * its period replaced is listed below the sets, not in red above them; at phone width the
 * request form's "CSV files for" shows its label and each option whole.
 */
import { rm } from 'node:fs/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { type Browser, openBrowser, serveS3, signIn } from '../support/portal.ts';

const RUN_ID = '20251101T000000Z-c1c1c1';
const SET_ID = 'a'.repeat(32);
const OLD_FAILURE = 'b'.repeat(32);
const OPEN_FAILURE = 'c'.repeat(32);

let service: LocalService;
let browser: Browser | undefined;
let page: Page;
let token: string;

/** A job of `demo` for `period`, finished at `at` (minutes after 2025-11-01). */
function job(jobId: string, period: string, minutes: number, fields: Partial<JobRecord>): JobRecord {
  const at = new Date(Date.UTC(2025, 10, 1, 0, minutes)).toISOString();
  return {
    jobId,
    profile: 'demo',
    request: parseExportRequest({ profile: 'demo', period, reports: ['transactions'], formats: ['csv'] }),
    state: 'succeeded',
    source: 'api',
    requestedBy: 'ana@example.com',
    idempotencyKey: `test:${jobId}`,
    createdAt: at,
    updatedAt: at,
    ...fields,
  };
}

/** A set of October 2025 (its manifest in the bucket), a failure it replaced, and a newer failure. */
async function seed(): Promise<void> {
  const s3 = await serveS3(service);
  const prefix = `reports/demo/2025-10/${RUN_ID}`;
  await s3.send(
    new PutObjectCommand({ Bucket: service.bucket, Key: `${prefix}/manifest.json`, Body: '{"files":[]}' }),
  );
  s3.destroy();
  const failed = { state: 'failed' as const, reason: 'the service answered 503 three times' };
  await service.jobs.create(job(OLD_FAILURE, '2025-10', 1, failed));
  await service.jobs.create(
    job(SET_ID, '2025-10', 2, {
      result: {
        runId: RUN_ID,
        prefix,
        files: [
          { name: 'manifest.json', key: `${prefix}/manifest.json`, bytes: 12, sha256: 'ab'.repeat(32) },
        ],
      },
    }),
  );
  await service.jobs.create(job(OPEN_FAILURE, '2025-09', 3, failed));
}

/** The profile's closes as the API lists them. */
async function closes(): Promise<{ periods: { period: string; closed: { by: string } | null }[] }> {
  const answer = await fetch(`${service.url}/closes?profile=demo`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await answer.json()) as { periods: { period: string; closed: { by: string } | null }[] };
}

beforeAll(async () => {
  service = await startLocalService({
    port: 0,
    exportMachine: {
      definition: { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } },
      taskArns: { plan: 'p', fetchShard: 'f', finish: 'x', fail: 'y' },
    },
  });
  token = await service.devToken(['demo']);
  await seed();
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, service.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await rm(service.s3Dir, { recursive: true, force: true });
});

describe('failed exports on a client page', () => {
  it('lists a failure a later set of its period replaced below the sets, not in red above them', async () => {
    await page.goto(`${service.url}/portal/clients/demo`);
    await page.locator(`#set-${SET_ID}`).waitFor();

    const open = page.locator('section[aria-labelledby="failed-heading"]');
    const earlier = page.locator('section[aria-labelledby="failed-earlier-heading"]');
    expect(await open.locator('h2').textContent()).toBe('Failed exports');
    expect(await earlier.locator('h2').textContent()).toBe('Earlier failed exports');
    expect(await open.locator('li').evaluateAll((items) => items.map((item) => item.id))).toEqual([
      `job-${OPEN_FAILURE}`,
    ]);
    expect(await earlier.locator('li').evaluateAll((items) => items.map((item) => item.id))).toEqual([
      `job-${OLD_FAILURE}`,
    ]);
    expect(await earlier.locator('li').textContent()).toContain('A later set of 2025-10 succeeded');
    expect(await earlier.locator('.reason').count()).toBe(0);
    // In the page's order: the open failure, the sets, then the earlier failure.
    const order = await page
      .locator(`#job-${OPEN_FAILURE}, #set-${SET_ID}, #job-${OLD_FAILURE}`)
      .evaluateAll((nodes) => nodes.map((node) => node.id));
    expect(order).toEqual([`job-${OPEN_FAILURE}`, `set-${SET_ID}`, `job-${OLD_FAILURE}`]);
  });
});

describe('closing a month', () => {
  it('is folded away below the set’s files: no button to close until it is opened', async () => {
    const set = page.locator(`#set-${SET_ID}`);
    const button = set.getByRole('button', { name: 'Close 2025-10 at this set' });

    expect(await button.isVisible()).toBe(false);
    const [table, summary] = await Promise.all([
      set.locator('table').boundingBox(),
      set.getByText('Close this month…').boundingBox(),
    ]);
    expect(summary?.y).toBeGreaterThan((table?.y ?? 0) + (table?.height ?? 0) - 1);
    await set.getByText('Close this month…').click();
    expect(await button.isVisible()).toBe(true);
    expect(await set.locator('details.close-set').textContent()).toContain('locked in the bucket for years');
  });

  it('closes nothing without the confirmation, in the browser or sent past it', async () => {
    const set = page.locator(`#set-${SET_ID}`);
    await set.getByRole('button', { name: 'Close 2025-10 at this set' }).click();
    const confirm = set.getByRole('checkbox', { name: /I understand/ });
    expect(
      await confirm.evaluate((box) => (box as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    // The view's form posted without the box, as a script could.
    const posted = await fetch(`${service.url}/portal/view/clients/demo/close`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fields: { period: ['2025-10'], runId: [RUN_ID] } }),
    });

    expect(posted.status).toBe(400);
    expect(await posted.text()).toContain('Nothing was closed');
    expect((await closes()).periods).toEqual([]);
  });

  it('closes once confirmed, and the page lists the close at once', async () => {
    const set = page.locator(`#set-${SET_ID}`);
    await set.getByRole('checkbox', { name: /I understand/ }).check();
    await set.getByRole('button', { name: 'Close 2025-10 at this set' }).click();

    await page.locator(`#set-${SET_ID} p.closed`).waitFor();
    expect(await page.locator(`#set-${SET_ID} p.closed`).textContent()).toContain('Closed by developer');
    const listed = page.locator('#closed-periods');
    expect(await listed.textContent()).not.toContain('No period is closed');
    expect(await listed.locator('h3').allTextContents()).toEqual(['2025-10 (closed)']);
    expect((await closes()).periods.map((p) => [p.period, p.closed?.by])).toEqual([['2025-10', 'developer']]);
  });
});

describe('the request form at phone width', () => {
  it('shows the label "CSV files for" and every option of its select whole, and nothing wider than the screen', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${service.url}/portal/clients/demo/request`);
    const select = page.getByLabel('CSV files for');
    await select.waitFor();
    const label = page.locator('label', { hasText: 'CSV files for' });

    const labelBox = await label.boundingBox();
    expect(labelBox).not.toBeNull();
    expect((labelBox?.x ?? -1) >= 0 && (labelBox?.x ?? 0) + (labelBox?.width ?? 0) <= 390).toBe(true);
    expect(await label.evaluate((node) => node.scrollWidth <= node.clientWidth)).toBe(true);
    // Each option's text measured in the select's own font, against the room inside the select
    // (its width less padding, border and the arrow).
    const fit = await select.evaluate((element) => {
      const inPage = globalThis as unknown as {
        document: {
          createElement(tag: 'canvas'): {
            getContext(kind: '2d'): { font: string; measureText(text: string): { width: number } };
          };
        };
        getComputedStyle(element: unknown): { font: string; paddingLeft: string; paddingRight: string };
      };
      const node = element as unknown as { options: ArrayLike<{ text: string }>; clientWidth: number };
      const style = inPage.getComputedStyle(node);
      const canvas = inPage.document.createElement('canvas').getContext('2d');
      canvas.font = style.font;
      const room =
        node.clientWidth - Number.parseFloat(style.paddingLeft) - Number.parseFloat(style.paddingRight) - 20;
      return Array.from(node.options).map((option) => ({
        text: option.text,
        fits: canvas.measureText(option.text).width <= room,
      }));
    });
    expect(fit.length).toBe(3);
    expect(fit.filter((option) => !option.fits)).toEqual([]);
    const width = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
          .documentElement.scrollWidth,
    );
    expect(width).toBeLessThanOrEqual(390);
  });
});
