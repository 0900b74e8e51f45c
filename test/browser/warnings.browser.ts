/**
 * Resolving a set's warnings in the portal, in chromium over `npm run serve`'s stack (development
 * sign-in) with the store it builds (the S3 adjustments store in its local bucket, which its
 * finish worker reads). A demo gains set of 2025 lists its open warnings; a form refused by the
 * schema says why beside itself; a form the schema takes stores the adjustment, and "Accept
 * suggestion" too, each attributed to the signed-in person, the rows moving to "Resolved";
 * "Re-run" starts the set again over that version, and the new set's net gain is another.
 * Screenshots as portal.browser.ts.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { type Browser, openBrowser, signIn } from '../support/portal.ts';

let service: LocalService;
let browser: Browser | undefined;
let page: Page;
let shotDir: string;
let jobId: string;

const url = (path: string) => `${service.url}${path}`;
const shoot = (name: string) =>
  page.screenshot({ path: join(shotDir, `portal-${name}.png`), fullPage: true });

async function seriousViolations(): Promise<string[]> {
  await page.evaluate(axe.source);
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

/** The demo profile's stored versions over the API, oldest first: what each added (id, kind, by). */
async function storedVersions(): Promise<string[][][]> {
  const headers = { authorization: `Bearer ${await service.devToken(['demo'])}` };
  const answer = (await (await fetch(url('/profiles/demo/adjustments'), { headers })).json()) as {
    history: { added: { id: string; kind: string; by: string }[] }[];
  };
  return answer.history.reverse().map((version) => version.added.map((a) => [a.id, a.kind, a.by]));
}

/** Waits until a job succeeded (throws when it failed). */
async function succeeded(id: string, headers: Record<string, string>): Promise<void> {
  for (;;) {
    const job = (await (await fetch(url(`/reports/${id}`), { headers })).json()) as { state: string };
    if (job.state === 'succeeded') return;
    if (job.state === 'failed') throw new Error(`the export failed: ${JSON.stringify(job)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Starts a demo gains export of 2025 through the API and waits until it succeeded. */
async function demoGainsSet(): Promise<string> {
  const token = await service.devToken(['demo']);
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const body = {
    profile: 'demo',
    period: '2025',
    reports: ['gains'],
    gains: { taxRules: 'us' },
    formats: ['csv'],
  };
  const started = await fetch(url('/reports'), { method: 'POST', headers, body: JSON.stringify(body) });
  const { jobId: id } = (await started.json()) as { jobId: string };
  await succeeded(id, headers);
  return id;
}

beforeAll(async () => {
  service = await startLocalService({ port: 0 });
  shotDir = process.env.UPDATE_SCREENSHOTS === '1' ? 'docs' : await mkdtemp(join(tmpdir(), 'pbs-shots-'));
  browser = await openBrowser();
  page = browser.page;
  jobId = await demoGainsSet();
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('resolving a set’s warnings in the portal', () => {
  it('lists the open warnings of the set, linked from its client page', async () => {
    await signIn(page, service.url);
    await page.goto(url(`/portal/clients/demo#set-${jobId}`));
    await page.getByRole('link', { name: 'Warnings and adjustments' }).first().click();
    await page.waitForURL(url(`/portal/sets/${jobId}/warnings`));
    await page.getByRole('heading', { name: 'Open warnings' }).waitFor();

    expect(await page.locator('article.warning h3').allTextContents()).toEqual([
      'zero-basis: 2 BTC',
      'unmatched-transfer: 0.5 BTC',
      'missing-value: 1000 ETHG-CLAIM',
      'missing-value: 1250 USDC',
      expect.stringMatching(/^unmatched-transfer: [\d.]+ ETH$/),
      expect.stringMatching(/^unmatched-transfer: [\d.]+ ETH$/),
      'missing-value: 2000 ETHG-CLAIM',
    ]);
    expect(await page.getByRole('button', { name: 'Accept suggestion' }).count()).toBe(5);
    expect(await seriousViolations()).toEqual([]);
    await shoot('warnings');
  });

  it('shows the schema’s refusal beside the form, and stores nothing', async () => {
    const row = page.locator('article.warning', { hasText: '0.5 BTC' });
    await row.getByText('Give the cost basis (from outside the portfolio)').click();
    const form = row.locator('details', { hasText: 'Give the cost basis' });
    await form.getByLabel('Cost basis of the 0.5 BTC').fill('21.000,00');
    await form.getByLabel(/^Why/).fill('Bought on the client’s Kraken account');
    await form.getByRole('button', { name: 'Store adjustment' }).click();
    const refusal = page.locator('article.warning', { hasText: '0.5 BTC' }).getByRole('alert');
    await refusal.waitFor();

    expect(await refusal.textContent()).toBe(
      'Not stored: cost: must be a plain non-negative decimal such as 0.5',
    );
    expect(await storedVersions()).toEqual([]);
  });

  it('stores the cost basis of the transfer in from an outside exchange from its row', async () => {
    const row = page.locator('article.warning', { hasText: '0.5 BTC' });
    const form = row.locator('details', { hasText: 'Give the cost basis' });
    await form.getByLabel('Cost basis of the 0.5 BTC').fill('21000.00');
    await form.getByLabel(/^Why/).fill('Bought on the client’s Kraken account');
    await form.getByRole('button', { name: 'Store adjustment' }).click();
    await page.getByRole('status').waitFor();

    expect(await page.locator('article.warning', { hasText: '0.5 BTC' }).count()).toBe(0);
    expect(await page.locator('li', { hasText: /resolved by manual-v1/ }).count()).toBe(1);
    expect(await storedVersions()).toEqual([[['manual-v1', 'cost-basis', 'developer']]]);
  });

  it('accepts a suggestion in one click: stored, attributed, the rows resolved', async () => {
    const row = page.locator('article.warning', { hasText: '1000 ETHG-CLAIM' });
    await row.getByRole('button', { name: 'Accept suggestion' }).click();
    // The status of the previous form is on the page already: wait for this one's rows.
    await page.locator('li', { hasText: 'resolved by suggested:spam:ETHG-CLAIM' }).first().waitFor();

    expect(await page.getByRole('status').textContent()).toBe(
      'Stored. Re-run the set to see the figures change.',
    );
    expect(await page.locator('article.warning').count()).toBe(4);
    expect(await page.locator('li', { hasText: 'resolved by suggested:spam:ETHG-CLAIM' }).count()).toBe(2);
    expect(await storedVersions()).toEqual([
      [['manual-v1', 'cost-basis', 'developer']],
      [['suggested:spam:ETHG-CLAIM', 'spam', 'developer']],
    ]);
    expect(await seriousViolations()).toEqual([]);
    await shoot('warnings-resolved');
  });

  it('re-runs the set over the adjustments: a new job, requested with their version; its net gain is another', async () => {
    const before = await page.locator('p.figures').textContent();
    expect(before).toMatch(/^Net gain or loss of this set: -?[\d.]+ USD \(without adjustments\)\.$/);
    await page.getByRole('button', { name: 'Re-run with the adjustments' }).click();
    await page.waitForURL(/\/portal\/clients\/demo#job-[0-9a-f]{32}$/);
    const rerunId = new URL(page.url()).hash.slice('#job-'.length);

    expect(rerunId).not.toBe(jobId);
    const job = await service.jobs.get(rerunId);
    expect(job?.requestedBy).toBe('developer');
    expect(job?.idempotencyKey).toMatch(new RegExp(`^rerun:${jobId}:adjustments@2:[0-9a-f]{64}`));
    const { adjustments, ...request } = job?.request ?? {};
    expect(request).toEqual((await service.jobs.get(jobId))?.request);
    expect(adjustments).toEqual({ version: 2, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });

    await succeeded(rerunId, { authorization: `Bearer ${await service.devToken(['demo'])}` });
    await page.goto(url(`/portal/sets/${rerunId}/warnings`));
    const after = await page.locator('p.figures').textContent();
    expect(after).toMatch(/^Net gain or loss of this set: -?[\d.]+ USD \(with adjustments version 2\)\.$/);
    const net = (text: string | null) => /: (-?[\d.]+) USD/.exec(text ?? '')?.[1];
    expect(net(after)).not.toBe(net(before));
    expect(await seriousViolations()).toEqual([]);
    await shoot('warnings-rerun');
  });

  it('withdraws an adjustment from the list, with why: kept as withdrawn, attributed, the warning open again', async () => {
    await page.goto(url(`/portal/sets/${jobId}/warnings`));
    const item = page.locator('#adjustments li', { hasText: 'suggested:spam:ETHG-CLAIM' }).first();
    await item.getByText('Withdraw…').click();
    await item.getByLabel(/^Why is/).fill('ETHG-CLAIM turned out to have a market');
    await item.getByRole('button', { name: 'Withdraw suggested:spam:ETHG-CLAIM' }).click();
    await page.getByRole('status').filter({ hasText: 'Withdrawn' }).waitFor();

    const headers = { authorization: `Bearer ${await service.devToken(['demo'])}` };
    const stored = (await (await fetch(url('/profiles/demo/adjustments'), { headers })).json()) as {
      adjustments: { id: string }[];
      withdrawn: { adjustment: { id: string }; by: string; why: string }[];
    };
    expect(stored.adjustments.map((a) => a.id)).toEqual(['manual-v1']);
    expect(stored.withdrawn.map((w) => [w.adjustment.id, w.by, w.why])).toEqual([
      ['suggested:spam:ETHG-CLAIM', 'developer', 'ETHG-CLAIM turned out to have a market'],
    ]);
    expect(await page.locator('#adjustments .withdrawn li').textContent()).toContain(
      'suggested:spam:ETHG-CLAIM (spam) withdrawn by developer',
    );
    expect(await page.locator('article.warning', { hasText: 'ETHG-CLAIM' }).count()).toBe(2);
    expect(await seriousViolations()).toEqual([]);
  });
});
