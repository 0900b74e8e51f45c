/**
 * The accountant portal in a real browser: Debian's chromium (`/usr/bin/chromium`) driven by
 * playwright-core over `npm run serve`'s stack (the development sign-in). Signs in, requests an
 * export, watches it finish, downloads a file and checks its sha256 against the manifest; a
 * forbidden profile is refused; a hostile file name is shown as text; axe-core finds no serious
 * accessibility violation on any page. Screenshots go to a temporary folder, or to `docs/` with
 * `UPDATE_SCREENSHOTS=1`.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

let service: LocalService;
let context: BrowserContext;
let page: Page;
let profileDir: string;
let shotDir: string;
const requestedUrls: string[] = [];
const dialogs: string[] = [];

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  profileDir = await mkdtemp(join(tmpdir(), 'pbs-chromium-'));
  shotDir = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs' : await mkdtemp(join(tmpdir(), 'pbs-shots-'));
  // A fresh user data folder each run (launchPersistentContext passes it as --user-data-dir).
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    acceptDownloads: true,
    viewport: { width: 1200, height: 860 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (request) => requestedUrls.push(request.url()));
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
});

afterAll(async () => {
  await context?.close();
  await service?.close();
  await rm(profileDir, { recursive: true, force: true });
});

const url = (path: string) => `${service.url}${path}`;

/** axe-core's serious and critical violations on the current page (run in the page itself). */
async function seriousViolations(): Promise<string[]> {
  await page.evaluate(axe.source);
  // Runs in the page (no DOM types here): axe.run over the whole document.
  const results = await page.evaluate(() => {
    const inPage = globalThis as unknown as { axe: typeof axe; document: Parameters<typeof axe.run>[0] };
    return inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
  });
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
    );
}

async function shoot(name: string): Promise<void> {
  await page.screenshot({ path: join(shotDir, `portal-${name}.png`), fullPage: true });
}

/** The token the page script keeps (sessionStorage of this tab). */
const tokenOfPage = () =>
  page.evaluate(() => {
    const storage = (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } })
      .sessionStorage;
    return (JSON.parse(storage.getItem('pbs-portal-token') ?? 'null') as { token: string }).token;
  });

describe('the portal in chromium', () => {
  it('sends a person without a sign-in to the development sign-in, then shows their clients only', async () => {
    await page.goto(url('/portal'));
    await page.waitForURL(url('/portal/sign-in'));
    await expect(page.getByRole('heading', { name: 'Development sign-in' }).isVisible()).resolves.toBe(true);
    expect(await page.getByRole('note').textContent()).toContain('Development sign-in');
    expect(await seriousViolations()).toEqual([]);
    await shoot('sign-in');
    await page.getByLabel('demo').check();
    await page.getByRole('button', { name: 'Sign in (development)' }).click();
    await page.waitForURL(url('/portal'));
    await page.getByRole('link', { name: 'demo' }).waitFor();
    expect(await page.locator('main tbody th').allTextContents()).toEqual(['demo']);
    expect(await seriousViolations()).toEqual([]);
  });

  it('requests an export: errors beside their fields, then the export runs and finishes', async () => {
    await page.goto(url('/portal/clients/demo/request'));
    await page.getByLabel('Month or year').fill('2025-13');
    await page.getByRole('button', { name: 'Request the export' }).click();
    const periodError = page.locator('#e-period');
    await periodError.waitFor();
    expect(await periodError.textContent()).toBe('month 13 does not exist');
    expect(await page.getByLabel('Month or year').getAttribute('aria-describedby')).toBe('e-period');
    expect(await seriousViolations()).toEqual([]);
    await shoot('request');

    await page.getByLabel('Month or year').fill('2025-10');
    await page.getByRole('button', { name: 'Request the export' }).click();
    await page.waitForURL(/\/portal\/clients\/demo#job-[0-9a-f]{32}$/);
    // The page refreshes itself while the export runs; it ends with the set listed.
    await page.locator('article.set').first().waitFor({ timeout: 150_000 });
    expect(await page.locator('article.set h3').first().textContent()).toContain('2025-10');
    expect(await page.getByText('Running exports').count()).toBe(0);
    expect(await seriousViolations()).toEqual([]);
    await shoot('client');
  });

  it('downloads a file through a fresh link whose bytes match the manifest sha256', async () => {
    const fetchOf = async (suffix: string) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`button[data-download][data-file$="${suffix}"]`).first().click(),
      ]);
      return { name: download.suggestedFilename(), bytes: await readFile((await download.path()) ?? '') };
    };
    const manifest = JSON.parse((await fetchOf('manifest.json')).bytes.toString('utf8')) as {
      files: { name: string; sha256: string; bytes: number }[];
    };
    const csv = await fetchOf('transactions.csv');
    const entry = manifest.files.find((file) => file.name.endsWith(csv.name));
    expect(entry).toBeDefined();
    expect(createHash('sha256').update(csv.bytes).digest('hex')).toBe(entry?.sha256);
    expect(csv.bytes.length).toBe(entry?.bytes);
    // The page shows the same checksum.
    expect(await page.locator('code.sha').allTextContents()).toContain(entry?.sha256);
  });

  it('shows the clients with their latest set', async () => {
    await page.goto(url('/portal'));
    await page.getByRole('link', { name: /2025-10, on demand/ }).waitFor();
    expect(await seriousViolations()).toEqual([]);
    await shoot('clients');
  });

  it('refuses a profile outside the sign-in, on the page and at the API', async () => {
    await page.goto(url('/portal/clients/acme'));
    await page.getByRole('heading', { name: 'Not allowed' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('does not allow the client acme');
    const token = await tokenOfPage();
    const statuses = await page.evaluate(async (bearer) => {
      const headers = { authorization: `Bearer ${bearer}` };
      const list = await fetch('/reports?profile=acme', { headers });
      const start = await fetch('/reports', {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ profile: 'acme', period: '2025-10' }),
      });
      return [list.status, start.status];
    }, token);
    expect(statuses).toEqual([403, 403]);
    expect(await service.jobs.listByProfile('acme', 5)).toEqual([]);
  });

  it('shows a hostile file name as text', async () => {
    // No "/" in it: a name's folder part is not shown.
    const hostile = '<img src=x onerror=alert(1)><b>bold "quoted" & more.csv';
    const at = new Date().toISOString();
    const [existing] = await service.jobs.listByProfile('demo', 1);
    const job: JobRecord = {
      ...(existing as JobRecord),
      jobId: 'f'.repeat(32),
      idempotencyKey: 'test:hostile',
      createdAt: at,
      updatedAt: at,
      request: { ...(existing as JobRecord).request, period: '2025-11' },
      result: {
        runId: 'hostile',
        prefix: 'reports/demo/2025-11/hostile',
        files: [
          { name: hostile, key: 'reports/demo/2025-11/hostile/x.csv', bytes: 10, sha256: '0'.repeat(64) },
        ],
      },
    };
    await service.jobs.create(job);
    await page.goto(url('/portal/clients/demo'));
    await page.locator(`#set-${job.jobId}`).waitFor();
    expect(await page.locator(`#set-${job.jobId} th.file-name`).textContent()).toBe(hostile);
    expect(await page.locator('main img, main b').count()).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it('never puts the token in a URL', async () => {
    const token = await tokenOfPage();
    expect(token.length).toBeGreaterThan(20);
    expect(requestedUrls.length).toBeGreaterThan(10);
    expect(requestedUrls.filter((requested) => requested.includes(token))).toEqual([]);
  });
});
