/**
 * The report model shared by normalisation and the writers: a table is a list of typed columns
 * and rows of cells. Every cell travels as text (or null) so amounts stay exact decimal strings
 * end to end; each writer turns a cell into its format's native type by the column's kind.
 */

export type ColumnKind =
  /** Free text; spreadsheet writers guard it against formula injection. */
  | 'text'
  /** Exact decimal string, e.g. `-1.250000000000000000`. */
  | 'decimal'
  /** Integer count as decimal text, e.g. `42`. */
  | 'integer'
  /** ISO-8601 UTC instant string; written as local wall time in `timeZone`. */
  | 'datetime';

export interface Column {
  /** Stable machine name, e.g. `fee_amount`; also the CSV header. */
  key: string;
  /** Header shown in spreadsheets, e.g. `Fee amount`. */
  header: string;
  kind: ColumnKind;
  /** `datetime` only: IANA zone the instant is shown in (default `UTC`). */
  timeZone?: string;
  /**
   * `decimal` only: a token quantity that may exceed Excel's 15 significant digits. XLSX writers
   * add a companion text column holding the exact string where the number would not be exact.
   */
  exact?: boolean;
  /**
   * `decimal` and `integer`: the widest cell of the column as a spreadsheet shows it (see
   * `numberWidth`), when the producer knows it from every row (totals included). The XLSX writer
   * sizes the column to fit it, so no number shows as `###`. With `wrap`: the column's width.
   */
  width?: number;
  /**
   * `text` only: the spreadsheet wraps the text inside the cell (rows grow to fit), in a column
   * `width` characters wide, instead of letting it run over the next cells (and off the page).
   */
  wrap?: boolean;
  /**
   * `decimal` only: a spreadsheet leaves a zero cell empty (the side of a journal line that is not
   * posted: the debit of a credit line); the CSV keeps its `0`.
   */
  blankZero?: boolean;
  /**
   * `text` only: a spreadsheet shows the text a space in from the cell's left edge (a short code
   * after a column of right-aligned numbers, which it would otherwise touch on paper: `17.95USD`).
   */
  spaced?: boolean;
  /** What the column holds, in one line of plain words (the Read me lists it). */
  description?: string;
}

export type Cell = string | null;
export type Row = readonly Cell[];

export interface TableSpec {
  /** File/sheet base name, e.g. `transactions`. */
  name: string;
  /** Sheet title, e.g. `Transactions`. */
  title: string;
  /** What one row of the table is, in plain words (the Read me lists it). */
  description?: string;
  columns: readonly Column[];
  /** A companion for machines (e.g. the exact figures of a rounded table): written as CSV only, never as a sheet. */
  csvOnly?: boolean;
  /**
   * The table's money is rounded once per line, half to even, to `currency`'s minor unit
   * (`minorUnit` decimals; null: kept as it is), and its totals add the rounded lines; `exact`
   * names the companion table holding the unrounded figures. The manifest lists it.
   */
  rounding?: { currency: string | null; minorUnit: number | null; exact?: string };
}

/** A table together with a way to read its rows (re-readable: called once per output format). */
export interface TableSource {
  spec: TableSpec;
  rows(): AsyncIterable<Row>;
}

/**
 * How many characters a decimal literal takes as a spreadsheet shows it with thousands
 * separators (`-1234567.89` → `-1,234,567.89`, 13): what a column must fit to show no `###`.
 */
export function numberWidth(literal: string): number {
  // Without allocating (called for every amount of every row): digits before the point.
  const point = literal.indexOf('.');
  const end = point === -1 ? literal.length : point;
  const minus = literal.indexOf('-');
  const intDigits = end - (minus !== -1 && minus < end ? 1 : 0);
  return literal.length + Math.max(0, Math.floor((intDigits - 1) / 3));
}
