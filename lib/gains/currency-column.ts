/**
 * Every money figure of the gains reports names its currency, in CSV as in XLSX: a money column's
 * header says it (`Proceeds (GBP)`, the sheet's header) and every table with money gets a
 * `currency` column (the CSV's header row is the column keys, which stay the same whatever the
 * currency, so scripts reading them keep working), holding the currency on every row.
 */
import type { Column, TableSource } from '../domain/index.ts';

/** The `currency` column of a gains table. */
export const CURRENCY_COLUMN: Column = {
  key: 'currency',
  header: 'Currency',
  kind: 'text',
  description: 'the currency (ISO 4217) of every money column of this table',
};

/** A money column: an amount of money, not a token quantity (those are exact decimals) or a count. */
const isMoney = (column: Column) => column.kind === 'decimal' && column.exact !== true;

/** `header` naming `currency`, unless it already does. */
function named(header: string, currency: string): string {
  return header.includes(`(${currency})`) ? header : `${header} (${currency})`;
}

/**
 * `table` with its money headers naming `currency` and a `currency` column last (every row
 * `currency`; empty when no currency is known). A table without money columns is returned as it is.
 */
export function withCurrency(table: TableSource, currency: string | null): TableSource {
  const { spec } = table;
  if (!spec.columns.some(isMoney) || spec.columns.some((column) => column.key === CURRENCY_COLUMN.key)) {
    return table;
  }
  const columns = spec.columns.map((column) =>
    currency !== null && isMoney(column) ? { ...column, header: named(column.header, currency) } : column,
  );
  return {
    spec: { ...spec, columns: [...columns, CURRENCY_COLUMN] },
    async *rows() {
      for await (const row of table.rows()) yield [...row, currency];
    },
  };
}
