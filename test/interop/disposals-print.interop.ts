/**
 * The Disposals sheet as an accountant prints it: the workbooks of a us, a uk and a de gains run
 * printed to PDF by LibreOffice, every word read back with poppler's `pdftotext -bbox`. The
 * sheet prints several pages across; the first page across of each band of rows carries the
 * money an accountant files together, Proceeds, Cost basis and Gain or loss, beside the row's
 * token and dates (files.md, **Printing**): no page holds one of those headers without the
 * others. Needs `soffice` (libreoffice-calc-nogui) and poppler-utils.
 */
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { type Page, printedPages, printToPdf } from './support/printed-rows.ts';

/** The gains runs printed; the demo's values are in USD, uk and de rules compute in them by choice. */
const RUNS = {
  us: { taxRules: 'us' },
  uk: { taxRules: 'uk', currency: 'USD' },
  de: { taxRules: 'de', currency: 'USD' },
} as const;
type RunName = keyof typeof RUNS;

/** The first word of each money header an accountant files from the Disposals. */
const MONEY = ['Proceeds', 'Cost', 'Gain'] as const;

describe('the Disposals sheet printed to PDF by LibreOffice', () => {
  let harness: ExportHarness;
  const pages = {} as Record<RunName, Page[]>;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const out = join(harness.outDir, 'printed');
    await mkdir(out);
    const books: string[] = [];
    for (const [name, gains] of Object.entries(RUNS)) {
      const request = parseExportRequest({ profile: 'demo', period: '2025', reports: ['gains'], gains });
      const result = await runExport(request, harness.deps());
      const book = join(out, `${name}.xlsx`);
      await cp(join(harness.outDir, result.prefix, 'demo_2025.xlsx'), book);
      books.push(book);
    }
    await printToPdf(books, out, harness.outDir);
    for (const name of Object.keys(RUNS) as RunName[])
      pages[name] = (await printedPages(join(out, `${name}.pdf`), 1)).filter(
        (page) => page.title === 'Disposals',
      );
  }, 600_000);

  afterAll(async () => {
    await harness?.close();
  });

  it.each(Object.keys(RUNS) as RunName[])(
    'prints Proceeds, Cost basis and Gain or loss of the %s run on the same pages, beside the token',
    (name) => {
      const printed = pages[name];
      const held = printed.map((page) => MONEY.filter((word) => page.body.some((w) => w.text === word)));
      // Each page: all three money headers, or none (a later page across: ids, currency).
      const apart = held.flatMap((words, i) =>
        words.length === 0 || words.length === MONEY.length ? [] : [`page ${i + 1}: ${words.join(', ')}`],
      );
      const withMoney = printed.filter((_, i) => held[i]?.length === MONEY.length);
      const withToken = withMoney.filter((page) => page.body.some((w) => w.text === 'Token'));
      expect([printed.length > withMoney.length, withMoney.length > 0, apart]).toEqual([true, true, []]);
      expect(withToken.length).toBe(withMoney.length);
    },
  );
});
