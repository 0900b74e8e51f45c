import type { PageSetup } from 'exceljs';

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
}

/** Widths of a sheet's columns and which of them wrap, as {@link fitPrint} lays them out. */
export interface PrintFit {
  widths: number[];
  wrap: boolean[];
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
 * nothing more is narrowed.
 */
export function fitPrint(columns: readonly PrintColumn[], widths: readonly number[]): PrintFit {
  const wrap = columns.map((column) => column.wrap);
  const fitted = fitWrapped(wrap, widths);
  const room = (PRINTABLE_WIDTH_PT * 100) / MIN_PRINT_SCALE;
  const filed = columns.map((column) => column.kind).lastIndexOf('number');
  const width = (list: readonly number[]) =>
    list.slice(0, filed + 1).reduce((sum, w) => sum + columnPoints(w), 0);
  if (filed < 0 || width(fitted) <= room) return { widths: fitted, wrap };
  const floor = (i: number) => Math.max(columns[i]?.least ?? 0, MIN_NARROWED_WIDTH);
  const narrowable = (i: number) => i > 0 && i <= filed && columns[i]?.kind === 'text';
  const least = fitted.map((w, i) => (narrowable(i) ? Math.min(w, floor(i)) : w));
  if (width(least) > room) return { widths: fitted, wrap };
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
  return { widths: fitted, wrap };
}
