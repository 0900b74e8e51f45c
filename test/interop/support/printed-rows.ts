/**
 * A printed sheet's rows put back together from the PDF of a sheet printed several pages across
 * (its first column repeated on each page, the pages of a band of rows one after the other):
 * poppler's `pdftotext -bbox` gives every word's position; a row's words lie at the same height
 * on each page of its band, and the repeated first column at the same place as on the band's
 * first page.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A printed word: its left and right edges, its top (rounded), its text. */
export interface Word {
  x: number;
  xMax: number;
  y: number;
  text: string;
}

/** One printed page: its words, the page header's and footer's left out, and its header's left text. */
export interface Page {
  title: string;
  body: Word[];
}

/**
 * The pages of `pdf` as poppler's `pdftotext -bbox` gives their words, each word's top rounded to
 * `yStep` points (words of one printed line share it).
 */
export async function printedPages(pdf: string, yStep = 0.5): Promise<Page[]> {
  const { stdout } = await run('pdftotext', ['-bbox', pdf, '-'], { maxBuffer: 256 * 1024 * 1024 });
  return stdout
    .split('<page ')
    .slice(1)
    .map((page) => {
      const width = Number(/width="([\d.]+)"/.exec(page)?.[1]);
      const words = [
        ...page.matchAll(
          /<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">([^<]*)<\/word>/g,
        ),
      ].map((m) => ({
        x: Number(m[1]),
        xMax: Number(m[3]),
        y: Math.round(Number(m[2]) / yStep) * yStep,
        text: xmlText(m[4] as string),
      }));
      const top = Math.min(...words.map((word) => word.y));
      const bottom = Math.max(...words.map((word) => word.y));
      const title = words
        .filter((word) => word.y === top && word.x < width / 3)
        .map((word) => word.text)
        .join(' ');
      return { title, body: words.filter((word) => word.y !== top && word.y !== bottom) };
    });
}

/** XML entities pdftotext writes. */
function xmlText(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&');
}

/** The text of a page's first line: its columns' headers. */
function headerKey(page: Page): string {
  const top = Math.min(...page.body.map((word) => word.y));
  return page.body
    .filter((word) => word.y === top)
    .map((word) => word.text)
    .join(' ');
}

/**
 * The printed lines of each sheet of `pdf` (by the title on the left of its page headers), every
 * band's pages joined across: a line holds its words from the band's first page, then the words
 * of the next pages but their repeated first column.
 */
export async function printedSheetLines(pdf: string): Promise<Map<string, string[]>> {
  const pages = await printedPages(pdf);
  const sheets = new Map<string, Page[]>();
  for (const page of pages) sheets.set(page.title, [...(sheets.get(page.title) ?? []), page]);
  const lines = new Map<string, string[]>();
  for (const [title, sheetPages] of sheets) {
    const first = sheetPages[0] as Page;
    const again = sheetPages.findIndex((page, i) => i > 0 && headerKey(page) === headerKey(first));
    const across = again < 0 ? sheetPages.length : again;
    const sheetLines: string[] = [];
    for (let start = 0; start < sheetPages.length; start += across) {
      const band = sheetPages.slice(start, start + across);
      const lead = band[0] as Page;
      const repeated = new Set(lead.body.map((word) => `${word.x}|${word.y}|${word.text}`));
      const byLine = new Map<number, string[]>();
      band.forEach((page, i) => {
        const words = i === 0 ? page.body : page.body.filter((w) => !repeated.has(`${w.x}|${w.y}|${w.text}`));
        for (const word of [...words].sort((a, b) => a.x - b.x)) {
          byLine.set(word.y, [...(byLine.get(word.y) ?? []), word.text]);
        }
      });
      for (const y of [...byLine.keys()].sort((a, b) => a - b))
        sheetLines.push((byLine.get(y) ?? []).join(' '));
    }
    lines.set(title, sheetLines);
  }
  return lines;
}

/**
 * `files` printed to PDF by headless LibreOffice into `outDir` (each `name.pdf` beside its name),
 * with a private user profile under `profileRoot` so that runs do not share LibreOffice's state.
 */
export async function printToPdf(
  files: readonly string[],
  outDir: string,
  profileRoot: string,
): Promise<void> {
  const profile = `-env:UserInstallation=${pathToFileURL(join(profileRoot, 'lo-profile')).href}`;
  await run('soffice', [profile, '--headless', '--convert-to', 'pdf', '--outdir', outDir, ...files], {
    maxBuffer: 16 * 1024 * 1024,
  });
}
