import type { PageSetup } from './xlsx-sheet.ts';

/**
 * Least print scale, in percent: the sheets' 11-point type prints at 8.25 points, above the least
 * an accountant reads without a magnifier (8 points).
 */
export const MIN_PRINT_SCALE = 75;

/**
 * Width a page prints, in points: US Letter landscape (11 in, the narrower of Letter and A4)
 * less the left and right margins below.
 */
const PRINTABLE_WIDTH_PT = (11 - 0.3 - 0.3) * 72;

/**
 * Printed width of a column of `width` characters, in points at 100 %. A spreadsheet measures a
 * character by the digit of its default font: 7 pixels (5.25 points) in Calibri, 7 points in the
 * DejaVu Sans LibreOffice falls back to without Calibri or Carlito. The wider one is taken, so a
 * sheet the estimate puts on one page fits it in either.
 */
function columnPoints(width: number): number {
  return width * 7 + 4;
}

/**
 * Print setup of a sheet whose columns are `widths` characters wide: landscape, the header row
 * repeated on every page, at a fixed scale (never fit-to-page, which shrinks a wide sheet's type
 * to nothing): 100 % if the sheet fits one page wide, else as large as fits one page down to
 * {@link MIN_PRINT_SCALE} %. A sheet wider than that prints on as many pages across as it takes,
 * its first column (the row's id, date or name) repeated on each, the pages of a band of rows one
 * after the other before the next band: every column of every row is on paper, in type one reads.
 */
export function pageSetup(widths: readonly number[]): Partial<PageSetup> {
  const points = widths.reduce((sum, width) => sum + columnPoints(width), 0);
  const fits = Math.floor((PRINTABLE_WIDTH_PT / points) * 100);
  const scale = Math.min(100, Math.max(MIN_PRINT_SCALE, fits));
  return {
    orientation: 'landscape',
    printTitlesRow: '1:1',
    margins: { left: 0.3, right: 0.3, top: 0.75, bottom: 0.75, header: 0.3, footer: 0.3 },
    fitToPage: false,
    scale,
    ...(fits < MIN_PRINT_SCALE ? { printTitlesColumn: 'A:A', pageOrder: 'overThenDown' as const } : {}),
  };
}

/** Least width a wrapped column is narrowed to, in characters. */
const MIN_WRAPPED_WIDTH = 24;

/**
 * `widths` with the wrapped columns (`wrapped[i]`) narrowed, widest first, until the sheet fits
 * one page wide at {@link MIN_PRINT_SCALE} % (a text that wraps takes more lines, not more pages),
 * none below {@link MIN_WRAPPED_WIDTH}; the widths as they are when that is not enough or there
 * is nothing to narrow.
 */
export function fitWrapped(wrapped: readonly boolean[], widths: readonly number[]): number[] {
  const fitted = [...widths];
  const room = (PRINTABLE_WIDTH_PT * 100) / MIN_PRINT_SCALE;
  let excess = fitted.reduce((sum, width) => sum + columnPoints(width), 0) - room;
  while (excess > 0) {
    let widest = -1;
    fitted.forEach((width, i) => {
      if (wrapped[i] === true && width > MIN_WRAPPED_WIDTH && (widest < 0 || width > (fitted[widest] ?? 0)))
        widest = i;
    });
    if (widest < 0) break;
    fitted[widest] = (fitted[widest] ?? 0) - 1;
    excess -= 7;
  }
  return fitted;
}

/** What the print layout knows of a sheet column. */
export interface PrintColumn {
  /** `number`: number cells (a money or quantity column); `text`: text that may wrap; `other`: dates, exact texts. */
  kind: 'number' | 'text' | 'other';
  /** Whether the column already wraps its text. */
  wrap: boolean;
  /** Least width it may be narrowed to, in characters (its header's longest word). */
  least: number;
  /** The exact-text companion of the number column before it (`Quantity (exact)`). */
  companion?: boolean;
}

/** Widths of a sheet's columns and which of them wrap, as {@link fitPrint} lays them out. */
export interface PrintFit {
  widths: number[];
  wrap: boolean[];
  /**
   * The sheet's columns in their printed order, by index into the columns given ({@link
   * fitPrint}); absent when they keep theirs. `widths` and `wrap` are in this order.
   */
  order?: number[];
}

/** Least width a text column is narrowed to so the filed columns fit the first page across. */
const MIN_NARROWED_WIDTH = 12;

/**
 * Column widths for paper. First {@link fitWrapped}: a sheet that can fit one page across does.
 * A sheet that cannot still keeps what an accountant files on its first page across: every
 * column up to its last number column (the row's labels, dates and amounts; the ids, exact texts,
 * notes and currency that follow print on the next pages). Where those do not fit at
 * {@link MIN_PRINT_SCALE} %, their text columns but the first (the row's label, repeated on every
 * page) are narrowed, widest first, and wrap (rows grow taller instead of the sheet wider), none
 * below its header's longest word or {@link MIN_NARROWED_WIDTH}; when even that is not enough,
 * with `moveExact` (a gains table, see {@link formKind}: the Disposals), the exact-text
 * companions among them (`Quantity (exact)`, which holds digits only where its number cell
 * cannot) move to just after the last number column ({@link PrintFit.order}); when that is not
 * enough either, nothing more is narrowed.
 */
export function fitPrint(
  columns: readonly PrintColumn[],
  widths: readonly number[],
  moveExact = false,
): PrintFit {
  const { fits, ...fit } = narrowFiled(columns, widths);
  if (fits || !moveExact) return fit;
  const order = companionsAfterFiled(columns);
  if (order === undefined) return fit;
  const moved = narrowFiled(
    order.map((i) => columns[i] as PrintColumn),
    order.map((i) => widths[i] as number),
  );
  if (!moved.fits) return fit;
  return { widths: moved.widths, wrap: moved.wrap, order };
}

/**
 * The order that moves the exact-text companions among a sheet's filed columns (up to its last
 * number column) to just after them, the others in their order; `undefined` when there is none.
 */
function companionsAfterFiled(columns: readonly PrintColumn[]): number[] | undefined {
  const filed = columns.map((column) => column.kind).lastIndexOf('number');
  const index = columns.map((_, i) => i);
  const moved = index.filter((i) => i < filed && columns[i]?.companion === true);
  if (moved.length === 0) return undefined;
  const kept = index.filter((i) => i <= filed && !moved.includes(i));
  return [...kept, ...moved, ...index.slice(filed + 1)];
}

/** {@link fitPrint} in the columns' order; `fits`: whether its filed columns fit one page across. */
function narrowFiled(
  columns: readonly PrintColumn[],
  widths: readonly number[],
): PrintFit & { fits: boolean } {
  const wrap = columns.map((column) => column.wrap);
  const fitted = fitWrapped(wrap, widths);
  const room = (PRINTABLE_WIDTH_PT * 100) / MIN_PRINT_SCALE;
  const filed = columns.map((column) => column.kind).lastIndexOf('number');
  const width = (list: readonly number[]) =>
    list.slice(0, filed + 1).reduce((sum, w) => sum + columnPoints(w), 0);
  if (filed < 0 || width(fitted) <= room) return { widths: fitted, wrap, fits: true };
  const floor = (i: number) => Math.max(columns[i]?.least ?? 0, MIN_NARROWED_WIDTH);
  const narrowable = (i: number) => i > 0 && i <= filed && columns[i]?.kind === 'text';
  const least = fitted.map((w, i) => (narrowable(i) ? Math.min(w, floor(i)) : w));
  if (width(least) > room) return { widths: fitted, wrap, fits: false };
  let excess = width(fitted) - room;
  while (excess > 0) {
    let widest = -1;
    fitted.forEach((w, i) => {
      if (narrowable(i) && w > floor(i) && (widest < 0 || w > (fitted[widest] ?? 0))) widest = i;
    });
    if (widest < 0) break;
    fitted[widest] = (fitted[widest] ?? 0) - 1;
    wrap[widest] = true;
    excess -= 7;
  }
  return { widths: fitted, wrap, fits: true };
}

/**
 * Tables an accountant files from or copies onto a form (`spec.name`): Form 8949 and Schedule D,
 * Schedule 1, the SA108 and Anlage SO summaries (`tax_summary`). They print one page wide
 * ({@link fitForm}) when their form's columns can, in type of 8.25 points or more.
 */
const FORM_TABLES: ReadonlySet<string> = new Set(['form-8949', 'schedule-d', 'schedule-1', 'tax_summary']);

/**
 * The gains report's other tables: one page wide when every column can be. Not the allocation
 * statement of 2025: its long "How allocated" texts, narrowed to fit, would print on three times
 * the pages.
 */
const GAINS_TABLES: ReadonlySet<string> = new Set([
  'disposals',
  'gains_summary',
  'income',
  'holdings',
  'gains_warnings',
  'pool_history',
]);

/**
 * How table `name` prints (see {@link fitForm}): `form`, one page wide with at least the form's
 * columns; `gains`, one page wide when every column fits; `undefined`: as any sheet ({@link fitPrint}).
 */
export function formKind(name: string): 'form' | 'gains' | undefined {
  return FORM_TABLES.has(name)
    ? 'form'
    : GAINS_TABLES.has(name) || SUMMARY_TABLES.has(name)
      ? 'gains'
      : undefined;
}

/**
 * Summary sheets an accountant reads on paper (besides the forms): the Read me, the gains
 * summary, income, the warnings and the summaries by month and by token. They print one page
 * wide in type of 8.25 points or more; when every column cannot, the technical ones (see
 * {@link screenLast}) move to the end of the sheet and stay on screen.
 */
const SUMMARY_TABLES: ReadonlySet<string> = new Set([
  'readme',
  'gains_summary',
  'income',
  'gains_warnings',
  'summary_by_month',
  'summary_by_token',
]);

/** Whether table `name` is a summary sheet (see {@link SUMMARY_TABLES}). */
export function isSummary(name: string): boolean {
  return SUMMARY_TABLES.has(name);
}

/**
 * Columns of a summary kept on screen when it cannot print every column one page wide, by table:
 * always the exact companions (the rounded figure beside them prints); in the gains summary the
 * tax year's first and last day (its `Covers` says it in words), the currency (the money headers
 * name it) and the quantity (the money is what is filed; the Disposals list each quantity); in
 * the warnings the account and the suggestion (the message says what happened; the CSV and the
 * screen keep the rest); in the summaries by month and by token the currency (the money headers
 * name it).
 */
const SCREEN_KEYS: Readonly<Record<string, readonly string[]>> = {
  gains_summary: ['first_day', 'last_day', 'currency', 'quantity'],
  income: ['first_day', 'last_day', 'currency', 'quantity'],
  gains_warnings: ['account', 'suggestion'],
  summary_by_month: ['currency'],
  summary_by_token: ['currency'],
};

/**
 * The order of summary `table`'s columns for paper: the columns an accountant reads first, in
 * their order, then the technical ones ({@link SCREEN_KEYS} and the exact companions); `kept`,
 * how many print.
 */
export function screenLast(
  table: string,
  columns: readonly { key: string; companion: boolean }[],
): { order: number[]; kept: number } {
  const keys = SCREEN_KEYS[table] ?? [];
  const technical = (c: { key: string; companion: boolean }) => c.companion || keys.includes(c.key);
  const read = columns.flatMap((c, i) => (technical(c) ? [] : [i]));
  const screen = columns.flatMap((c, i) => (technical(c) ? [i] : []));
  return { order: [...read, ...screen], kept: read.length };
}

/** A word of digits with its separators and signs: an amount, a quantity, a date or a year. */
const NUMBER_WORD = /^[-+(]?[\d.,/:]+[)%]?$/;

/**
 * Length of the longest word of `texts` a sheet keeps whole on paper, 0 when none: a number word
 * (see {@link NUMBER_WORD}), or any word (an id, a code) for `any`.
 */
export function longestWholeWord(
  texts: Iterable<string | null | undefined>,
  which: 'number' | 'any',
): number {
  let most = 0;
  for (const text of texts) {
    if (text === null || text === undefined) continue;
    for (const word of text.split(/\s+/))
      if (which === 'any' || NUMBER_WORD.test(word)) most = Math.max(most, word.length);
  }
  return most;
}

/** What the sampled rows of a text column hold, in characters (see {@link fitForm}). */
export interface FormText {
  /** Its longest word that must print whole (see {@link longestWholeWord}). */
  whole: number;
  /** Its longest line. */
  longest: number;
}

/** Layout of a form sheet on paper: its column widths, which wrap, and how many print. */
export interface FormFit extends PrintFit {
  /** The first `printed` columns print, one page wide; the ones after them stay on screen only. */
  printed: number;
}

/**
 * Layout of a form sheet ({@link formKind}) one page wide at {@link MIN_PRINT_SCALE} % or
 * more: its text columns but the first (the row's label) narrowed, widest first, and wrapped at
 * spaces, none below its header's longest word or its longest whole word (`texts[i].whole`,
 * column i's longest word that must not break: a form's quantities and dates, digits that take
 * a character each, and one for the cell's padding; every word of a `gains` table, so its ids
 * and codes print whole, and two, for capitals wider than digits); its number columns as wide
 * as their widest number. Every column prints when that fits; else, for a `form`, the columns up to the
 * last number column (the form's own, e.g. Form 8949's (a) to (h)), the ids, notes and currency
 * after them kept on screen and in the CSV. `undefined` when not even those fit (the sheet then
 * prints as any other, {@link fitPrint}).
 */
export function fitForm(
  kind: 'form' | 'gains',
  columns: readonly PrintColumn[],
  widths: readonly number[],
  texts: readonly FormText[],
  keep?: number,
): FormFit | undefined {
  const room = (PRINTABLE_WIDTH_PT * 100) / MIN_PRINT_SCALE;
  const pad = kind === 'form' ? 1 : 2;
  const floor = (i: number) => Math.max(columns[i]?.least ?? 0, (texts[i]?.whole ?? 0) + pad);
  // Where none of the column's cells wraps (only its header may).
  const unwrapped = (i: number) => Math.max(floor(i), (texts[i]?.longest ?? 0) + pad);
  // The spreadsheet fits the page itself (fit to width): this only decides whether the type stays
  // 8.25 points or more, so a column counts its measured width (7 points a character as
  // LibreOffice prints it without Calibri), not the margin of `columnPoints` for fixed scales.
  const columnPoints = (w: number) => w * 7;
  const narrowable = (i: number) => i > 0 && columns[i]?.kind === 'text';
  const filed = columns.map((column) => column.kind).lastIndexOf('number');
  // `keep`: a summary whose first `keep` columns print when not all can (see {@link screenLast}).
  const candidates =
    keep !== undefined
      ? [columns.length, keep]
      : filed < 0 || kind === 'gains'
        ? [columns.length]
        : [columns.length, filed + 1];
  for (const printed of candidates) {
    const points = (list: readonly number[]) =>
      list.slice(0, printed).reduce((sum, w) => sum + columnPoints(w), 0);
    const least = widths.map((w, i) => (narrowable(i) ? Math.min(w, floor(i)) : w));
    if (points(least) > room) continue;
    const fitted = [...widths];
    const wrap = columns.map((column) => column.wrap);
    let excess = points(fitted) - room;
    // First down to where their cells still fit one line (a date, a box, a code: only the header
    // wraps), then, wrapping at spaces, to their floor: the longest texts keep the most room.
    for (const bound of [unwrapped, floor]) {
      while (excess > 0) {
        let widest = -1;
        fitted.forEach((w, i) => {
          if (i < printed && narrowable(i) && w > bound(i) && (widest < 0 || w > (fitted[widest] ?? 0)))
            widest = i;
        });
        if (widest < 0) break;
        fitted[widest] = (fitted[widest] ?? 0) - 1;
        if ((fitted[widest] ?? 0) < unwrapped(widest)) wrap[widest] = true;
        excess -= 7;
      }
    }
    return { widths: fitted, wrap, printed };
  }
  return undefined;
}

/**
 * Print setup of a form sheet laid out by {@link fitForm}: landscape, its first `printed` columns
 * (of `count`) fitted to one page wide and as many pages down as the rows take, the header row
 * repeated on each page.
 */
export function formPageSetup(printed: number, count: number): Partial<PageSetup> {
  return {
    orientation: 'landscape',
    printTitlesRow: '1:1',
    margins: { left: 0.3, right: 0.3, top: 0.75, bottom: 0.75, header: 0.3, footer: 0.3 },
    fitToPage: true,
    fitToWidth: 1,
    fitToHeight: 0,
    ...(printed < count ? { printArea: `A:${columnLetters(printed)}` } : {}),
  };
}

/** The letters of column `n` (1 = A). */
function columnLetters(n: number): string {
  let letters = '';
  for (let rest = n; rest > 0; rest = Math.floor((rest - 1) / 26))
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
}

/**
 * Lines `text` takes wrapped at spaces into lines of `perLine` characters, a word longer than a
 * line broken across lines (as a spreadsheet prints it): a form sheet's row height.
 */
export function wordWrappedLines(text: string, perLine: number): number {
  let lines = 0;
  for (const paragraph of text.split('\n')) {
    let used = 0;
    lines += 1;
    for (const word of paragraph.split(' ')) {
      const needed = used === 0 ? word.length : used + 1 + word.length;
      if (needed <= perLine) {
        used = needed;
        continue;
      }
      if (used > 0) lines += 1;
      const broken = Math.max(1, Math.ceil(word.length / perLine));
      lines += broken - 1;
      used = word.length - (broken - 1) * perLine;
    }
  }
  return lines;
}
