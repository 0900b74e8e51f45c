/**
 * Issue 42's done-when in a real browser (Debian's chromium via playwright-core) over `npm run
 * serve`'s stack on loopback: with the simulator told to hide one transaction of March 2025, the
 * export of that month (holdings asked, so reconciled) goes through the local state machine, and
 * the portal's practice view shows March as not reconciled, saying why; February, exported before
 * the transaction was hidden, reads reconciled. (A hidden transaction changes the service's
 * balance for good: every month exported while it is hidden differs, so the clean month goes first.)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { DEFAULT_PROFILES, Portfolio } from '../../lib/simulator/index.ts';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--no-first-run',
  '--disable-background-networking',
];

let service: LocalService;
let context: BrowserContext;
let page: Page;
let profileDir: string;
let token: string;
const jobs: Record<string, JobRecord> = {};

/** The id of a live demo transaction of March 2025 (the simulator's own data, seed 1) that moves one token. */
function marchTransaction(): { id: string; ledgerId: string } {
  const demo = DEFAULT_PROFILES.find((p) => p.name === 'demo');
  const portfolio = new Portfolio({ ...demo } as never, 1);
  for (let i = 0; i < portfolio.count; i += 1) {
    const tx = portfolio.transaction(i) as unknown as {
      id: string;
      date: string;
      ledgerId: string;
      movements: unknown[];
    };
    if (!portfolio.isDeleted(i) && tx.date.startsWith('2025-03') && tx.movements.length === 1) return tx;
  }
  throw new Error('no transaction of 2025-03 to hide');
}

/** Exports one month of `demo` with its holdings (so it is reconciled) through serve's API. */
async function exportMonth(period: string): Promise<JobRecord> {
  const started = await fetch(`${service.url}/reports`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ profile: 'demo', period, reports: ['transactions', 'gains'], formats: ['csv'] }),
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
  token = await service.devToken(['demo']);
  jobs.february = await exportMonth('2025-02');
  const hidden = marchTransaction();
  service.simulator.setBalanceFaults({ hide: [{ profile: 'demo', id: hidden.id }] });
  jobs.march = await exportMonth('2025-03');
  profileDir = await mkdtemp(join(tmpdir(), 'pbs-chromium-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ARGS,
    viewport: { width: 1200, height: 860 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${service.url}/portal`);
  await page.waitForURL(`${service.url}/portal/sign-in`);
  await page.getByLabel('demo').check();
  await page.getByRole('button', { name: 'Sign in (development)' }).click();
  await page.waitForURL(`${service.url}/portal`);
}, 300_000);

afterAll(async () => {
  await context?.close();
  await service?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
  if (service) await rm(service.s3Dir, { recursive: true, force: true });
});

/** The practice view's Reconciled cell of a month, as the page shows it. */
async function reconciledCell(period: string): Promise<string> {
  const cell = page.locator(`#practice-demo-${period} td[data-label="Reconciled"]`);
  return ((await cell.textContent()) ?? '').trim();
}

describe('the practice view with a transaction hidden by the service', () => {
  it('shows the month with the hidden transaction as not reconciled, and the clean month as reconciled', async () => {
    // The sets' own record of it, as the finish took it from each manifest.
    expect(jobs.february?.result?.reconciliation?.status).toBe('reconciled');
    expect(jobs.march?.result?.reconciliation?.status).toBe('differences');

    await page.goto(`${service.url}/portal/practice`);
    await page.locator('#practice-demo-2025-03').waitFor();
    const march = await reconciledCell('2025-03');
    expect(march).toMatch(
      /^✗ not reconciled — 1 of \d+ ledger balances at the end of 2025-03-31 \(UTC\) differ/,
    );
    expect(await reconciledCell('2025-02')).toBe('✓ reconciled');
  });
});
