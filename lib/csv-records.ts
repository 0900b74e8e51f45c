/**
 * The one reader of the CSV files the project is given (the published rates files of `lib/fx`,
 * the opening lots of `lib/adjustments`): csv-parse, RFC 4180 (quoted fields, `""` inside quotes,
 * line breaks inside quotes; CRLF, LF or CR; a UTF-8 BOM skipped), each cell kept as the text
 * written (nothing cast: amounts stay exact decimal strings), with the line each record starts on
 * for error messages.
 */
import { CsvError, parse } from 'csv-parse/sync';
import { CsvSyntaxError } from './errors.ts';

/** One record of a CSV text and the line (1-based) it starts on. */
export interface CsvRecord {
  cells: string[];
  line: number;
}

/**
 * The records of `text`. Cells are trimmed of spaces around them (the ECB's daily file writes
 * `, USD`; spaces inside quotes stay); records whose cells are all empty (blank lines, `,,`) are
 * dropped; records may have different lengths (the callers check what they need). Throws
 * {@link CsvSyntaxError} naming the line for a text that is not well-formed CSV. `to`: read
 * only the first `to` records (the rest of the text unread).
 */
export function readCsvRecords(text: string, options: { to?: number } = {}): CsvRecord[] {
  const last = { line: 0, emptyLines: 0, extra: 0 };
  const records: CsvRecord[] = [];
  try {
    parse(text, {
      bom: true,
      trim: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_empty_values: true,
      ...(options.to === undefined ? {} : { to: options.to }),
      on_record: (record: string[], context) => {
        // csv-parse's `lines` is where the record ends, counting each CR and each LF inside
        // quoted cells as a line (a CRLF inside quotes counts two, here and for every later line).
        const start = context.lines - last.extra - charsIn(record, /[\r\n]/g);
        last.extra += charsIn(record, /\r\n/g);
        last.line = context.lines - last.extra;
        last.emptyLines = context.empty_lines;
        records.push({ cells: record, line: start });
        return null; // kept here, with its line, rather than in csv-parse's output
      },
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw syntaxError(error, last);
  }
  return records;
}

/** How many matches of `pattern` (global) the cells hold. */
function charsIn(cells: readonly string[], pattern: RegExp): number {
  let count = 0;
  for (const cell of cells) count += cell.match(pattern)?.length ?? 0;
  return count;
}

/** The typed error for csv-parse's `error`, in words naming the line and the field. */
function syntaxError(
  error: CsvError,
  last: { line: number; emptyLines: number; extra: number },
): CsvSyntaxError {
  const count = (value: unknown, otherwise: number) => (typeof value === 'number' ? value : otherwise);
  const line = count(error.lines, last.line + 1 + last.extra) - last.extra;
  const field = count(error.column, 0);
  const record = count(error.records, 0);
  if (error.code === 'CSV_QUOTE_NOT_CLOSED') {
    // csv-parse names the file's last line: the record began after the last one read and the blank lines after it.
    const start = last.line + 1 + count(error.empty_lines, last.emptyLines) - last.emptyLines;
    const reason = 'a quote opened on this line is not closed before the end of the file';
    return new CsvSyntaxError(start, field, record, reason, { cause: error });
  }
  const reasons: Partial<Record<string, string>> = {
    INVALID_OPENING_QUOTE: 'a quote inside a field that does not start with one',
    CSV_INVALID_CLOSING_QUOTE: 'text after a closing quote (a quote inside a quoted field is written "")',
  };
  return new CsvSyntaxError(line, field, record, reasons[error.code] ?? error.message, { cause: error });
}
