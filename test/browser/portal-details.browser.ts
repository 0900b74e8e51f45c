/**
 * Details of the portal found by using it, in a real browser (Debian's chromium, driven by
 * playwright-core over `npm run serve`'s stack): a restatement of a closed month lists its files
 * with download buttons like a report set's, and a button downloads the file's bytes through a
 * fresh link; at desktop width the request form's "CSV files for" select shows each option whole.
 */
import { createHash } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { type Browser, openBrowser, serveS3, signIn } from '../support/portal.ts';

const RUN_ID = '20240201T000000Z-abc123';
const RESTATEMENT = 'restatements/demo/2024-01/20240305T020000Z-d00d11';
/** The restatement's files as its manifest lists them (name → bytes). */
const FILES: Record<string, string> = {
  'demo_2024-01_restatement_changes.csv': 'id,kind\r\ntx_1,modified\r\n',
  'demo_2024-01_restatement.xlsx': 'not really a workbook, only its bytes matter here',
  'README.txt': 'January 2024 changed after its close: 1 transaction modified.\n',
};

let service: LocalService;
let browser: Browser | undefined;
let page: Page;

/** Puts a report set of January 2024, closes it over the API, and publishes a restatement of it. */
async function closedMonthWithRestatement(): Promise<void> {
  const s3 = await serveS3(service);
  const put = (Key: string, Body: string) =>
    s3.send(new PutObjectCommand({ Bucket: service.bucket, Key, Body }));
  const prefix = `reports/demo/2024-01/${RUN_ID}`;
  await put(`${prefix}/manifest.json`, '{"files":[]}');
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
    idempotencyKey: 'test:restatement',
    createdAt: at,
    updatedAt: at,
    result: {
      runId: RUN_ID,
      prefix,
      files: [{ name: 'manifest.json', key: `${prefix}/manifest.json`, bytes: 12, sha256: 'ab'.repeat(32) }],
    },
  };
  await service.jobs.create(job);
  const token = await service.devToken(['demo']);
  const closed = await fetch(`${service.url}/closes`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ profile: 'demo', period: '2024-01', runId: RUN_ID }),
  });
  if (closed.status !== 201) throw new Error(`close answered ${closed.status}: ${await closed.text()}`);
  const files = Object.entries(FILES).map(([name, body]) => ({
    name,
    key: `${RESTATEMENT}/${name}`,
    location: `s3://${service.bucket}/${RESTATEMENT}/${name}`,
    bytes: Buffer.byteLength(body),
    sha256: createHash('sha256').update(body).digest('hex'),
    contentType: 'application/octet-stream',
  }));
  for (const [name, body] of Object.entries(FILES)) await put(`${RESTATEMENT}/${name}`, body);
  await put(
    `${RESTATEMENT}/manifest.json`,
    JSON.stringify({
      period: '2024-01',
      summary: 'January 2024 changed after its close: 1 transaction modified',
      checkedAt: '2024-03-05T02:00:00.000Z',
      files,
    }),
  );
  s3.destroy();
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  await closedMonthWithRestatement();
  browser = await openBrowser({ acceptDownloads: true });
  page = browser.page;
  await signIn(page, service.url);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
  await rm(service.s3Dir, { recursive: true, force: true });
});

describe('a restatement in the portal', () => {
  it('lists its files (CSV, workbook, Read me) with download buttons', async () => {
    await page.goto(`${service.url}/portal/clients/demo`);
    const section = page.locator('#closed-periods');
    await section.getByText('Changed after close').waitFor();
    const buttons = section.locator('button[data-download]');
    expect((await buttons.evaluateAll((all) => all.map((b) => b.getAttribute('data-file')))).sort()).toEqual(
      Object.keys(FILES).sort(),
    );
    const names = await section.locator('.restatement-files code').allTextContents();
    expect(names.sort()).toEqual(Object.keys(FILES).sort());
  });

  it('downloads a file of it through a fresh link, byte for byte', async () => {
    const section = page.locator('#closed-periods');
    for (const name of ['README.txt', 'demo_2024-01_restatement_changes.csv']) {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        section.locator(`button[data-download][data-file="${name}"]`).click(),
      ]);
      expect(download.suggestedFilename()).toBe(name);
      expect(await readFile((await download.path()) ?? '', 'utf8')).toBe(FILES[name]);
    }
  });
});

describe('the request form at desktop width', () => {
  it('shows every option of "CSV files for" whole in its select', async () => {
    await page.goto(`${service.url}/portal/clients/demo/request`);
    const select = page.getByLabel('CSV files for');
    await select.waitFor();
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
      const select = element as unknown as { options: ArrayLike<{ text: string }>; clientWidth: number };
      const style = inPage.getComputedStyle(select);
      const context = inPage.document.createElement('canvas').getContext('2d');
      context.font = style.font;
      const room =
        select.clientWidth -
        Number.parseFloat(style.paddingLeft) -
        Number.parseFloat(style.paddingRight) -
        20;
      return Array.from(select.options).map((option) => ({
        text: option.text,
        fits: context.measureText(option.text).width <= room,
      }));
    });
    expect(fit.length).toBe(3);
    expect(fit.filter((option) => !option.fits)).toEqual([]);
  });
});
