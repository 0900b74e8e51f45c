/**
 * Type size on paper: the workbooks of the demo and of a us, a uk and a de gains run printed to
 * PDF by LibreOffice, every word's height read back with poppler's `pdftotext -bbox`. A word's
 * box is its font's ascent plus descent, not its point size: a one-cell workbook printed at
 * 100 % in the default 11-point type gives the ratio of the two for the font LibreOffice prints
 * with on this machine. Needs `soffice` (libreoffice-calc-nogui) and poppler-utils.
 */
import { execFile } from 'node:child_process';
import { cp, mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { printToPdf } from './support/printed-rows.ts';

const run = promisify(execFile);

/** The runs an accountant prints: the demo's reports and gains runs under each rule set. */
const RUNS: Record<string, Record<string, unknown>> = {
  demo: {},
  us: { reports: ['gains'], gains: { taxRules: 'us' } },
  // The demo's values are in USD: uk and de rules compute in them by explicit choice.
  uk: { reports: ['gains'], gains: { taxRules: 'uk', currency: 'USD' } },
  de: { reports: ['gains'], gains: { taxRules: 'de', currency: 'USD' } },
};

/** Least point size an accountant reads without a magnifier. */
const LEAST_POINTS = 8;

interface Word {
  x: number;
  y: number;
  height: number;
  text: string;
}

/** The words of each page of `pdf`, with their boxes. */
async function pageWords(pdf: string): Promise<{ width: number; words: Word[] }[]> {
  const { stdout } = await run('pdftotext', ['-bbox', pdf, '-'], { maxBuffer: 256 * 1024 * 1024 });
  return stdout
    .split('<page ')
    .slice(1)
    .map((page) => ({
      width: Number(/width="([\d.]+)"/.exec(page)?.[1]),
      words: [
        ...page.matchAll(
          /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)">([^<]*)<\/word>/g,
        ),
      ].map((m) => ({
        x: Number(m[1]),
        y: Number(m[2]),
        height: Number(m[3]) - Number(m[2]),
        text: m[4] as string,
      })),
    }));
}

/** The sheet title a page's header names on its left: the first line's words in its left third. */
function titleOf(page: { width: number; words: Word[] }): string {
  const top = Math.min(...page.words.map((word) => word.y));
  return page.words
    .filter((word) => Math.abs(word.y - top) < 1 && word.x < page.width / 3)
    .map((word) => word.text)
    .join(' ');
}

describe('printed type of the demo, us, uk and de workbooks', () => {
  let harness: ExportHarness;
  let out = '';
  /** Points per unit of word height, for the font LibreOffice prints with here. */
  let pointsPerHeight = 0;
  const smallest: Record<string, Record<string, number>> = {};
  /** The words of each printed page, by run and sheet title. */
  const printed: Record<string, Map<string, string[][]>> = {};

  const convert = (files: string[]) => printToPdf(files, out, harness.outDir);

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    out = join(harness.outDir, 'printed');
    await mkdir(out);
    const reference = new ExcelJS.Workbook();
    reference
      .addWorksheet('Reference', { pageSetup: { fitToPage: false, scale: 100 } })
      .addRow(['Reference type 0123456789']);
    await reference.xlsx.writeFile(join(out, 'reference.xlsx'));
    const books = [join(out, 'reference.xlsx')];
    for (const [name, options] of Object.entries(RUNS)) {
      const request = parseExportRequest({ profile: 'demo', period: '2025', ...options });
      const result = await runExport(request, harness.deps());
      await cp(join(harness.outDir, result.prefix, 'demo_2025.xlsx'), join(out, `${name}.xlsx`));
      books.push(join(out, `${name}.xlsx`));
    }
    await convert(books);
    const [referencePage] = await pageWords(join(out, 'reference.pdf'));
    pointsPerHeight = 11 / Math.min(...(referencePage?.words ?? []).map((word) => word.height));
    for (const name of Object.keys(RUNS)) {
      smallest[name] = {};
      const pages = new Map<string, string[][]>();
      printed[name] = pages;
      for (const page of await pageWords(join(out, `${name}.pdf`))) {
        const title = titleOf(page);
        pages.set(title, [...(pages.get(title) ?? []), page.words.map((word) => word.text)]);
        const least = Math.min(...page.words.map((word) => word.height * pointsPerHeight));
        const sheets = smallest[name] as Record<string, number>;
        sheets[title] = Math.min(sheets[title] ?? Number.POSITIVE_INFINITY, Math.round(least * 10) / 10);
      }
    }
  }, 600_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('measures the reference type as 11 points (the PDF holds text pdftotext reads)', async () => {
    const text = await readFile(join(out, 'reference.pdf'));
    expect([text.length > 0, pointsPerHeight > 0.5 && pointsPerHeight < 1.5]).toEqual([true, true]);
  });

  it.each(Object.keys(RUNS))('prints every sheet of the %s workbook in type of 8 points or more', (name) => {
    const sheets = smallest[name] as Record<string, number>;
    const tooSmall = Object.entries(sheets).filter(([, points]) => points < LEAST_POINTS);
    expect([Object.keys(sheets).length >= 5, tooSmall]).toEqual([true, []]);
  });

  /**
   * The sheets an accountant files from: a word of the header of a column only the first page
   * across prints (the repeated first column aside), the row labels' header word, and each money
   * column's header word (headers wrap: the column's first word).
   */
  const FILED: [run: string, sheet: string, first: string, labels: string, money: string[]][] = [
    ['uk', 'Capital Gains summary', 'First', 'Item', ['Amount']],
    ['de', 'Anlage SO', 'First', 'Item', ['Amount']],
    ['us', 'Form 8949', 'Part', '(a)', ['(d)', '(e)', '(g)', '(h)']],
    ['us', 'Schedule D', 'Line', 'Description', ['(d)', '(e)', '(g)', '(h)']],
  ];
  /** A money amount as printed: `-1,234.56`. */
  const AMOUNT = /^-?\d{1,3}(,\d{3})*\.\d\d$/;

  it.each(FILED)(
    "prints the %s workbook's %s with the row labels and every money column on the first page across",
    (run, sheet, first, labels, money) => {
      const pages = printed[run]?.get(sheet) ?? [];
      const firstAcross = pages.filter((words) => words.includes(first));
      const missing = firstAcross.flatMap((words, i) =>
        [labels, ...money]
          .filter((header) => !words.includes(header))
          .map((header) => `page ${i + 1}: ${header}`),
      );
      const amountsElsewhere = pages.filter(
        (words) => !words.includes(first) && words.some((word) => AMOUNT.test(word)),
      ).length;
      expect([firstAcross.length > 0, missing, amountsElsewhere]).toEqual([true, [], 0]);
    },
  );

  /**
   * The summary sheets print one page wide (issue 39, item 11): every page of the sheet has the
   * header word of its first column and of its last printed one, so no page holds labels without
   * amounts or amounts without labels (a sheet printed two pages across has each on one of them).
   */
  const SUMMARIES: [run: string, sheet: string, first: string, last: string][] = [
    ['demo', 'Read me', 'Topic', 'Text'],
    ['demo', 'By month', 'Month', 'Fees'],
    ['demo', 'By token', 'Token', 'Net'],
    ['us', 'Read me', 'Topic', 'Text'],
    ['us', 'Gains summary', 'Tax', 'Net'],
    ['us', 'Income', 'Tax', 'Value'],
    ['us', 'Warnings', 'Date', 'Message'],
    ['us', 'Schedule D', 'Tax', '(h)'],
    ['us', 'Schedule 1', 'Tax', 'Amount'],
    ['uk', 'Gains summary', 'Tax', 'Net'],
    ['uk', 'Warnings', 'Date', 'Message'],
    ['uk', 'Capital Gains summary', 'Tax', 'Amount'],
    ['de', 'Gains summary', 'Tax', 'Net'],
    ['de', 'Income', 'Tax', 'Value'],
    ['de', 'Anlage SO', 'Tax', 'Amount'],
  ];

  it.each(SUMMARIES)(
    "prints the %s workbook's %s one page wide: its first and last columns on every page",
    (run, sheet, first, last) => {
      const pages = printed[run]?.get(sheet) ?? [];
      const partial = pages.flatMap((words, i) =>
        [first, last].filter((header) => !words.includes(header)).map((header) => `page ${i + 1}: ${header}`),
      );
      expect([pages.length > 0, partial]).toEqual([true, []]);
    },
  );

  it("prints the us workbook's warnings on one page, each message whole (it wraps, not cut at the edge)", () => {
    const pages = printed.us?.get('Warnings') ?? [];
    const words = pages.flat();
    expect([pages.length, words.includes('zero'), words.filter((w) => w === 'basis').length > 0]).toEqual([
      1,
      true,
      true,
    ]);
  });
});
