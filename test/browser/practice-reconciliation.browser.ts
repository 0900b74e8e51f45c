/**
 * Issue 42's done-when in a real browser (Debian's chromium via playwright-core) over `npm run
 * serve`'s stack on loopback: with the simulator told to hide one transaction of March 2025, the
 * export of that month (holdings asked, so reconciled) goes through the local state machine, and
 * the portal's practice view shows March as not reconciled, saying why; February, exported before
 * the transaction was hidden, reads reconciled. (A hidden transaction changes the service's
 * balance for good: every month exported while it is hidden differs, so the clean month goes first.)
 */
import { rm } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { oneTokenTransaction } from '../support/demo-balances.ts';
import { type Browser, exportThroughApi, openBrowser, signIn } from '../support/portal.ts';

let service: LocalService;
let browser: Browser | undefined;
let page: Page;
let token: string;
const jobs: Record<string, JobRecord> = {};

/** Exports one month of `demo` with its holdings (so it is reconciled) through serve's API. */
async function exportMonth(period: string): Promise<JobRecord> {
  const body = { profile: 'demo', period, reports: ['transactions', 'gains'], formats: ['csv'] };
  const stored = await exportThroughApi(service, token, body);
  expect(stored.state).toBe('succeeded');
  return stored;
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  token = await service.devToken(['demo']);
  jobs.february = await exportMonth('2025-02');
  const { tx: hidden } = oneTokenTransaction('2025-03');
  service.simulator.setBalanceFaults({ hide: [{ profile: 'demo', id: hidden.id }] });
  jobs.march = await exportMonth('2025-03');
  browser = await openBrowser();
  page = browser.page;
  await signIn(page, service.url);
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await service?.close();
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
