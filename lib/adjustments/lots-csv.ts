/**
 * Opening lots from a CSV file: our columns `token, account, quantity, cost, acquired_at`, or the
 * headers other tools' closing-lots (holdings by lot) exports use for the same things (see
 * {@link HEADER_ALIASES}). Amounts are plain decimals; dates ISO instants with an offset, or days
 * (`YYYY-MM-DD`, taken as midnight UTC). Each error names the row and the column.
 */
import { type CsvRecord, readCsvRecords } from '../csv-records.ts';
import { CsvSyntaxError } from '../errors.ts';
import { LotsCsvError } from './errors.ts';
import { type Lot, lotSchema } from './schema.ts';

const COLUMNS = ['token', 'account', 'quantity', 'cost', 'acquired_at'] as const;
/** A column of the lots CSV. */
type LotColumn = (typeof COLUMNS)[number];

/**
 * Headers read as each column, compared without case, spaces, `_`, `-` and a trailing currency
 * in brackets (`Cost basis (USD)`). `token`, `quantity`, `cost` and `acquired_at` are required.
 */
export const HEADER_ALIASES: Readonly<Record<LotColumn, readonly string[]>> = {
  token: ['token', 'asset', 'symbol', 'currency', 'coin'],
  account: ['account', 'wallet', 'exchange', 'location', 'walletexchange'],
  quantity: ['quantity', 'amount', 'qty', 'units', 'holdings'],
  cost: ['cost', 'costbasis', 'basis', 'totalcost', 'cost(basis)'],
  acquired_at: [
    'acquiredat',
    'dateacquired',
    'acquired',
    'acquisitiondate',
    'purchasedate',
    'datepurchased',
    'date',
  ],
};
const REQUIRED = new Set(['token', 'quantity', 'cost', 'acquired_at']);

/** `Cost basis (USD)` → `costbasis`. */
function headerKey(header: string): string {
  return header
    .replace(/\s*\([A-Za-z]{3}\)\s*$/, '')
    .toLowerCase()
    .replace(/[\s_-]+/g, '');
}

/**
 * The records of the lots CSV (csv-parse: RFC 4180, BOM, CRLF or LF, blank lines dropped, cells
 * trimmed). A text that is not well-formed CSV throws `LotsCsvError` naming the row, the
 * column (as the header names it) and the line.
 */
function lotsRecords(text: string): string[][] {
  let records: CsvRecord[];
  try {
    records = readCsvRecords(text);
  } catch (error) {
    if (!(error instanceof CsvSyntaxError)) throw error;
    const header = error.record > 0 ? readCsvRecords(text, { to: 1 })[0]?.cells : undefined;
    const column = header?.[error.field] ?? (error.record === 0 ? '(header)' : `(field ${error.field + 1})`);
    throw new LotsCsvError(error.record, column, `line ${error.line}: ${error.reason}`, { cause: error });
  }
  return records.map((record) => record.cells);
}

/** An ISO instant with offset, or a day taken as its midnight UTC; `null` when neither. */
function instantOf(text: string): string | null {
  if (/^\d{4}-\d{2}-\d{2}$/.test(text))
    return Number.isNaN(Date.parse(`${text}T00:00:00Z`)) ? null : `${text}T00:00:00Z`;
  return lotSchema.shape.acquiredAt.safeParse(text).success ? text : null;
}

/**
 * Reads the lots of a CSV text (see the module comment). Throws `LotsCsvError` naming the row
 * (1 = the first row after the header) and the column, for a missing column, an empty required
 * cell, an amount that is no plain decimal or a date that is no ISO instant or day.
 */
export function importLotsCsv(text: string): Lot[] {
  const [header, ...rows] = lotsRecords(text);
  if (header === undefined) throw new LotsCsvError(0, '(header)', 'the file is empty');
  const at = new Map<string, number>();
  header.forEach((name, index) => {
    const key = headerKey(name);
    const column = COLUMNS.find((candidate) => HEADER_ALIASES[candidate].includes(key));
    if (column !== undefined && !at.has(column)) at.set(column, index);
  });
  for (const column of REQUIRED) {
    if (!at.has(column))
      throw new LotsCsvError(
        0,
        column,
        `no such column in the header (read as ${column}: ${HEADER_ALIASES[column as LotColumn].join(', ')})`,
      );
  }
  return rows.map((cells, index) => {
    const row = index + 1;
    const cell = (column: string) => (cells[at.get(column) ?? -1] ?? '').trim();
    const acquiredAt = instantOf(cell('acquired_at'));
    if (acquiredAt === null)
      throw new LotsCsvError(
        row,
        'acquired_at',
        `${JSON.stringify(cell('acquired_at'))} is no ISO instant with offset or YYYY-MM-DD day`,
      );
    const account = cell('account');
    const lot = {
      token: cell('token'),
      ...(account === '' ? {} : { account }),
      quantity: cell('quantity'),
      cost: cell('cost'),
      acquiredAt,
    };
    const parsed = lotSchema.safeParse(lot);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const column = String(issue?.path[0] ?? '');
      throw new LotsCsvError(
        row,
        column,
        `${JSON.stringify(cell(column))} ${issue?.message ?? 'is invalid'}`,
        {
          cause: parsed.error,
        },
      );
    }
    return parsed.data;
  });
}
