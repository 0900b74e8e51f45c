import type { PageSetup } from 'exceljs';

/**
 * Least print scale, in percent: the sheets' 11-point type prints at 8.8 points, the least an
 * accountant reads without a magnifier (8 points).
 */
export const MIN_PRINT_SCALE = 80;

/**
 * Width a page prints, in points: US Letter landscape (11 in, the narrower of Letter and A4)
 * less the left and right margins below.
 */
const PRINTABLE_WIDTH_PT = (11 - 0.4 - 0.4) * 72;

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
    margins: { left: 0.4, right: 0.4, top: 0.75, bottom: 0.75, header: 0.3, footer: 0.3 },
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
