import { DateTime, IANAZone } from 'luxon';
import type { Row, TableSpec } from '../../../domain/index.ts';
import { fastUtcInstant } from '../../../domain/index.ts';
import { ValidationError } from '../../../errors.ts';
import { ReportCellError } from './errors.ts';

const DECIMAL = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;
/**
 * OWASP CSV injection: cells starting with = + - @ tab or CR may be evaluated as formulas by
 * spreadsheets. Text that already starts with quotes before one of them is guarded too, so the
 * guard can always be undone ({@link unguardFormula}).
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
/** A guarded cell: the guard's quote, then (after any further quotes) a formula character. */
const GUARDED = /^'(?='*[=+\-@\t\r])/;
/** A UTF-16 code unit of a surrogate pair standing alone. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A short, JSON-escaped preview of a rejected value for error messages. */
export function preview(value: string): string {
  return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
}

/** True when `value` is a plain decimal literal (`-1.25`, `42`): no exponent, `+`, spaces or separators. */
export function isDecimalLiteral(value: string): boolean {
  return DECIMAL.test(value);
}

/** True when `value` is a plain integer literal (`-42`). */
export function isIntegerLiteral(value: string): boolean {
  return INTEGER.test(value);
}

/**
 * Prefixes `'` to text a spreadsheet would read as a formula: text starting with = + - @ tab or
 * CR, possibly after quotes (`'=1` becomes `''=1`, so a reader can tell it from a guarded `=1`).
 * Text cells only.
 */
export function guardFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
}

/** Undoes {@link guardFormula}: the text a guarded CSV cell holds. */
export function unguardFormula(value: string): string {
  return value.replace(GUARDED, '');
}

/**
 * Text as UTF-8 files can hold it: a lone surrogate (half of a UTF-16 pair, which JSON may carry
 * as `\ud800` but UTF-8 cannot encode) becomes U+FFFD, the replacement character.
 */
export function wellFormed(text: string): string {
  return text.replace(LONE_SURROGATE, '\ufffd');
}

/** Rejects specs a writer cannot render: no columns, or a `datetime` column with an unknown zone. */
export function checkSpec(spec: TableSpec): void {
  if (spec.columns.length === 0) throw new ValidationError(`${spec.name}.columns`, 'must not be empty');
  for (const column of spec.columns) {
    if (
      column.kind === 'datetime' &&
      column.timeZone !== undefined &&
      !IANAZone.isValidZone(column.timeZone)
    ) {
      throw new ValidationError(
        `${spec.name}.${column.key}.timeZone`,
        `unknown IANA zone ${preview(column.timeZone)}`,
      );
    }
  }
}

/** Rejects data row `rowNumber` (1-based) of `spec` unless it has one cell per column. */
export function checkRowLength(spec: TableSpec, row: Row, rowNumber: number): void {
  if (row.length !== spec.columns.length) {
    throw new ReportCellError(
      spec.name,
      '*',
      rowNumber,
      `has ${row.length} cells, expected ${spec.columns.length}`,
    );
  }
}

/**
 * Parses a `datetime` cell (ISO-8601 instant; no offset means UTC) into epoch milliseconds.
 * Returns undefined when the value is not an instant.
 */
export function instantMillis(value: string): number | undefined {
  const fast = fastUtcInstant(value);
  if (!Number.isNaN(fast)) return fast;
  const instant = DateTime.fromISO(value, { zone: 'utc' });
  return instant.isValid ? instant.toMillis() : undefined;
}
