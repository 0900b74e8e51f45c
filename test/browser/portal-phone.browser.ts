import axe from 'axe-core';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest } from '../../lib/export/index.ts';
import type { JobRecord } from '../../lib/jobs/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { type Browser, openBrowser } from '../support/portal.ts';

const PHONE = { width: 390, height: 844 };
const FILES = [
  'demo_2025-10_transactions.csv',
  'demo_2025-10_summary_by_token.csv',
  'demo_2025-10_gains_summary_exact.csv',
  'demo_2025-10.xlsx',
  'README.txt',
  'manifest.json',
];

let service: LocalService;
let browser: Browser | undefined;
let page: Page;

beforeAll(async () => {
  // No export runs: a machine that does nothing spares the synthesis.
  service = await startLocalService({
    port: 0,
    exportMachine: {
      definition: { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } },
      taskArns: { plan: 'p', fetchShard: 'f', finish: 'x', fail: 'y' },
    },
  });
  const at = new Date().toISOString();
  const job: JobRecord = {
    jobId: 'e'.repeat(32),
    profile: 'demo',
    request: parseExportRequest({ profile: 'demo', period: '2025-10' }),
    state: 'succeeded',
    source: 'schedule',
    idempotencyKey: 'test:phone',
    createdAt: at,
    updatedAt: at,
    result: {
      runId: 'r',
      prefix: 'reports/demo/2025-10/r',
      files: FILES.map((name) => ({
        name,
        key: `reports/demo/2025-10/r/${name}`,
        bytes: 12345,
        sha256: 'ab'.repeat(32),
      })),
    },
  };
  await service.jobs.create(job);
  browser = await openBrowser({ viewport: PHONE });
  page = browser.page;
});

afterAll(async () => {
  await browser?.close();
  await service?.close();
});

describe('the portal at phone width', () => {
  it('fits a client page on the screen, file names wrapping at their separators only', async () => {
    const token = await service.devToken(['demo']);
    await page.goto(`${service.url}/portal/sign-in`);
    await page.evaluate(
      ([key, value]) =>
        (
          globalThis as unknown as { sessionStorage: { setItem(k: string, v: string): void } }
        ).sessionStorage.setItem(key, value),
      ['pbs-portal-token', JSON.stringify({ token, expiresAt: Date.now() + 600_000 })] as const,
    );
    await page.goto(`${service.url}/portal/clients/demo`);
    await page.locator('article.set').first().waitFor();

    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } })
        .document.documentElement;
      return root.scrollWidth;
    });
    const names = await page.locator('th.file-name').evaluateAll((cells) =>
      cells.map((cell) => {
        const element = cell as unknown as { textContent: string; getClientRects(): unknown[] };
        // One rectangle per line of the name's text.
        const range = (
          globalThis as unknown as {
            document: {
              createRange(): {
                selectNodeContents(n: unknown): void;
                getClientRects(): { length: number; [i: number]: { width: number; top: number } };
              };
            };
          }
        ).document.createRange();
        range.selectNodeContents(cell);
        const rects = range.getClientRects();
        // The lines the name takes: the distinct tops of its text's boxes (<wbr> boxes are empty).
        const tops = new Set<number>();
        for (let index = 0; index < rects.length; index += 1) {
          const rect = rects[index];
          if (rect !== undefined && rect.width > 0) tops.add(Math.round(rect.top));
        }
        return { text: element.textContent, lines: tops.size };
      }),
    );
    await page.evaluate(axe.source);
    const violations = await page.evaluate(() => {
      const inPage = globalThis as unknown as { axe: typeof axe; document: Parameters<typeof axe.run>[0] };
      return inPage.axe.run(inPage.document, { resultTypes: ['violations'] });
    });

    expect(overflow).toBeLessThanOrEqual(PHONE.width);
    expect(names.map((name) => name.text).sort()).toEqual([...FILES].sort());
    // A name wraps at most at its separators: never more lines than parts between them.
    const parts = (name: string) => name.split(/(?<=[_.-])/).length;
    expect(names.filter((name) => name.lines > parts(name.text))).toEqual([]);
    expect(names[0]?.text).toBe('demo_2025-10.xlsx');
    expect(
      violations.violations.filter(
        (violation) => violation.impact === 'serious' || violation.impact === 'critical',
      ),
    ).toEqual([]);
  });

  it('fits the request form on the screen, the long labels of the DEMO rates sources included', async () => {
    // Signed in by the test before (the token is in this tab's sessionStorage).
    await page.goto(`${service.url}/portal/clients/demo/request`);
    const rates = page.getByLabel('Convert values at the rates of');
    await rates.waitFor();

    const overflow = await page.evaluate(
      () =>
        (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document
          .documentElement.scrollWidth,
    );

    expect(await rates.locator('option[value="hmrc"]').textContent()).toMatch(/DEMO made-up rates/);
    expect(overflow).toBeLessThanOrEqual(PHONE.width);
  });
});
