/**
 * Reconciliation of the computed balances with the service's reported balances (issue 42, items 1
 * and 2; docs/accountant/reconciliation.md).
 */
export { balanceChanges, type ChangeFields, readDecimal } from './changes.ts';
export {
  type BalanceTally,
  balancesAtInstants,
  computedBalances,
  createBalanceTally,
  type LedgerBalances,
  laterMovements,
  type TalliedBalances,
} from './compute.ts';
export {
  type ClosedPrevious,
  checkOpening,
  OPENING_ACTION,
  type OpeningRecord,
  type OpeningStatus,
  openingRecord,
  openingWarnings,
  type ThisSet,
} from './opening.ts';
export { type LaterMovement, type ReconciledBalance, reconcile } from './reconcile.ts';
export {
  type BalanceSource,
  type ReconcileStepInput,
  type ReconcileStepResult,
  reconcileStep,
  wantsReconciliation,
} from './step.ts';
export {
  DIFFERENCE_ACTION,
  differenceWarnings,
  notReconciled,
  type ReconciliationRecord,
  type ReconciliationStatus,
  reconciliationRecord,
} from './summary.ts';
export { movementsTable, reconciliationTable } from './tables.ts';
