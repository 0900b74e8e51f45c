/**
 * The demo's workbook as an accountant prints it: LibreOffice prints it to PDF, poppler's
 * `pdftotext` reads each page back and `pdftoppm` renders a few pages to PNG (the pictures these
 * checks were written from). Needs `soffice` (libreoffice-calc-nogui) and poppler-utils.
 */
import { execFile } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDecimal } from '../../lib/domain/index.ts';
import { DEMO_BANNER, parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const run = promisify(execFile);

/** Sheets in workbook order, as each page header names them. */
const SHEETS = ['Read me', 'Transactions', 'Movements', 'By month', 'By token', 'About'];

describe('the demo workbook printed to PDF by LibreOffice', () => {
  let harness: ExportHarness;
  let pdf = '';
  let pages: string[] = [];
  let pageSize = { width: 0, height: 0 };

  /** The first line of a page: its page header. */
  const headerLine = (page: string) => page.split('\n')[0] ?? '';
  /** The pages of one sheet, by the title on the left of their page header. */
  const pagesOf = (title: string) =>
    pages.filter((page) => headerLine(page).trimStart().startsWith(`${title} `));
  /** The lines of a page after its page header, empty lines dropped. */
  const bodyLines = (page: string) =>
    page
      .split('\n')
      .slice(1)
      .filter((line) => line.trim() !== '');

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(parseExportRequest({ profile: 'demo', period: '2025' }), harness.deps());
    const folder = join(harness.outDir, result.prefix);
    const out = join(harness.outDir, 'printed');
    await mkdir(out);
    await run('soffice', [
      `-env:UserInstallation=${pathToFileURL(join(harness.outDir, 'lo-profile')).href}`,
      '--headless',
      '--convert-to',
      'pdf',
      '--outdir',
      out,
      join(folder, 'demo_2025.xlsx'),
    ]);
    pdf = join(out, 'demo_2025.pdf');
    const { stdout: info } = await run('pdfinfo', [pdf]);
    const count = Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
    const size = /Page size:\s+([\d.]+) x ([\d.]+)/.exec(info);
    pageSize = { width: Number(size?.[1]), height: Number(size?.[2]) };
    pages = [];
    for (let page = 1; page <= count; page += 1) {
      const { stdout } = await run('pdftotext', [
        '-layout',
        '-f',
        String(page),
        '-l',
        String(page),
        pdf,
        '-',
      ]);
      pages.push(stdout.replace(/\f/g, ''));
    }
  }, 240_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('prints no ### anywhere: every number fits its column, totals included', () => {
    expect(pages.filter((page) => page.includes('###'))).toEqual([]);
  });

  it('prints the sheets in order, the Read me first, each page headed by its sheet, profile, period and the demo banner', () => {
    const titles = pages.map((page) =>
      SHEETS.find((title) => headerLine(page).trimStart().startsWith(`${title} `)),
    );
    const order = titles.filter((title, i) => title !== titles[i - 1]);
    expect([
      order,
      pages.filter((page) => !headerLine(page).includes('Profile demo · 2025 (UTC)')).length,
      pages.filter((page) => !headerLine(page).trimEnd().endsWith(DEMO_BANNER)).length,
    ]).toEqual([SHEETS, 0, 0]);
  });

  it('prints "Page n of m" at the foot of every page', () => {
    const footers = pages.map((page) => /Page (\d+) of (\d+)\s*$/.exec(page)?.slice(1).join(' of '));
    expect(footers).toEqual(pages.map((_, i) => `${i + 1} of ${pages.length}`));
  });

  it('prints landscape, every sheet one page wide, its header row repeated on every page', () => {
    // One page wide: each page holds the first and the last column of its sheet's header row.
    const headerRows: Record<string, RegExp> = {
      'Read me': /^Topic\s+Text$/,
      Transactions: /^ID\s+Date \(UTC\).*\smemo$/,
      Movements:
        /^Transaction ID\s+Date \(UTC\).*\sDirection\s+note$|^Transaction ID\s+Date \(UTC\).*\sDirection$/,
      'By month':
        /^Month\s+Protocol\s+Category\s+Currency\s+Transactions \(count\)\s+Value \(USD\)\s+Fees \(USD\)$/,
      'By token': /^Token\s+Currency\s+In quantity \(token\).*\sNet value \(USD\)$/,
      About: /^Item\s+Value$/,
    };
    const wrong = SHEETS.flatMap((title) =>
      pagesOf(title)
        .map((page, i) => [`${title} page ${i + 1}`, bodyLines(page)[0]?.trim() ?? ''] as const)
        .filter(([, first]) => !(headerRows[title] as RegExp).test(first)),
    );
    expect([pageSize.width > pageSize.height, pagesOf('Transactions').length > 1, wrong]).toEqual([
      true,
      true,
      [],
    ]);
  });

  it('prints money with separators and cents, and By month TOTAL equal to the sum of its rows as printed', () => {
    const rows = pagesOf('By month')
      .flatMap(bodyLines)
      .map((line) => line.trim())
      .filter((line) => /^(\d{4}-\d{2}|TOTAL)\s/.test(line));
    const money = (line: string) =>
      [...line.matchAll(/-?[\d,]+\.\d{2}(?=\s|$)/g)].map((m) => m[0].replace(/,/g, ''));
    const months = rows.filter((line) => !line.startsWith('TOTAL'));
    const total = rows.find((line) => line.startsWith('TOTAL')) ?? '';
    const sums = months.reduce<[string, string]>(
      ([value, fees], line) => {
        const [v = '0', f = '0'] = money(line);
        return [addDecimal(value, v), addDecimal(fees, f)];
      },
      ['0', '0'],
    );
    expect([
      months.filter((line) => money(line).length !== 2),
      /^TOTAL\s+USD\s+974\s+\d{1,3}(,\d{3})+\.\d{2}\s+\d{1,3}(,\d{3})*\.\d{2}$/.test(total),
      money(total).map((amount) => addDecimal(amount, '0')),
    ]).toEqual([[], true, sums]);
  });

  it('prints the Read me with every report sheet and the sign conventions', () => {
    const text = pagesOf('Read me').join('\n');
    expect(
      ['Transactions', 'Movements', 'By month', 'By token'].map((title) => text.includes(`sheet "${title}"`)),
    ).toEqual([true, true, true, true]);
    expect(text).toContain('Movements: a positive amount came into the portfolio, a negative one left it');
  });

  it('renders pages to PNG with pdftoppm', async () => {
    const prefix = join(harness.outDir, 'printed', 'page');
    await run('pdftoppm', ['-r', '50', '-png', '-f', '1', '-l', '2', pdf, prefix]);
    const sizes = await Promise.all(['01', '02'].map(async (n) => (await stat(`${prefix}-${n}.png`)).size));
    expect(sizes.every((size) => size > 1000)).toBe(true);
  });
});
