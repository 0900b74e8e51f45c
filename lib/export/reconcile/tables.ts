/** The Reconciliation tables: one row per ledger and token, and the movements used to carry back. */
import type { Column, Row, TableSource } from '../../domain/index.ts';
import type { LaterMovement, ReconciledBalance } from './reconcile.ts';

const text = (key: string, header: string, description: string): Column => ({
  key,
  header,
  kind: 'text',
  description,
});
const decimal = (key: string, header: string, description: string): Column => ({
  key,
  header,
  kind: 'decimal',
  exact: true,
  description,
});

/** Columns of the reconciliation table. */
export const RECONCILIATION_COLUMNS: readonly Column[] = [
  text('ledger_id', 'Ledger', 'the service ledger'),
  text('token', 'Token', 'the token symbol'),
  decimal('computed', 'Computed at period end', 'the balance the transactions give at the period end'),
  decimal('reported', 'Reported', 'the balance the service reports at "reported as of"'),
  {
    key: 'reported_as_of',
    header: 'Reported as of',
    kind: 'datetime',
    description: 'when the service held it',
  },
  decimal(
    'movements_after',
    'Movements after period end',
    'the movements from the period end to "reported as of"',
  ),
  { key: 'movement_count', header: 'Movements', kind: 'integer', description: 'how many movements that is' },
  decimal(
    'reported_at_period_end',
    'Reported at period end',
    'reported less the movements after the period end',
  ),
  decimal('difference', 'Difference', 'reported at period end less computed: 0 when reconciled'),
];

/** Columns of the movements used. */
export const MOVEMENT_COLUMNS: readonly Column[] = [
  text('ledger_id', 'Ledger', 'the service ledger'),
  text('token', 'Token', 'the token symbol'),
  text('transaction_id', 'Transaction', 'the transaction after the period end'),
  { key: 'date', header: 'Date', kind: 'datetime', description: 'its date' },
  decimal('change', 'Change', "what it changed in the ledger's balance of the token"),
];

function source(
  name: string,
  title: string,
  description: string,
  columns: readonly Column[],
  rows: Row[],
): TableSource {
  return {
    spec: { name, title, description, columns },
    async *rows() {
      yield* rows;
    },
  };
}

/** The reconciliation table of `rows`. */
export function reconciliationTable(rows: readonly ReconciledBalance[]): TableSource {
  return source(
    'reconciliation',
    'Reconciliation',
    "one row per ledger and token: the balance the transactions give at the period end against the service's reported balance carried back to the period end, and their difference (0 when reconciled)",
    RECONCILIATION_COLUMNS,
    rows.map((r) => [
      r.ledgerId,
      r.symbol,
      r.computed,
      r.reported,
      r.reportedAsOf,
      r.laterMovements,
      String(r.laterMovementCount),
      r.reportedAtPeriodEnd,
      r.difference,
    ]),
  );
}

/** The table of the movements used to carry the reported balances back. */
export function movementsTable(movements: readonly LaterMovement[]): TableSource {
  return source(
    'reconciliation_movements',
    'Reconciliation movements',
    'one row per movement after the period end used to carry a reported balance back to the period end: ledger, token, transaction, date and the change to the balance',
    MOVEMENT_COLUMNS,
    movements.map((m) => [m.ledgerId, m.symbol, m.transactionId, m.date, m.change]),
  );
}
