/**
 * The workbook's Journal sheet as an accountant reads and prints it: the side of a line that is
 * not posted is an empty cell (not `0`), as exceljs's reader and LibreOffice see it, while the
 * journal CSV keeps its `0`; printed by LibreOffice to PDF, the Currency column stands apart from
 * the Credit amounts before it (poppler's `pdftotext -bbox`: word positions in points).
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const run = promisify(execFile);

describe('the Journal sheet of the demo workbook', () => {
  let harness: ExportHarness;
  let folder = '';
  let sheet: ExcelJS.Worksheet;

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const request = { profile: 'demo', period: '2025-03', reports: ['journal'], formats: ['csv', 'xlsx'] };
    const result = await runExport(parseExportRequest(request), harness.deps());
    folder = join(harness.outDir, result.prefix);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(folder, 'demo_2025-03.xlsx'));
    const found = workbook.getWorksheet('Journal');
    if (found === undefined) throw new Error('no Journal sheet');
    sheet = found;
  }, 240_000);
  afterAll(async () => {
    await harness?.close();
  });

  /** The sheet's data rows as header → cell value. */
  const rows = () => {
    const columns = Array.from({ length: sheet.columnCount }, (_, i) => i + 1);
    const headers = columns.map((i) => String(sheet.getRow(1).getCell(i).value));
    const out: Record<string, unknown>[] = [];
    sheet.eachRow((row, n) => {
      if (n === 1) return;
      out.push(Object.fromEntries(columns.map((i, k) => [headers[k], row.getCell(i).value ?? null])));
    });
    return out;
  };

  it('leaves the side a line does not post empty, and shows the other as a number', () => {
    const lines = rows();
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) {
      const sides = [line.Debit, line.Credit];
      // Exactly one side holds a number; the other is an empty cell (a line of 0 and 0: both empty).
      expect(sides.filter((side) => side !== null && typeof side !== 'number')).toEqual([]);
      expect(sides.filter((side) => side !== null).length).toBeLessThanOrEqual(1);
      expect(sides.some((side) => side === 0)).toBe(false);
    }
    expect(lines.some((line) => line.Debit === null && typeof line.Credit === 'number')).toBe(true);
    expect(lines.some((line) => line.Credit === null && typeof line.Debit === 'number')).toBe(true);
  });

  it('keeps the 0 of the unposted side in the journal CSV, line for line with the sheet', async () => {
    const text = await readFile(join(folder, 'demo_2025-03_journal.csv'), 'utf8');
    const csv = parse(text, { bom: true, columns: true }) as Record<string, string>[];
    const sheetRows = rows();
    expect(csv.length).toBe(sheetRows.length);
    csv.forEach((line, i) => {
      expect(line.debit === '0' || line.credit === '0').toBe(true);
      const shown = sheetRows[i] as Record<string, unknown>;
      expect(shown.Debit === null ? '0' : String(shown.Debit)).toBe(String(Number(line.debit)));
      expect(shown.Credit === null ? '0' : String(shown.Credit)).toBe(String(Number(line.credit)));
    });
  });

  it('prints the currency apart from the credit amount before it', async () => {
    const out = join(harness.outDir, 'printed');
    await mkdir(out);
    await run('soffice', [
      `-env:UserInstallation=${pathToFileURL(join(harness.outDir, 'lo-profile')).href}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      out,
      join(folder, 'demo_2025-03.xlsx'),
    ]);
    const { stdout } = await run('pdftotext', ['-bbox', join(out, 'demo_2025-03.pdf'), '-'], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const pages = stdout.split('<page ').slice(1);
    const journal = pages.filter((page) => firstWords(page).startsWith('Journal'));
    let currencies = 0;
    for (const page of journal) {
      const words = pageWords(page);
      // The pages that print the Currency column (the others print the columns past the page's width).
      const header = words.find((w) => w.text === 'Currency');
      if (header === undefined) continue;
      const footer = Math.max(...words.map((w) => w.y));
      const cells = words.filter(
        (w) => w.y > header.y && w.y < footer && w.xMin < header.xMax && w.xMax > header.xMin,
      );
      for (const word of cells) {
        expect(word.text).toBe('USD');
        // The word printed just before it on its line: the Credit (or Debit) amount.
        const before = words
          .filter((w) => w.y === word.y && w.xMax <= word.xMin)
          .sort((a, b) => b.xMax - a.xMax)[0];
        expect(before?.text).toMatch(/^-?[\d,]+(\.\d+)?$/);
        // A space of the 11-point type at the least (the number alone would touch it).
        expect(word.xMin - (before?.xMax ?? 0)).toBeGreaterThanOrEqual(2.5);
        currencies += 1;
      }
    }
    // Every data row prints its currency as a word of its own (glued to a number it would not be).
    expect(currencies).toBe(rows().length);
  });
});

interface Word {
  xMin: number;
  xMax: number;
  y: number;
  text: string;
}

function pageWords(page: string): Word[] {
  return [
    ...page.matchAll(/<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g),
  ].map((m) => ({
    xMin: Number(m[1]),
    y: Math.round(Number(m[2])),
    xMax: Number(m[3]),
    text: m[4] as string,
  }));
}

/** The page header's first words (the sheet's title on the left). */
function firstWords(page: string): string {
  const words = pageWords(page);
  const top = Math.min(...words.map((w) => w.y));
  return words
    .filter((w) => w.y === top)
    .map((w) => w.text)
    .join(' ');
}
