import type { Writable } from 'node:stream';
import type { Row, TableSource } from '../../../domain/index.ts';
import { ValidationError } from '../../../errors.ts';
import { checkRowLength, checkSpec } from './cells.ts';
import { ReportCellError } from './errors.ts';
import { SheetNames } from './sheet-names.ts';
import {
  BatchBuilder,
  CELL_DATE,
  CELL_INLINE,
  CELL_INLINE_KEPT,
  CELL_NUMBER,
  CELL_TEXT,
} from './xlsx-batch.ts';
import type { SheetStart } from './xlsx-book.ts';
import {
  type CellSink,
  DATETIME_FORMAT,
  displayWidth,
  putXlsxCell,
  type SheetColumn,
  sheetColumns,
  sheetTextValue,
} from './xlsx-cells.ts';
import type { PacingStats } from './xlsx-pacing.ts';
import {
  type FormText,
  fitForm,
  fitPrint,
  formKind,
  formPageSetup,
  isSummary,
  longestWholeWord,
  type PrintColumn,
  pageSetup,
  screenLast,
  wordWrappedLines,
} from './xlsx-print.ts';
import type { HeaderFooter } from './xlsx-sheet.ts';
import type { CellStyle } from './xlsx-styles.ts';
import { type BookWriter, MAX_BATCH_BYTES, openBook, type StartedWorker } from './xlsx-thread.ts';

/** Excel's 1,048,576 rows minus the header row. */
export const EXCEL_MAX_DATA_ROWS = 1_048_575;

/** Options of {@link writeXlsx}. */
export interface XlsxOptions {
  /** Data rows per sheet before continuing on `<title> (2)`, … Default {@link EXCEL_MAX_DATA_ROWS}. */
  maxRowsPerSheet?: number;
  /** Leading rows sampled to size columns. Default 100. */
  widthSampleRows?: number;
  /** Column width cap, in characters. Default 60. */
  maxColumnWidth?: number;
  /** Document properties; `created` defaults to now. */
  creator?: string;
  created?: Date;
  /**
   * What every printed page names besides the sheet's title (left of the page header): the
   * middle of the page header, e.g. `Profile demo · 2025 (Europe/Berlin)`, and its right part,
   * e.g. a `DEMO DATA` banner. Every sheet prints landscape, one page wide, with the header row
   * repeated and `Page n of m` in the footer, with or without these.
   */
  print?: { center?: string; right?: string };
  /**
   * Name (`spec.name`) of a table whose sheet is listed first in the workbook although it is
   * written when it comes, e.g. a "Read me" that describes the sheets written before it.
   */
  firstSheet?: string;
  /**
   * Where the XML and the zip are written: on a worker thread (default; this thread works out
   * the cells meanwhile) or on this one. The bytes are the same.
   */
  thread?: 'worker' | 'same-thread';
  /** The worker thread's module, instead of `xlsx-worker.ts` (or its bundle): for tests. */
  workerEntry?: URL;
  /**
   * How long a worker told to end after a failure may take to exit before it is terminated
   * (`WORKER_END_TIMEOUT_MS` by default): for tests.
   */
  workerEndTimeoutMs?: number;
  /**
   * A worker thread started ahead for this workbook ({@link startBookWorker}), with its zip library loaded
   * meanwhile; the workbook takes it (a new one is started if it was ended or taken already).
   */
  started?: StartedWorker;
}

/** One written sheet: its Excel name, the table (name and title) it came from, and its data row count. */
export interface XlsxSheetResult {
  name: string;
  table: string;
  title: string;
  rows: number;
}

/** Result of {@link writeXlsx}. */
export interface XlsxResult {
  sheets: XlsxSheetResult[];
  pacing: PacingStats;
}

/**
 * Streams one workbook with a sheet per table into `out` and ends it (on failure `out` is
 * destroyed with the error). Per sheet: bold, frozen, auto-filtered header of column headers;
 * typed cells (decimal/integer → number with a format showing the source's decimals, datetime →
 * the column zone's wall time, text → string; never formulas); `exact` decimal columns get a
 * `<header> (exact)` text companion filled where the number is not exact; tables longer than
 * `maxRowsPerSheet` continue on `<title> (2)`, …. The caller must be consuming `out` already.
 * Wall times cannot tell apart the two instants of a DST fall-back hour; the CSV keeps offsets.
 * This thread works out every cell; the XML and the zip are written on a worker thread
 * (`xlsx-thread.ts`), fed in batches of rows. Memory stays flat: rows are paced on the zip's and
 * `out`'s drain (see `XlsxPacer`). `sheets` may be an async iterable, so a workbook can start
 * before its later tables exist.
 */
export async function writeXlsx(
  sheets: readonly TableSource[] | AsyncIterable<TableSource>,
  out: Writable,
  options: XlsxOptions = {},
): Promise<XlsxResult> {
  const settings = checkOptions(options);
  // A list is checked before anything is written; tables that arrive one by one, as they come.
  const listed = Array.isArray(sheets);
  if (listed) for (const source of sheets) checkSpec(source.spec);
  const created = options.created ?? new Date();
  const book = await openBook(
    out,
    { creator: options.creator ?? 'pbs-export', created: created.getTime() },
    {
      thread: options.thread ?? 'worker',
      ...(options.workerEntry ? { entry: options.workerEntry } : {}),
      ...(options.started ? { started: options.started } : {}),
      ...(options.workerEndTimeoutMs === undefined ? {} : { endTimeoutMs: options.workerEndTimeoutMs }),
    },
  );
  const results: XlsxSheetResult[] = [];
  try {
    const names = new SheetNames();
    const styleIds = { next: 0 };
    for await (const source of sheets) {
      if (!listed) checkSpec(source.spec);
      await writeTable(book, source, settings, names, styleIds, results);
    }
    const front = options.firstSheet === undefined ? [] : listFirst(results, options.firstSheet);
    const pacing = await book.finish(front);
    return { sheets: results, pacing };
  } catch (error) {
    await book.abort(error);
    throw error;
  }
}

/**
 * Moves the sheets of table `name` to the front of `results` and returns their names, for the
 * book to list first in its tabs.
 */
function listFirst(results: XlsxSheetResult[], name: string): string[] {
  const moved = results.filter((sheet) => sheet.table === name);
  results.splice(0, results.length, ...moved, ...results.filter((sheet) => sheet.table !== name));
  return moved.map((sheet) => sheet.name);
}

interface Settings {
  maxRowsPerSheet: number;
  widthSampleRows: number;
  maxColumnWidth: number;
  print: { center: string; right: string };
}

function checkOptions(options: XlsxOptions): Settings {
  const settings = {
    maxRowsPerSheet: options.maxRowsPerSheet ?? EXCEL_MAX_DATA_ROWS,
    widthSampleRows: options.widthSampleRows ?? 100,
    maxColumnWidth: options.maxColumnWidth ?? 60,
    print: { center: options.print?.center ?? '', right: options.print?.right ?? '' },
  };
  const { maxRowsPerSheet, widthSampleRows, maxColumnWidth } = settings;
  if (!Number.isInteger(maxRowsPerSheet) || maxRowsPerSheet < 1 || maxRowsPerSheet > EXCEL_MAX_DATA_ROWS) {
    throw new ValidationError('maxRowsPerSheet', `must be an integer from 1 to ${EXCEL_MAX_DATA_ROWS}`);
  }
  if (!Number.isInteger(widthSampleRows) || widthSampleRows < 0) {
    throw new ValidationError('widthSampleRows', 'must be a non-negative integer');
  }
  if (!Number.isInteger(maxColumnWidth) || maxColumnWidth < 8 || maxColumnWidth > 255) {
    throw new ValidationError('maxColumnWidth', 'must be an integer from 8 to 255');
  }
  return settings;
}

async function writeTable(
  book: BookWriter,
  source: TableSource,
  settings: Settings,
  names: SheetNames,
  styleIds: { next: number },
  results: XlsxSheetResult[],
): Promise<void> {
  const { spec } = source;
  let columns = sheetColumns(spec.columns);
  const rows = source.rows()[Symbol.asyncIterator]();
  let sheet: XlsxSheetResult | undefined;
  let dataRow = 0;
  let part = 0;
  let widths: number[] = [];
  // A form sheet fitted one page wide: how many of its columns print (else it prints as any sheet).
  let printed: number | undefined;
  const batch = new BatchBuilder(columns.length, book.batchRows, book.transfers);

  const flush = async (): Promise<void> => {
    const full = batch.take();
    if (full !== undefined) await book.addRows(full);
  };

  const startSheet = async (): Promise<XlsxSheetResult> => {
    await flush();
    part += 1;
    const name = names.allocate(spec.title, part);
    book.startSheet(sheetStart(name, spec.title, columns, { widths, printed }, settings));
    const result = { name, table: spec.name, title: spec.title, rows: 0 };
    results.push(result);
    return result;
  };

  // One style per number format, shared by every cell that has it: the book works out a style's
  // XML once per id. By wrap and number (an index of 0 to 3), then by number format ('' for none):
  // no key built per cell. Each gets an id, and is sent to the book with the first batch that uses it.
  const styles = [0, 1, 2, 3].map(() => new Map<string, number>());
  // In a sheet with wrapped text, every cell sits at the top of its (taller) row; a text of
  // several lines (a memo) wraps at its line breaks, which an unwrapped cell prints run together.
  let topAligned = false;
  const styleOf = (numFmt: string | undefined, wrap: boolean, number: boolean): number => {
    const byFormat = styles[(wrap ? 1 : 0) + (number ? 2 : 0)] as Map<string, number>;
    let id = byFormat.get(numFmt ?? '');
    if (id === undefined) {
      // Dates sit on the left like the text around them: right-aligned (a spreadsheet's default
      // for dates) they run into the next column's text on paper (`07:03:09lending`).
      const left = numFmt === DATETIME_FORMAT ? { horizontal: 'left' as const } : {};
      const across = number ? NUMBER_ALIGNMENT : left;
      const wrapping = topAligned || wrap ? { wrapText: wrap, vertical: 'top' as const } : {};
      const style: CellStyle = {
        ...(numFmt === undefined ? {} : { numFmt }),
        ...(topAligned || wrap || numFmt === DATETIME_FORMAT || number
          ? { alignment: { ...across, ...wrapping } }
          : {}),
      };
      id = styleIds.next++;
      byFormat.set(numFmt ?? '', id);
      batch.styles.push({ id, style });
    }
    return id;
  };

  // Each cell goes into the batch as it is converted, finished: no object per cell.
  let column = columns[0] as SheetColumn;
  const cells: CellSink = {
    empty: () => batch.empty(styleOf(undefined, column.source.wrap === true, false)),
    number: (value, numFmt) =>
      batch.number(value, CELL_NUMBER, styleOf(numFmt, column.source.wrap === true, true)),
    date: (wallMs) =>
      batch.number(
        excelDate(wallMs),
        CELL_DATE,
        styleOf(DATETIME_FORMAT, column.source.wrap === true, false),
      ),
    text: (value, inline, numFmt) => {
      // A plain text of several lines wraps (an unwrapped cell prints its lines run together).
      const wrap = column.source.wrap === true || (!inline && value.includes('\n'));
      const kind = !inline ? CELL_TEXT : KEPT_SPACE.test(value) ? CELL_INLINE_KEPT : CELL_INLINE;
      batch.text(value, kind, styleOf(numFmt, wrap, false));
    },
  };

  const writeRow = async (row: Row): Promise<void> => {
    dataRow += 1;
    checkRowLength(spec, row, dataRow);
    if (sheet === undefined || sheet.rows === settings.maxRowsPerSheet) sheet = await startSheet();
    batch.beginRow();
    for (let i = 0; i < columns.length; i += 1) {
      column = columns[i] as SheetColumn;
      const reason = putXlsxCell(row[column.index] ?? null, column, cells);
      if (reason !== undefined) throw new ReportCellError(spec.name, column.source.key, dataRow, reason);
    }
    const lines = wrappedLines(row, columns, widths, printed !== undefined);
    // Spreadsheets do not grow a row to its wrapped text on opening a file: say how tall it is.
    batch.endRow(lines > 1 ? LINE_HEIGHT * lines : 0);
    sheet.rows += 1;
    if (batch.size >= book.batchRows || batch.bytes >= MAX_BATCH_BYTES) await flush();
  };

  try {
    const sample: Row[] = [];
    while (sample.length < settings.widthSampleRows) {
      const next = await rows.next();
      if (next.done) break;
      sample.push(next.value);
    }
    let wanted = columnWidths(columns, sample, settings.maxColumnWidth);
    const kind = formKind(spec.name);
    let form =
      kind === undefined
        ? undefined
        : fitForm(kind, columns.map(printColumn), wanted, formTexts(columns, sample, kind));
    if (form === undefined && isSummary(spec.name)) {
      // A summary too wide for one page: its technical columns move to the end, kept on screen.
      const { order, kept } = screenLast(
        spec.name,
        columns.map((c) => ({ key: c.source.key, companion: c.companion })),
      );
      const moved = order.map((i) => columns[i] as SheetColumn);
      const movedWidths = order.map((i) => wanted[i] as number);
      const fitted = fitForm(
        'gains',
        moved.map(printColumn),
        movedWidths,
        formTexts(moved, sample, 'gains'),
        kept,
      );
      if (fitted !== undefined) [columns, wanted, form] = [moved, movedWidths, fitted];
    }
    const fit = form ?? fitPrint(columns.map(printColumn), wanted, kind === 'gains');
    // The exact texts among the filed columns moved past them for paper (see {@link fitPrint}).
    if (fit.order !== undefined) columns = fit.order.map((i) => columns[i] as SheetColumn);
    printed = form?.printed;
    widths = fit.widths;
    // A text column the print layout narrowed wraps, as one its producer marked to wrap.
    columns = columns.map((column, i) =>
      fit.wrap[i] === true && column.source.wrap !== true
        ? { ...column, source: { ...column.source, wrap: true } }
        : column,
    );
    topAligned = columns.some((column) => column.source.wrap === true);
    for (const row of sample) await writeRow(row);
    for (let next = await rows.next(); !next.done; next = await rows.next()) await writeRow(next.value);
    sheet ??= await startSheet();
    await flush();
    book.endSheet();
  } finally {
    await rows.return?.();
  }
}

/** What the book needs to start sheet `name`: options, column widths, the header row and its layout. */
function sheetStart(
  name: string,
  title: string,
  columns: readonly SheetColumn[],
  layout: { widths: number[]; printed: number | undefined },
  settings: Settings,
): SheetStart {
  const { widths, printed } = layout;
  // Headers wrap at spaces inside their column (sized by its values), so a long header does not
  // widen the sheet; a number column's header stands over its numbers, aligned right.
  const headerLines = Math.max(
    1,
    ...columns.map((column, i) => wrappedTextLines(column.header, (widths[i] ?? 10) - 2)),
  );
  return {
    name,
    widths,
    pageSetup: printed === undefined ? pageSetup(widths) : formPageSetup(printed, columns.length),
    headerFooter: pageHeaderFooter(title, settings.print),
    autoFilterColumns: columns.length,
    header: columns.map((column) => sheetTextValue(column.header)),
    headerAlignments: columns.map((column) => ({
      ...(isNumberColumn(column) ? NUMBER_ALIGNMENT : {}),
      wrapText: true,
      vertical: 'bottom' as const,
    })),
    headerHeight: headerLines > 1 ? LINE_HEIGHT * headerLines : 0,
  };
}

/**
 * Width of each column, in characters: its widest cell among the sampled rows, its header, and
 * for number columns the width the producer knows from every row (`Column.width`), plus 2; at
 * least 8, and for decimal columns at least {@link NUMBER_MIN_WIDTH}, so a number past the sample
 * still fits (a number too wide for its column shows as `###`); at most `max` (text past it wraps
 * over the next cells, or is cut on paper, but never turns into `###`).
 */
function columnWidths(columns: SheetColumn[], sample: readonly Row[], max: number): number[] {
  return columns.map((column) => {
    if (column.source.wrap === true && column.source.width !== undefined) return column.source.width;
    const isNumber = isNumberColumn(column);
    const longest = sample.reduce(
      (widest, row) => Math.max(widest, displayWidth(row[column.index] ?? null, column)),
      // The header is bold: its longest word takes about one character more than in regular type,
      // and a number column's header is indented like its numbers (one more).
      Math.max(longestWord(column.header) + (isNumber ? 2 : 1), isNumber ? (column.source.width ?? 0) : 0),
    );
    // A producer that measured every row (`width`) needs no room for rows past the sample.
    const floor =
      isNumber && column.source.kind === 'decimal' && column.source.width === undefined
        ? NUMBER_MIN_WIDTH
        : 8;
    // A number must fit whatever the cap: past it, it would show as `###`.
    const width = Math.min(Math.max(longest + 2, floor), isNumber ? MAX_EXCEL_WIDTH : max);
    // A column of the default width (9) has no `<col>` in the file, and then prints at the
    // reader's own default (LibreOffice's is narrower): such a column is made one wider.
    return width === DEFAULT_COLUMN_WIDTH ? width + 1 : width;
  });
}

/** What the print layout needs of a sheet column (see {@link fitPrint}). */
function printColumn(column: SheetColumn): PrintColumn {
  const kind = isNumberColumn(column)
    ? 'number'
    : column.source.kind === 'text' && !column.companion
      ? 'text'
      : 'other';
  return {
    kind,
    wrap: column.source.wrap === true,
    least: longestWord(column.header) + 3,
    companion: column.companion,
  };
}

/**
 * What each column's sampled rows hold (0 but for text columns): the longest word that prints
 * whole (a form's number words, every word of a `gains` table) and the longest line (see {@link fitForm}).
 */
function formTexts(
  columns: readonly SheetColumn[],
  sample: readonly Row[],
  kind: 'form' | 'gains',
): FormText[] {
  return columns.map((column) => {
    if (column.source.kind !== 'text' || column.companion) return { whole: 0, longest: 0 };
    const cells = sample.map((row) => row[column.index]);
    return {
      whole: longestWholeWord(cells, kind === 'form' ? 'number' : 'any'),
      longest: cells.reduce((most, cell) => Math.max(most, displayWidth(cell ?? null, column)), 0),
    };
  });
}

/** The longest word of a header: the least width it can wrap into. */
function longestWord(text: string): number {
  return text.split(/\s+/).reduce((most, word) => Math.max(most, word.length), 0);
}

/** Lines `text` takes when wrapped at spaces into lines of at most `width` characters. */
function wrappedTextLines(text: string, width: number): number {
  let lines = 1;
  let used = 0;
  for (const word of text.split(/\s+/)) {
    if (used > 0 && used + 1 + word.length > width) {
      lines += 1;
      used = word.length;
    } else used += (used > 0 ? 1 : 0) + word.length;
  }
  return lines;
}

/** An inline string whose space its `<t>` must keep: at its start or end, or a line break. */
const KEPT_SPACE = /^\s|\n|\s$/;

/** A wall-clock time (epoch milliseconds) as a spreadsheet's serial day number (1900 date system: 25569 is 1970-01-01). */
function excelDate(wallMs: number): number {
  return 25569 + wallMs / (24 * 3600 * 1000);
}

/** Whether a sheet column holds number cells: a decimal or integer column, not an `(exact)` text companion. */
function isNumberColumn(column: SheetColumn): boolean {
  return !column.companion && (column.source.kind === 'decimal' || column.source.kind === 'integer');
}

/**
 * Numbers and their headers: on the right, one character in from the column's edge, so on paper
 * they do not run into the text of the next column (`72.13USD`).
 */
const NUMBER_ALIGNMENT = { horizontal: 'right', indent: 1 } as const;

/** Height of one line of text, in points (11-point type with its leading). */
const LINE_HEIGHT = 15;

/**
 * How many lines the tallest wrapped cell of `row` takes in its column: a cell's text, line by
 * line, broken every `width` characters (a column fits `width` digits, more letters of
 * most text: an estimate that errs on the tall side); `byWord`: wrapped at spaces, as printed.
 */
function wrappedLines(
  row: Row,
  columns: readonly SheetColumn[],
  widths: readonly number[],
  byWord: boolean,
): number {
  let most = 1;
  // A loop, not a callback per cell: this runs for every row.
  for (let i = 0; i < columns.length; i += 1) {
    const column = columns[i] as SheetColumn;
    if (column.source.kind !== 'text') continue;
    const text = row[column.index];
    if (text === null || text === undefined) continue;
    if (column.source.wrap !== true && !text.includes('\n')) continue;
    // A column of width w holds w digits; LibreOffice's cell padding and wider letters take about two.
    const perLine = Math.max(1, (widths[i] ?? 10) - 2);
    // A form sheet's rows are as tall as its text wrapped at spaces (see `wordWrappedLines`).
    const lines = byWord ? wordWrappedLines(text, perLine) : brokenLines(text, perLine);
    most = Math.max(most, lines);
  }
  return most;
}

/**
 * Lines `text` takes broken every `perLine` characters, line by line (a line break starts a new
 * one, an empty line takes one): found by position, no array of lines made per cell.
 */
function brokenLines(text: string, perLine: number): number {
  let lines = 0;
  let from = 0;
  for (let end = text.indexOf('\n'); ; end = text.indexOf('\n', from)) {
    const length = (end < 0 ? text.length : end) - from;
    lines += Math.max(1, Math.ceil(length / perLine));
    if (end < 0) return lines;
    from = end + 1;
  }
}

/**
 * Least width of a number column: fits `-9,999,999,999.99` with room to spare, for the rows a
 * producer could not measure beforehand (the live workbook sizes columns from the first window).
 */
const NUMBER_MIN_WIDTH = 18;
/** The width the sheet writes no `<col>` for. */
const DEFAULT_COLUMN_WIDTH = 9;
/** Excel's widest column, in characters. */
const MAX_EXCEL_WIDTH = 255;

/** `&` starts a code in a page header or footer: written `&&` to print as itself. */
function headerText(text: string): string {
  return text.replace(/&/g, '&&');
}

/**
 * The page header (sheet title in bold on the left, `print.center` in the middle, `print.right` on
 * the right) and footer (`Page n of m`) of a sheet. OOXML codes: `&L`, `&C`, `&R` start the left,
 * centre and right parts, `&B` toggles bold, `&P` and `&N` are the page number and count.
 */
function pageHeaderFooter(title: string, print: Settings['print']): HeaderFooter {
  const right = print.right === '' ? '' : `&R&B${headerText(print.right)}&B`;
  return {
    oddHeader: `&L&B${headerText(title)}&B&C${headerText(print.center)}${right}`,
    oddFooter: '&CPage &P of &N',
  };
}
