/**
 * The demo's workbook as an accountant prints it: LibreOffice prints it to PDF, poppler's
 * `pdftotext` reads each page back and `pdftoppm` renders a few pages to PNG (the pictures these
 * checks were written from). Needs `soffice` (libreoffice-calc-nogui) and poppler-utils.
 */
import { execFile } from 'node:child_process';
import { mkdir, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDecimal } from '../../lib/domain/index.ts';
import { DEMO_BANNER, parseExportRequest, runExport } from '../../lib/export/index.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';
import { printedSheetLines } from './support/printed-rows.ts';

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

  it("prints landscape, every page headed by its sheet's header row from the first column on, every column on paper", async () => {
    // Wide sheets print several pages across, each repeating the first column: every page's
    // header row starts with the first column's header, and the pages together end with the last.
    const columns: Record<string, [RegExp, RegExp]> = {
      'Read me': [/^Topic(\s|$)/, /\sText$/],
      Transactions: [/^ID(\s|$)/, /\smemo$/],
      Movements: [/^Transaction ID(\s|$)/, /\s(Direction|note)$/],
      // A number column is as wide as its numbers: its header may wrap before its unit.
      'By month': [/^Month(\s|$)/, /\sFees( \(USD\))?$/],
      'By token': [/^Token(\s|$)/, /\sNet value( \(USD\))?$/],
      About: [/^Item(\s|$)/, /\sValue$/],
    };
    const joined = await printedSheetLines(pdf);
    const wrong = SHEETS.flatMap((title) => {
      const [first, last] = columns[title] as [RegExp, RegExp];
      const unheaded = pagesOf(title)
        .map((page, i) => [`${title} page ${i + 1}`, bodyLines(page).slice(0, 4)] as const)
        .filter(([, lines]) => !lines.some((line) => first.test(line.trim())))
        .map(([name]) => name);
      const header = (joined.get(title) ?? []).slice(0, 4);
      return header.some((line) => last.test(line)) ? unheaded : [...unheaded, `${title}: no last column`];
    });
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
    const sizes = await Promise.all(
      [1, 2].map(async (n) => {
        await run('pdftoppm', [
          '-r',
          '50',
          '-png',
          '-singlefile',
          '-f',
          `${n}`,
          '-l',
          `${n}`,
          pdf,
          `${prefix}-${n}`,
        ]);
        return (await stat(`${prefix}-${n}.png`)).size;
      }),
    );
    expect(sizes.every((size) => size > 1000)).toBe(true);
  });
});

/** The pages of `xlsx` printed to PDF by LibreOffice, each read back by `pdftotext -layout`. */
async function printPages(xlsx: string, workDir: string): Promise<{ pdf: string; pages: string[] }> {
  const out = join(workDir, 'printed');
  await mkdir(out, { recursive: true });
  await run('soffice', [
    `-env:UserInstallation=${pathToFileURL(join(workDir, 'lo-profile')).href}`,
    '--headless',
    '--convert-to',
    'pdf',
    '--outdir',
    out,
    xlsx,
  ]);
  const pdf = join(out, `${basename(xlsx, '.xlsx')}.pdf`);
  const { stdout: info } = await run('pdfinfo', [pdf]);
  const count = Number(/Pages:\s+(\d+)/.exec(info)?.[1]);
  const pages: string[] = [];
  for (let page = 1; page <= count; page += 1) {
    const { stdout } = await run('pdftotext', ['-layout', '-f', String(page), '-l', String(page), pdf, '-']);
    pages.push(stdout.replace(/\f/g, ''));
  }
  return { pdf, pages };
}

/** Printed amounts with cents (`1,234.56`, `-8.38`), commas dropped. */
const amounts = (text: string) =>
  [...text.matchAll(/-?[\d,]+\.\d{2}(?=\s|$)/g)].map((m) => m[0].replace(/,/g, ''));
const add = (values: readonly string[]) => values.reduce((sum, value) => addDecimal(sum, value), '0');
const minus = (a: string, b: string) => addDecimal(a, b.startsWith('-') ? b.slice(1) : `-${b}`);
/** An amount with exactly two decimals, as the sheets print money. */
const cents = (value: string) => new Big(value).toFixed(2);

describe('a us gains run printed to PDF by LibreOffice', () => {
  let harness: ExportHarness;
  let pdf = '';
  let pages: string[] = [];
  const GAINS_SHEETS = [
    'Read me',
    'Disposals',
    'Gains summary',
    'Income',
    'Holdings roll-forward',
    'Warnings',
    'Form 8949',
    'Schedule D',
    'Basis allocation 2025',
    'Schedule 1',
    'Reconciliation',
    'Reconciliation movements',
    'About',
  ];
  // The longest title first: "Reconciliation movements" also starts with "Reconciliation ".
  const byLength = [...GAINS_SHEETS].sort((a, b) => b.length - a.length);
  const titleOf = (page: string) =>
    byLength.find((title) => (page.split('\n')[0] ?? '').trimStart().startsWith(`${title} `));
  let sheetLines = new Map<string, string[]>();
  /** The sheet's printed lines, each band of rows joined across its pages. */
  const linesOf = (title: string) => sheetLines.get(title) ?? [];

  beforeAll(async () => {
    harness = await startExportHarness('demo');
    const request = parseExportRequest({
      profile: 'demo',
      period: '2025',
      reports: ['gains'],
      gains: { taxRules: 'us' },
    });
    const result = await runExport(request, harness.deps());
    ({ pdf, pages } = await printPages(
      join(harness.outDir, result.prefix, 'demo_2025.xlsx'),
      harness.outDir,
    ));
    sheetLines = await printedSheetLines(pdf);
  }, 300_000);

  afterAll(async () => {
    await harness?.close();
  });

  it('prints no ### anywhere, and the sheets in order without the exact companions (CSV only)', () => {
    const order = pages.map(titleOf).filter((title, i, all) => title !== all[i - 1]);
    expect([pages.filter((page) => page.includes('###')).length, order]).toEqual([0, GAINS_SHEETS]);
  });

  it('prints Form 8949 with its columns (a) to (h) on every page, each row (h) = (d) − (e), each box TOTAL the sum of its rows as printed', () => {
    const formPages = pages.filter((page) => titleOf(page) === 'Form 8949');
    // Every page repeats the first column; its band's pages together hold (a) to (h).
    const headed = formPages.filter((page) => /Tax year/.test(page));
    const formText = linesOf('Form 8949').join('\n');
    const rows: string[][] = [];
    const boxes: { box: string; printed: string[]; sums: string[] }[] = [];
    for (const line of linesOf('Form 8949')) {
      const row = /^2025\s+(I|II)\s+([A-L])\s+(.*)$/.exec(line);
      if (row === null) continue;
      const rest = row[3] as string;
      if (rest.startsWith('TOTAL box')) {
        const sums = [0, 1, 2].map((i) => cents(add(rows.map((r) => r[i] as string))));
        boxes.push({ box: row[2] as string, printed: amounts(rest.replace(/^.*line \w+\)/, '')), sums });
        rows.length = 0;
        continue;
      }
      const afterDates = rest.split(/\d{2}\/\d{2}\/\d{4}/).pop() ?? '';
      rows.push(amounts(afterDates));
    }
    const lines = linesOf('Form 8949').filter((line) => /^2025\s+I{1,2}\s+[A-L]\s/.test(line));
    const badRows = lines
      .filter((line) => !line.includes('TOTAL box'))
      .map((line) => amounts(line.split(/\d{2}\/\d{2}\/\d{4}/).pop() ?? ''))
      .filter(([d = '', e = '', h = '', ...more]) => more.length > 0 || cents(minus(d, e)) !== cents(h));
    expect([
      formPages.length > 1,
      headed.length === formPages.length &&
        /\(a\) Description/.test(formText) &&
        /\(h\) Gain or/.test(formText),
      badRows,
      boxes.map((b) => b.box),
      boxes.map((b) => [b.printed[0], b.printed[1], b.printed[3]]),
    ]).toEqual([true, true, [], ['I', 'L'], boxes.map((b) => b.sums)]);
  });

  it('prints Schedule D lines 3 and 10 equal to the Form 8949 box TOTALs, and the gains summary TOTALs equal to them', () => {
    const totals = linesOf('Form 8949')
      .filter((line) => line.includes('TOTAL box'))
      .map((line) => amounts(line.replace(/^.*line \w+\)/, '')));
    const scheduleD = linesOf('Schedule D')
      .filter((line) => /^2025\s+(3|10)\s+[IL]\s/.test(line))
      .map((line) => amounts(line).slice(0, 4));
    const summary = linesOf('Gains summary').filter((line) => /\sTOTAL\s+(short|long)\s/.test(line));
    const summaryTotals = summary.map((line) => {
      const [proceeds, cost, , , net] = amounts(line).slice(-5);
      return [proceeds, cost, net];
    });
    expect([scheduleD, summaryTotals]).toEqual([
      totals.map((t) => t.slice(0, 4)),
      totals.map(([d, e, , h]) => [d, e, h]),
    ]);
  });

  it('prints each gains summary TOTAL as the sum of its token rows as printed', () => {
    const lines = linesOf('Gains summary').filter((line) => /^2025\s/.test(line));
    const wrong = (['short', 'long'] as const).flatMap((term) => {
      const rows = lines.filter((line) => new RegExp(`\\s${term}\\s`).test(line));
      const tokens = rows.filter((line) => !/\sTOTAL\s/.test(line)).map((line) => amounts(line).slice(-5));
      const total = amounts(rows.find((line) => /\sTOTAL\s/.test(line)) ?? '').slice(-5);
      const sums = [0, 1, 2, 3, 4].map((i) => cents(add(tokens.map((t) => t[i] as string))));
      return total.join(' ') === sums.join(' ') ? [] : [{ term, total, sums }];
    });
    expect([lines.length > 2, wrong]).toEqual([true, []]);
  });

  it('renders the first Form 8949 page to PNG with pdftoppm', async () => {
    const first = pages.findIndex((page) => titleOf(page) === 'Form 8949') + 1;
    const prefix = join(harness.outDir, 'printed', 'form8949');
    await run('pdftoppm', [
      '-r',
      '50',
      '-png',
      '-singlefile',
      '-f',
      String(first),
      '-l',
      String(first),
      pdf,
      prefix,
    ]);
    expect((await stat(`${prefix}.png`)).size).toBeGreaterThan(1000);
  });
});
