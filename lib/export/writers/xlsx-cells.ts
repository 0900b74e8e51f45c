import Big from 'big.js';
import type { Cell, Column } from '../table.ts';
import { wallClock } from '../zoned.ts';
import { instantMillis, isDecimalLiteral, isIntegerLiteral, preview } from './cells.ts';

/** Excel's per-cell text limit. */
export const MAX_CELL_TEXT = 32_767;
/** Significant digits Excel keeps; anything longer is shown (and summed) rounded. */
const EXCEL_DIGITS = 15;
/** Excel allows at most 30 decimal places in a number format. */
const MAX_FORMAT_DECIMALS = 30;

/** One spreadsheet column: a source column, or the exact-text companion of an `exact` decimal column. */
export interface SheetColumn {
  source: Column;
  index: number;
  companion: boolean;
  header: string;
}

/** An XLSX cell value plus the number format it needs (if any). */
export interface XlsxCell {
  value: string | number | Date | null | { richText: { text: string }[] };
  numFmt?: string;
}

/** The spreadsheet columns of a table: each source column, `exact` decimals followed by `<header> (exact)`. */
export function sheetColumns(columns: readonly Column[]): SheetColumn[] {
  return columns.flatMap((source, index) => {
    const own = { source, index, companion: false, header: source.header };
    return source.kind === 'decimal' && source.exact
      ? [own, { source, index, companion: true, header: `${source.header} (exact)` }]
      : [own];
  });
}

/**
 * Converts one source cell for `column`; returns a reason string when the cell does not fit its kind.
 * Companion cells hold the exact decimal string only where the number cell is not exact.
 */
export function toXlsxCell(cell: Cell, column: SheetColumn): XlsxCell | string {
  if (cell === null) return { value: null };
  const { kind } = column.source;
  switch (kind) {
    case 'text': {
      const text = toSheetText(cell);
      // exceljs writes plain strings as `t="str"` values, which LibreOffice trims; a one-run rich
      // text becomes an inline string with xml:space="preserve", which keeps edge whitespace.
      return { value: /^\s|\s$/.test(text) ? { richText: [{ text }] } : text };
    }
    case 'integer':
      if (!isIntegerLiteral(cell)) return `not an integer literal: ${preview(cell)}`;
      // Past 2^53 a number would silently change the count: keep such values as text.
      return Number.isSafeInteger(Number(cell)) ? { value: Number(cell), numFmt: '0' } : { value: cell };
    case 'decimal': {
      if (!isDecimalLiteral(cell)) return `not a decimal literal: ${preview(cell)}`;
      const value = Number(cell);
      if (!Number.isFinite(value)) return `out of the range of a spreadsheet number: ${preview(cell)}`;
      if (column.companion) return { value: isExactNumber(cell, value) ? null : cell };
      return { value, numFmt: decimalFormat(cell) };
    }
    case 'datetime': {
      const ms = instantMillis(cell);
      if (ms === undefined) return `not an ISO-8601 instant: ${preview(cell)}`;
      // Excel has no zones: store the zone's wall-clock time as if it were UTC.
      return { value: wallClock(ms, column.source.timeZone ?? 'UTC'), numFmt: 'yyyy-mm-dd hh:mm:ss' };
    }
  }
}

/** True when `value` (= Number(decimal)) shows and round-trips as exactly `decimal` in Excel. */
export function isExactNumber(decimal: string, value: number): boolean {
  const exact = new Big(decimal);
  return exact.c.length <= EXCEL_DIGITS && new Big(String(value)).eq(exact);
}

/** `#,##0.00…` with as many decimals as the source literal has (so `10.50` shows as `10.50`). */
export function decimalFormat(decimal: string): string {
  const dot = decimal.indexOf('.');
  const scale = dot < 0 ? 0 : Math.min(decimal.length - dot - 1, MAX_FORMAT_DECIMALS);
  return scale === 0 ? '#,##0' : `#,##0.${'0'.repeat(scale)}`;
}

/**
 * Text as XLSX can hold it: XML turns CR and CRLF into LF anyway, other C0 controls are not
 * allowed in XML 1.0 (exceljs would drop them silently), and Excel cuts cells at 32,767 chars.
 * No formula guard is needed: a string cell is never evaluated.
 */
export function toSheetText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
  const clean = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
  return clean.length > MAX_CELL_TEXT ? clean.slice(0, MAX_CELL_TEXT) : clean;
}

/** Rough display width of a cell for column sizing. */
export function displayWidth(cell: Cell, column: SheetColumn): number {
  if (cell === null) return 0;
  if (column.source.kind === 'datetime') return 19;
  if (column.source.kind === 'text') return Math.max(...cell.split('\n').map((line) => line.length));
  if (column.companion) return cell.length;
  const intDigits = cell.replace('-', '').split('.')[0]?.length ?? 0;
  return cell.length + Math.floor((intDigits - 1) / 3);
}
