/**
 * The tax-form sheets as an accountant prints them: the workbooks of a us, a uk and a de gains
 * run printed to PDF by LibreOffice, every word's position read back with poppler's
 * `pdftotext -bbox`. Each page of Form 8949, the Capital Gains summary (SA108) and Anlage SO
 * carries the headers of every column it prints (one page wide: no column on a page of its own),
 * and every amount prints as one word, row by row equal to its cell; Form 8949's quantities in
 * (a) are never broken across lines. Needs `soffice` (libreoffice-calc-nogui) and poppler-utils.
 */
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { type Page, printedPages, printToPdf, type Word } from './support/printed-rows.ts';

/** The gains runs whose form sheets are checked, and each one's form sheet. */
const RUNS = {
  us: { sheet: 'Form 8949', gains: { taxRules: 'us' } },
  // The demo's values are in USD: uk and de rules compute in them by explicit choice.
  uk: { sheet: 'Capital Gains summary', gains: { taxRules: 'uk', currency: 'USD' } },
  de: { sheet: 'Anlage SO', gains: { taxRules: 'de', currency: 'USD' } },
} as const;
type RunName = keyof typeof RUNS;

/** A sheet's header and data rows as exceljs reads them. */
interface SheetCells {
  header: string[];
  rows: ExcelJS.Cell[][];
}

function sheetCells(sheet: ExcelJS.Worksheet): SheetCells {
  const count = sheet.columnCount;
  const cells = (row: ExcelJS.Row) => Array.from({ length: count }, (_, i) => row.getCell(i + 1));
  const rows: ExcelJS.Cell[][] = [];
  sheet.eachRow((row, n) => {
    if (n > 1) rows.push(cells(row));
  });
  return { header: cells(sheet.getRow(1)).map((cell) => String(cell.value)), rows };
}

/** A number cell as its `#,##0.00`-style format prints it (the format's decimals, thousands separated). */
function printedNumber(cell: ExcelJS.Cell): string {
  const decimals = /\.(0+)/.exec(cell.numFmt ?? '')?.[1]?.length ?? 0;
  return (cell.value as number).toLocaleString('en-US', {
    minimumFractionDigits: decimals,
    maximumFractionDigits: decimals,
    useGrouping: (cell.numFmt ?? '').includes(','),
  });
}

/** A word of a text cell made of digits and separators: a quantity, a date. */
const NUMBER_WORD = /^[-+(]?\d[\d.,/:]*\)?$/;

describe('tax-form sheets printed to PDF by LibreOffice', () => {
  let harness: ExportHarness;
  const pages = {} as Record<RunName, Page[]>;
  const sheets = {} as Record<RunName, SheetCells>;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const out = join(harness.outDir, 'printed');
    await mkdir(out);
    const books: string[] = [];
    for (const [name, { sheet, gains }] of Object.entries(RUNS)) {
      const request = parseExportRequest({ profile: 'demo', period: '2025', reports: ['gains'], gains });
      const result = await runExport(request, harness.deps());
      const book = join(out, `${name}.xlsx`);
      await cp(join(harness.outDir, result.prefix, 'demo_2025.xlsx'), book);
      books.push(book);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.readFile(book);
      const found = workbook.getWorksheet(sheet);
      if (found === undefined) throw new Error(`no ${sheet} sheet in the ${name} workbook`);
      sheets[name as RunName] = sheetCells(found);
    }
    await printToPdf(books, out, harness.outDir);
    for (const name of Object.keys(RUNS) as RunName[]) {
      pages[name] = (await printedPages(join(out, `${name}.pdf`), 1)).filter(
        (page) => page.title === RUNS[name].sheet,
      );
    }
  }, 600_000);

  afterAll(async () => {
    await harness?.close();
  });

  /** The headers' words a page must carry: every column's up to and with the last number column, or every column's. */
  const headerWords = (name: RunName, every: boolean): string[] => {
    const { header, rows } = sheets[name];
    const numbers = header.map((_, i) => rows.some((row) => typeof row[i]?.value === 'number'));
    const last = every ? header.length - 1 : numbers.lastIndexOf(true);
    return header.slice(0, last + 1).map((text) => text.split(' ')[0] as string);
  };

  it.each([
    ['us', false],
    ['uk', true],
    ['de', true],
  ] as const)(
    'prints every %s form page one page wide, with the headers of all its columns (every column: %s)',
    (name, every) => {
      const printed = pages[name];
      const wanted = headerWords(name, every);
      const missing = printed.flatMap((page, i) =>
        wanted
          .filter((word) => !page.body.some((w) => w.text === word))
          .map((word) => `page ${i + 1}: ${word}`),
      );
      expect([printed.length > 0, missing]).toEqual([true, []]);
    },
  );

  /**
   * The printed rows of a form sheet, in order: a row starts at its first cell (the tax year),
   * printed where the first column's header is, and holds the words down to the next row's start.
   * `headerX` is where a header's first word prints on the row's page.
   */
  const printedRows = (name: RunName): { words: Word[]; headerX: (word: string) => number }[] => {
    const { header, rows } = sheets[name];
    const first = header[0]?.split(' ')[0] as string;
    const firstCells = new Set(rows.map((row) => String(row[0]?.value)));
    return pages[name].flatMap((page) => {
      const top = Math.min(...page.body.filter((w) => w.text === first).map((w) => w.y));
      const lead = page.body.find((w) => w.text === first && w.y === top);
      if (lead === undefined) return [];
      const starts = page.body
        .filter((w) => w.y > top && Math.abs(w.x - lead.x) < 2 && firstCells.has(w.text))
        .map((w) => w.y)
        .sort((a, b) => a - b);
      const headerX = (word: string) =>
        page.body.find((w) => w.text === word && w.y < (starts[0] ?? 0))?.x ?? Number.POSITIVE_INFINITY;
      return starts.map((y, i) => ({
        // Words of one line may differ in height by a point (rounding): a row starts 2 points early.
        words: page.body
          .filter((w) => w.y >= y - 2 && w.y < (starts[i + 1] ?? Number.POSITIVE_INFINITY) - 2)
          .sort((a, b) => a.x - b.x),
        headerX,
      }));
    });
  };

  it.each(Object.keys(RUNS) as RunName[])(
    'prints every amount of the %s form sheet as one word, row by row equal to its cell',
    (name) => {
      const { header, rows } = sheets[name];
      const numbers = header.map((_, i) => rows.some((row) => typeof row[i]?.value === 'number'));
      // The header of the column after the last number column: where the numbers end on paper.
      const after = header[numbers.lastIndexOf(true) + 1]?.split(' ')[0] ?? '';
      const expected = rows.map((row) =>
        row.filter((cell) => typeof cell.value === 'number').map(printedNumber),
      );
      const printed = printedRows(name).map(({ words, headerX }) => {
        // The numbers on the row's first line (a number never wraps), right of its first cell.
        const line = Math.min(...words.map((w) => w.y));
        const firstX = Math.min(...words.map((w) => w.x));
        return words
          .filter((w) => Math.abs(w.y - line) < 3 && w.x > firstX + 1 && w.x < headerX(after))
          .filter((w) => /^-?\d[\d,]*(\.\d+)?$/.test(w.text))
          .map((w) => w.text);
      });
      // Text cells with digits print among them (a quantity, a box number): the amounts are the
      // line's last numbers.
      const tails = printed.map((line, i) => line.slice(line.length - (expected[i]?.length ?? 0)));
      expect([printed.length, tails]).toEqual([rows.length, expected]);
    },
  );

  it("prints Form 8949's quantities in (a) whole, each one word of its row's description", () => {
    const { header, rows } = sheets.us;
    const column = header.findIndex((text) => text.startsWith('(a)'));
    const printed = printedRows('us');
    const broken = rows.flatMap((row, i) => {
      const described = String(row[column]?.value ?? '');
      const words = printed[i]?.words ?? [];
      const from = printed[i]?.headerX('(a)') ?? Number.NaN;
      const to = printed[i]?.headerX('(b)') ?? Number.NaN;
      const inColumn = new Set(words.filter((w) => w.x >= from - 1 && w.x < to).map((w) => w.text));
      return described
        .split(' ')
        .filter((word) => NUMBER_WORD.test(word) && !inColumn.has(word))
        .map((word) => `row ${i + 2}: ${word}`);
    });
    expect([printed.length, broken]).toEqual([rows.length, []]);
  });
});
