import { DateTime, IANAZone } from 'luxon';
import { ValidationError } from '../../errors.ts';
import type { TableSpec } from '../table.ts';
import { fastUtcInstant } from '../zoned.ts';

const DECIMAL = /^-?\d+(\.\d+)?$/;
const INTEGER = /^-?\d+$/;
/** OWASP CSV injection: cells starting with these may be evaluated as formulas by spreadsheets. */
const FORMULA_START = /^[=+\-@\t\r]/;

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

/** Prefixes `'` to text a spreadsheet would read as a formula. Text cells only. */
export function guardFormula(value: string): string {
  return FORMULA_START.test(value) ? `'${value}` : value;
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
