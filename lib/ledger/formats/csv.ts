/**
 * The generic ledger-entries CSV: one line per posting (entry id, date, account, debit, credit,
 * currency, quantity and token, transaction id, description). In an export it is the `journal`
 * table (its CSV file and the workbook's Journal sheet, in the request's CSV dialect); `files`
 * writes it alone, comma-separated with a decimal point.
 */
import type { Column, Row, TableSpec } from '../../domain/index.ts';
import type { JournalEntry, LedgerFormat } from '../types.ts';

/** The columns of the generic journal CSV, each described for the Read me. */
export const JOURNAL_COLUMNS: readonly Column[] = [
  {
    key: 'entry_id',
    header: 'Entry',
    kind: 'text',
    description: 'the entry the line belongs to; the lines of one entry balance',
  },
  {
    key: 'date',
    header: 'Date',
    kind: 'text',
    description: 'the entry date (YYYY-MM-DD) in the report time zone',
  },
  {
    key: 'account',
    header: 'Account',
    kind: 'text',
    description: 'the account code or path from the chart of accounts',
  },
  {
    key: 'account_name',
    header: 'Account name',
    kind: 'text',
    description: 'the account as the chart names it',
  },
  {
    key: 'debit',
    header: 'Debit',
    kind: 'decimal',
    description:
      'amount debited, in the reporting currency, to its minor unit (on a credit line: 0 in the CSV, an empty cell in the workbook)',
    blankZero: true,
  },
  {
    key: 'credit',
    header: 'Credit',
    kind: 'decimal',
    description:
      'amount credited, in the reporting currency, to its minor unit (on a debit line: 0 in the CSV, an empty cell in the workbook)',
    blankZero: true,
  },
  {
    key: 'currency',
    header: 'Currency',
    kind: 'text',
    description: 'the reporting currency of debit and credit',
    spaced: true,
  },
  {
    key: 'quantity',
    header: 'Quantity',
    kind: 'decimal',
    exact: true,
    description:
      'asset lines: the token quantity moved, exact (positive into the account); empty on the other lines',
  },
  {
    key: 'token',
    header: 'Token',
    kind: 'text',
    description: 'asset lines: the token; empty on the other lines',
  },
  {
    key: 'transaction_id',
    header: 'Transaction',
    kind: 'text',
    description: 'the transaction the line comes from (empty on opening balances and rolled-up months)',
  },
  { key: 'description', header: 'Description', kind: 'text', description: 'the entry in words' },
];

/** The `journal` table's spec. */
export const JOURNAL_SPEC: TableSpec = {
  name: 'journal',
  title: 'Journal',
  description:
    'one posting of a journal entry for the general ledger (debit or credit, account, token quantity)',
  columns: JOURNAL_COLUMNS,
};

/** The rows of one entry: one per posting. */
export function journalRows(entry: JournalEntry): Row[] {
  return entry.postings.map((p) => [
    entry.id,
    entry.date,
    p.account.code,
    p.account.name,
    p.debit,
    p.credit,
    p.currency,
    p.quantity ?? null,
    p.token ?? null,
    p.txId ?? (entry.txIds.length === 1 ? (entry.txIds[0] as string) : null),
    entry.description,
  ]);
}

const quote = (cell: string | null): string =>
  cell === null ? '' : /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;

/** The generic ledger-entries CSV. */
export const csvFormat: LedgerFormat = {
  id: 'csv',
  description:
    'generic ledger entries CSV: one line per posting (entry, date, account, debit, credit, quantity, token, transaction)',
  files(entries) {
    const lines = [JOURNAL_COLUMNS.map((c) => c.key).join(',')];
    for (const entry of entries) for (const row of journalRows(entry)) lines.push(row.map(quote).join(','));
    return [
      { name: 'journal.csv', contentType: 'text/csv; charset=utf-8', body: `${lines.join('\r\n')}\r\n` },
    ];
  },
};
