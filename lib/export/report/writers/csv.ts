import { once } from 'node:events';
import { Transform, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import type { Cell, Column, Row, TableSource } from '../../../domain/index.ts';
import { isUtcZone } from '../../../domain/index.ts';
import { ValidationError } from '../../../errors.ts';
import { isCanonicalInstant } from '../canonical-instant.ts';
import {
  checkRowLength,
  checkSpec,
  guardFormula,
  instantMillis,
  isDecimalLiteral,
  isIntegerLiteral,
  preview,
  wellFormed,
} from './cells.ts';
import { columnZone, csvHeaderKeys, csvLocalDateTime, hasOffsetColumn, utcOffsetText } from './csv-dates.ts';
import { ReportCellError } from './errors.ts';

/** Options of {@link writeCsv}. */
export interface CsvOptions {
  /** Start with a UTF-8 byte order mark so Excel detects UTF-8. Default `true`. */
  bom?: boolean;
  /** Field delimiter, e.g. `;` for EU Excel locales. Default `,`. */
  delimiter?: string;
  /**
   * Decimal separator. Default `.`; must differ from `delimiter`. With `,` (the European
   * dialect) decimal cells, the numbers inside texts and the seconds of datetimes take the comma,
   * so a German-locale spreadsheet imports numbers as numbers and dates as dates.
   */
  decimalSeparator?: '.' | ',';
  /** Line ending. Default `\r\n` (RFC 4180; what Excel writes and expects). */
  recordDelimiter?: '\r\n' | '\n';
}

/**
 * Streams `source` as CSV into `out` and ends it (on failure `out` is destroyed with the error).
 * Header row = column keys. Text cells are guarded against formula injection (leading `'`, see
 * `guardFormula`) and written with every character as sent, controls included (quoted where
 * needed), except lone surrogates, which UTF-8 cannot hold (U+FFFD);
 * decimal and integer cells are validated literals written verbatim; datetimes are the ISO-8601
 * local date-time of the column's zone, followed (zones other than UTC) by a `<key>_utc_offset`
 * column (see csv-dates.ts); null is an empty field. Honours backpressure.
 */
export async function writeCsv(
  source: TableSource,
  out: Writable,
  options: CsvOptions = {},
): Promise<{ rows: number }> {
  const delimiter = options.delimiter ?? ',';
  const decimalSeparator = options.decimalSeparator ?? '.';
  checkOptions(delimiter, decimalSeparator);
  const { spec } = source;
  checkSpec(spec);
  if (delimiter.length === 1) return writeCsvLines(source, out, { ...options, delimiter, decimalSeparator });
  let rows = 0;
  async function* records(): AsyncGenerator<string[]> {
    yield spec.columns.flatMap(csvHeaderKeys).map((key) => guardFormula(wellFormed(key)));
    for await (const row of source.rows()) {
      rows += 1;
      checkRowLength(spec, row, rows);
      const record: string[] = [];
      for (let i = 0; i < spec.columns.length; i += 1) {
        const column = spec.columns[i] as Column;
        const cell = row[i] ?? null;
        record.push(renderCell(cell, column, decimalSeparator, spec.name, rows));
        if (hasOffsetColumn(column)) record.push(offsetCell(cell, column));
      }
      yield record;
    }
  }
  const stringifier = stringify({
    bom: options.bom ?? true,
    delimiter,
    record_delimiter: options.recordDelimiter ?? '\r\n',
    // csv-stringify only quotes the configured record delimiter; a lone \n or \r must be quoted too.
    quoted_match: /[\r\n]/,
  });
  // Fed by hand rather than through Readable.from: on Node 20 an iterator that throws there also
  // surfaces as an unhandled rejection.
  const done = pipeline(stringifier, coalesce(), out);
  done.catch(() => {});
  try {
    for await (const record of records()) {
      if (!stringifier.write(record)) await Promise.race([once(stringifier, 'drain'), done]);
    }
    stringifier.end();
  } catch (error) {
    stringifier.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  await done;
  return { rows };
}

/**
 * {@link writeCsv} for a one-character delimiter: each row becomes one string, written in large
 * pieces, with the bytes csv-stringify would write (a field is quoted when it holds the
 * delimiter, a quote, CR or LF; quotes are doubled; an empty field is left empty). A
 * multi-character delimiter, whose quoting csv-stringify decides by further rules, goes through
 * csv-stringify itself.
 */
async function writeCsvLines(
  source: TableSource,
  out: Writable,
  options: CsvOptions & { delimiter: string; decimalSeparator: '.' | ',' },
): Promise<{ rows: number }> {
  const { spec } = source;
  const { delimiter, decimalSeparator } = options;
  const recordDelimiter = options.recordDelimiter ?? '\r\n';
  const field = fieldQuoter(delimiter);
  const lastInstants = new Map<string, LastInstant>();
  const cells = spec.columns.map((column) => cellRenderer(column, decimalSeparator, spec.name, lastInstants));
  // A datetime in a zone other than UTC is followed by its offset column (csv-dates.ts).
  const offsets = spec.columns.map((column) => (hasOffsetColumn(column) ? offsetRenderer(column) : null));
  const line = (row: Row, rowNumber: number): string => {
    let text = '';
    for (let i = 0; i < cells.length; i++) {
      const cell = row[i] ?? null;
      if (i > 0) text += delimiter;
      if (cell !== null) text += field((cells[i] as CellRenderer)(cell, rowNumber));
      const offset = offsets[i];
      if (offset !== null && offset !== undefined) {
        text += delimiter;
        if (cell !== null) text += field(offset(cell));
      }
    }
    return text + recordDelimiter;
  };
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => {});
  let pending = options.bom === false ? '' : '\ufeff';
  const flush = async () => {
    const text = pending;
    pending = '';
    if (!out.write(text)) await Promise.race([once(out, 'drain'), failed]);
  };
  let rows = 0;
  try {
    pending +=
      spec.columns
        .flatMap(csvHeaderKeys)
        .map((key) => field(guardText(key)))
        .join(delimiter) + recordDelimiter;
    for await (const row of source.rows()) {
      rows += 1;
      checkRowLength(spec, row, rows);
      pending += line(row, rows);
      if (pending.length >= OUTPUT_CHUNK) await flush();
    }
    if (pending.length > 0) await flush();
    out.end();
    await Promise.race([finished(out), failed]);
  } catch (error) {
    out.destroy(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  return { rows };
}

/** Renders one non-null cell of a column (its row number for errors). */
type CellRenderer = (cell: string, row: number) => string;

/** The last instant a zone's datetime columns rendered, and its text. */
interface LastInstant {
  cell: string | null;
  text: string;
}

/**
 * The renderer of a column's cells: text as {@link guardText} makes it (with the European
 * dialect's decimal commas first), other kinds as {@link renderCell}. The datetime columns of one
 * zone share their last cell (`lastInstants`, by zone): a row shows its instant in two columns
 * (UTC and the report zone, often the same), the rows come in date order, and an instant repeats.
 */
function cellRenderer(
  column: Column,
  decimalSeparator: '.' | ',',
  table: string,
  lastInstants: Map<string, LastInstant>,
): CellRenderer {
  if (column.kind === 'text') {
    return decimalSeparator === ',' ? (cell) => guardText(commaNumbers(cell)) : guardText;
  }
  if (column.kind !== 'datetime')
    return (cell, row) => renderCell(cell, column, decimalSeparator, table, row);
  const zone = column.timeZone ?? 'UTC';
  let last = lastInstants.get(zone);
  if (last === undefined) {
    last = { cell: null, text: '' };
    lastInstants.set(zone, last);
  }
  const remembered = last;
  return (cell, row) => {
    if (cell !== remembered.cell) {
      remembered.text = renderCell(cell, column, decimalSeparator, table, row);
      remembered.cell = cell;
    }
    return remembered.text;
  };
}

/**
 * The offset column's renderer of a datetime column (its cell already checked by the column's own
 * renderer); like that renderer it keeps the last instant's text, as instants repeat row after row.
 */
function offsetRenderer(column: Column): (cell: string) => string {
  let last: { cell: string | null; text: string } = { cell: null, text: '' };
  return (cell) => {
    if (cell !== last.cell) last = { cell, text: offsetCell(cell, column) };
    return last.text;
  };
}

/** The first characters of text that {@link guardFormula} may change: ' = + - @ tab CR. */
const GUARD_STARTS = new Set([0x27, 0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);

/**
 * `guardFormula(wellFormed(text))` without a regular expression for the common text: only text
 * that holds a surrogate is checked for lone ones, only text starting with one of the formula
 * characters (or a quote) is checked for the guard.
 */
function guardText(text: string): string {
  const whole = (text as unknown as WellFormedString).isWellFormed() ? text : wellFormed(text);
  return GUARD_STARTS.has(whole.charCodeAt(0)) ? guardFormula(whole) : whole;
}

/** `String.prototype.isWellFormed` (ES2024, in Node 20), which the project's `lib` setting predates. */
interface WellFormedString {
  isWellFormed(): boolean;
}

/** A field as csv-stringify writes it with a one-character `delimiter` and `"` quotes. */
function fieldQuoter(delimiter: string): (value: string) => string {
  // One scan of the common field, which needs no quotes, instead of one per character looked for.
  const special = new RegExp(`["\\r\\n${delimiter.replace(/[\\\]^-]/g, '\\$&')}]`);
  return (value) => {
    if (!special.test(value)) return value;
    return `"${value.includes('"') ? value.replaceAll('"', '""') : value}"`;
  };
}

function checkOptions(delimiter: string, decimalSeparator: string): void {
  if (delimiter === '' || /["\r\n]/.test(delimiter)) {
    throw new ValidationError('delimiter', 'must be non-empty and contain no quote or line break');
  }
  if (decimalSeparator !== '.' && decimalSeparator !== ',') {
    throw new ValidationError('decimalSeparator', "must be '.' or ','");
  }
  if (delimiter === decimalSeparator) {
    throw new ValidationError('decimalSeparator', `must differ from delimiter ${preview(delimiter)}`);
  }
}

function renderCell(
  cell: Cell,
  column: Column,
  decimalSeparator: '.' | ',',
  table: string,
  row: number,
): string {
  if (cell === null) return '';
  switch (column.kind) {
    case 'text':
      return guardFormula(wellFormed(decimalSeparator === ',' ? commaNumbers(cell) : cell));
    case 'decimal':
      if (!isDecimalLiteral(cell)) {
        throw new ReportCellError(table, column.key, row, `not a decimal literal: ${preview(cell)}`);
      }
      return decimalSeparator === '.' ? cell : cell.replace('.', decimalSeparator);
    case 'integer':
      if (!isIntegerLiteral(cell)) {
        throw new ReportCellError(table, column.key, row, `not an integer literal: ${preview(cell)}`);
      }
      return cell;
    case 'datetime': {
      // A UTC column's cell in `toISOString`'s form shows its own digits: no Date in between.
      if (isCanonicalInstant(cell) && isUtcZone(columnZone(column)))
        return utcWallText(cell, decimalSeparator);
      const ms = instantMillis(cell);
      if (ms === undefined) {
        throw new ReportCellError(table, column.key, row, `not an ISO-8601 instant: ${preview(cell)}`);
      }
      return csvLocalDateTime(ms, columnZone(column), decimalSeparator);
    }
  }
}

/** {@link csvLocalDateTime} in UTC of an instant in `toISOString`'s form, from its text. */
function utcWallText(cell: string, decimalSeparator: '.' | ','): string {
  return decimalSeparator === '.' ? cell.slice(0, 23) : `${cell.slice(0, 19)},${cell.slice(20, 23)}`;
}

/** The offset column's cell for datetime `cell` (already checked by {@link renderCell}). */
function offsetCell(cell: Cell, column: Column): string {
  const ms = cell === null ? undefined : instantMillis(cell);
  return ms === undefined ? '' : utcOffsetText(ms, columnZone(column));
}

/**
 * A decimal number inside a text (`264.198939 USDC`, `0.02 stETH (sale …)`) with a decimal comma,
 * for the European dialect: a run of digits, a point, a run of digits, not part of a longer
 * dotted run (`0.1.0`, an address), so ids, hashes and versions are left as they are.
 */
function commaNumbers(text: string): string {
  return text.includes('.') ? text.replace(/(?<![\d.])(\d+)\.(\d+)(?![\d.])/g, '$1,$2') : text;
}

/** Bytes gathered before one write to the output. */
const OUTPUT_CHUNK = 64 * 1024;

/**
 * Joins csv-stringify's one chunk per record into larger writes: on a file every write is a
 * thread-pool round trip, and a hash and a buffer copy in a sink.
 */
function coalesce(): Transform {
  let pending: Buffer[] = [];
  let size = 0;
  const take = () => {
    const joined = Buffer.concat(pending, size);
    pending = [];
    size = 0;
    return joined;
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      pending.push(chunk);
      size += chunk.length;
      if (size >= OUTPUT_CHUNK) callback(null, take());
      else callback();
    },
    flush(callback) {
      callback(null, size > 0 ? take() : undefined);
    },
  });
}
