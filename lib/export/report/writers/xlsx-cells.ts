import { Big, type Cell, type Column, numberWidth, wallClockMillis } from '../../../domain/index.ts';
import { instantMillis, isDecimalLiteral, isIntegerLiteral, preview, wellFormed } from './cells.ts';

/** Number format of `datetime` cells. */
export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';

/** Number format of a `spaced` text column: the text after one space (`@` is the text itself). */
export const SPACED_TEXT_FORMAT = '" "@';

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
  /** A number cell (set by the writer, for its alignment). */
  number?: boolean;
}

/**
 * The spreadsheet columns of a table: each source column, `exact` decimals followed by
 * `<header> (exact)`. Headers are made unique (a repeated one gets ` (2)`, ` (3)`, …), so no two
 * columns of a sheet are headed alike (an extra field may be named like a fixed column).
 */
export function sheetColumns(columns: readonly Column[]): SheetColumn[] {
  const listed = columns.flatMap((source, index) => {
    const own = { source, index, companion: false, header: source.header };
    return source.kind === 'decimal' && source.exact
      ? [own, { source, index, companion: true, header: `${source.header} (exact)` }]
      : [own];
  });
  const taken = new Set(listed.map((column) => column.header.toLowerCase()));
  const seen = new Set<string>();
  return listed.map((column) => {
    let header = column.header;
    // A suffixed header must not take the header another column has as its own.
    const clashes = () =>
      seen.has(header.toLowerCase()) || (header !== column.header && taken.has(header.toLowerCase()));
    for (let n = 2; clashes(); n += 1) header = `${column.header} (${n})`;
    seen.add(header.toLowerCase());
    return header === column.header ? column : { ...column, header };
  });
}

/**
 * Where {@link putXlsxCell} puts a cell it converted, one call per cell: no object is made for a
 * cell (the writer's main thread hands them to the workbook this way, `xlsx.ts`).
 */
export interface CellSink {
  /** A cell without value. */
  empty(): void;
  /** A number shown with number format `numFmt`. */
  number(value: number, numFmt: string): void;
  /** A date-time: the epoch milliseconds of its wall-clock time read as UTC (see `wallClockMillis`). */
  date(wallMs: number): void;
  /**
   * Text as its cell shows it: `inline`, a one-run rich text written as an inline string (see
   * {@link sheetTextValue}); `numFmt`, the text format of a `spaced` column.
   */
  text(value: string, inline: boolean, numFmt: string | undefined): void;
}

/**
 * Converts one source cell for `column` into `sink`; returns a reason string (and puts nothing)
 * when the cell does not fit its kind. Companion cells hold the exact decimal string only where
 * the number cell is not exact.
 */
export function putXlsxCell(cell: Cell, column: SheetColumn, sink: CellSink): string | undefined {
  if (cell === null) {
    sink.empty();
    return undefined;
  }
  const { kind } = column.source;
  switch (kind) {
    case 'text':
      putSheetText(cell, column.source.spaced === true ? SPACED_TEXT_FORMAT : undefined, sink);
      return undefined;
    case 'integer':
      if (!isIntegerLiteral(cell)) return `not an integer literal: ${preview(cell)}`;
      // Past 2^53 a number would silently change the count: keep such values as text.
      if (Number.isSafeInteger(Number(cell))) sink.number(Number(cell), '0');
      else sink.text(cell, false, undefined);
      return undefined;
    case 'decimal': {
      if (!isDecimalLiteral(cell)) return `not a decimal literal: ${preview(cell)}`;
      const value = Number(cell);
      if (column.companion) {
        if (isExactNumber(cell, value)) sink.empty();
        else sink.text(cell, false, undefined);
      } else if (column.source.blankZero === true && value === 0 && /^-?[0.]+$/.test(cell)) sink.empty();
      // Past a spreadsheet number's range (1e400, or 1e-400 which would read 0): the exact text.
      else if (!Number.isFinite(value) || (value === 0 && !/^-?[0.]+$/.test(cell)))
        sink.text(cell, false, undefined);
      else sink.number(value, decimalFormat(cell));
      return undefined;
    }
    case 'datetime': {
      const ms = instantMillis(cell);
      if (ms === undefined) return `not an ISO-8601 instant: ${preview(cell)}`;
      // Excel has no zones: store the zone's wall-clock time as if it were UTC.
      sink.date(wallClockMillis(ms, column.source.timeZone ?? 'UTC'));
      return undefined;
    }
  }
}

/** Puts text as its cell shows it (see {@link sheetTextValue}); plain text, the common case, as it is. */
function putSheetText(text: string, numFmt: string | undefined, sink: CellSink): void {
  if (text.length <= MAX_CELL_TEXT && PLAIN_TEXT.test(text)) {
    sink.text(text, false, numFmt);
    return;
  }
  const value = sheetTextValue(text);
  if (typeof value === 'string') sink.text(value, false, numFmt);
  else sink.text(value.richText[0]?.text ?? '', true, numFmt);
}

/**
 * Converts one source cell for `column`; returns a reason string when the cell does not fit its kind.
 * Companion cells hold the exact decimal string only where the number cell is not exact.
 * (The object form of {@link putXlsxCell}, for tests and single cells.)
 */
export function toXlsxCell(cell: Cell, column: SheetColumn): XlsxCell | string {
  let converted: XlsxCell = { value: null };
  const reason = putXlsxCell(cell, column, {
    empty: () => {},
    number: (value, numFmt) => {
      converted = { value, numFmt };
    },
    date: (wallMs) => {
      converted = { value: new Date(wallMs), numFmt: DATETIME_FORMAT };
    },
    text: (value, inline, numFmt) => {
      const shown = inline ? { richText: [{ text: value }] } : value;
      converted = numFmt === undefined ? { value: shown } : { value: shown, numFmt };
    },
  });
  return reason ?? converted;
}

/** True when `value` (= Number(decimal)) shows and round-trips as exactly `decimal` in Excel. */
export function isExactNumber(decimal: string, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  // Most amounts are written as the number's own shortest form: then only their digits count.
  if (String(value) === decimal) return significantDigits(decimal) <= EXCEL_DIGITS;
  const exact = new Big(decimal);
  return exact.c.length <= EXCEL_DIGITS && new Big(String(value)).eq(exact);
}

/** Digits of a decimal literal from its first non-zero digit to its last (as big.js keeps them); 1 for zero. */
function significantDigits(decimal: string): number {
  let first = -1;
  let last = -1;
  let digits = 0;
  for (let at = 0; at < decimal.length; at += 1) {
    const code = decimal.charCodeAt(at);
    if (code < ZERO || code > ZERO + 9) continue;
    if (code !== ZERO) {
      if (first < 0) first = digits;
      last = digits;
    }
    digits += 1;
  }
  return first < 0 ? 1 : last - first + 1;
}

/**
 * `#,##0.00…` with as many decimals as the source literal has (so `10.50` shows as `10.50`), but
 * never more significant digits than a spreadsheet number holds (15): past them a cell would
 * show binary noise (`-0.024123745819401500` for `…519`). The `(exact)` column keeps the rest.
 */
export function decimalFormat(decimal: string): string {
  // Read by position (one format per decimal cell of every row: no splitting, no patterns).
  const start = decimal.charCodeAt(0) === MINUS ? 1 : 0;
  const point = decimal.indexOf('.', start);
  const wholeEnd = point < 0 ? decimal.length : point;
  const fractionLength = point < 0 ? 0 : decimal.length - point - 1;
  const intDigits = wholeEnd - start - zerosFrom(decimal, start, wholeEnd);
  const leadingZeros = intDigits > 0 || point < 0 ? 0 : zerosFrom(decimal, point + 1, decimal.length);
  const room = intDigits > 0 ? EXCEL_DIGITS - intDigits : leadingZeros + EXCEL_DIGITS;
  return DECIMAL_FORMATS[Math.max(0, Math.min(fractionLength, room, MAX_FORMAT_DECIMALS))] as string;
}

const MINUS = 0x2d;
const ZERO = 0x30;

/** How many `0` characters `text` has from `from` on, before `end`. */
function zerosFrom(text: string, from: number, end: number): number {
  let at = from;
  while (at < end && text.charCodeAt(at) === ZERO) at++;
  return at - from;
}

/** The number format of each scale, 0 to {@link MAX_FORMAT_DECIMALS} decimals. */
const DECIMAL_FORMATS = Array.from({ length: MAX_FORMAT_DECIMALS + 1 }, (_, scale) =>
  scale === 0 ? '#,##0' : `#,##0.${'0'.repeat(scale)}`,
);

/**
 * Marker ending a text cut to fit a spreadsheet cell: how many characters are missing.
 * The CSV report and the snapshot keep the whole text.
 */
export function cutMarker(missing: number): string {
  return `…[${missing} more characters cut: a spreadsheet cell holds at most ${MAX_CELL_TEXT}]`;
}

/**
 * The text a spreadsheet cell shows for `text`: lone surrogates become U+FFFD (see `wellFormed`),
 * and text longer than Excel's 32,767 characters is cut to fit, ending with {@link cutMarker}
 * (never inside a surrogate pair). Every other character, controls and CR included, is kept: the
 * cell is written with {@link encodeSheetText} so the XML can carry it.
 */
export function toSheetText(text: string): string {
  const clean = wellFormed(text);
  if (clean.length <= MAX_CELL_TEXT) return clean;
  let keep = MAX_CELL_TEXT - cutMarker(clean.length).length;
  if (/[\ud800-\udbff]/.test(clean.charAt(keep - 1))) keep -= 1;
  return `${clean.slice(0, keep)}${cutMarker(clean.length - keep)}`;
}

/**
 * OOXML's escape of characters XML 1.0 cannot carry (ST_Xstring): `_xHHHH_`, decoded back by
 * Excel, LibreOffice and exceljs. Used for C0 controls except tab and LF, for CR (which XML
 * parsers turn into LF), DEL (which the sheet's XML escape drops), and for every `_` that starts text looking
 * like an escape (`_x0041_` is written `_x005F_x0041_`, so it is not read back as `A`).
 */
export function encodeSheetText(text: string): string {
  return text.replace(SHEET_ESCAPES, (match) =>
    match === '_' ? '_x005F_' : `_x${match.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}_`,
  );
}

/** Printable ASCII without `&` or `_`, not starting or ending with a space: shown as it is. */
const PLAIN_TEXT = /^[!-%'-^`-~](?:[ -%'-^`-~]*[!-%'-^`-~])?$/;

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it escapes
const SHEET_ESCAPES = /[\u0000-\u0008\u000b-\u001f\u007f]|_(?=x[0-9A-Fa-f]{4}_)/g;

/**
 * The sheet value of a text cell. Text that needs no escape is a plain string. Text with escapes,
 * edge whitespace or an entity-like `&name;` is a one-run rich text, which the sheet writes as an
 * inline string (`<is><t>`, with xml:space="preserve"): there `_xHHHH_` escapes are decoded, edge
 * whitespace is kept (LibreOffice trims plain `t="str"` values) and the text is not entity-decoded
 * a second time (exceljs's reader turns a plain value's `&amp;` into `&`).
 */
export function sheetTextValue(text: string): string | { richText: { text: string }[] } {
  // Most cells (ids, hashes, names) are printable ASCII that needs none of the below.
  if (text.length <= MAX_CELL_TEXT && PLAIN_TEXT.test(text)) return text;
  const shown = toSheetText(text);
  const encoded = encodeSheetText(shown);
  return encoded !== shown || /^\s|\s$|&[a-z]*;/.test(shown) ? { richText: [{ text: encoded }] } : shown;
}

/** Rough display width of a cell for column sizing. */
export function displayWidth(cell: Cell, column: SheetColumn): number {
  if (cell === null) return 0;
  if (column.source.kind === 'datetime') return 19;
  if (column.source.kind === 'text') return Math.max(...cell.split('\n').map((line) => line.length));
  if (column.companion) return cell.length;
  return numberWidth(cell);
}
