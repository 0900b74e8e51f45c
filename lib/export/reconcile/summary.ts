/** The reconciliation's result in words and as the manifest records it. */
import Big from 'big.js';
import type { OpeningRecord } from './opening.ts';
import type { ReconciledBalance } from './reconcile.ts';

/** `reconciled`: every difference 0; `differences`: some are not; `not-reconciled`: not done (`note` says why). */
export type ReconciliationStatus = 'reconciled' | 'differences' | 'not-reconciled';

/** The manifest's `reconciliation` entry. */
export interface ReconciliationRecord {
  status: ReconciliationStatus;
  /** The result in one line of words (the Read me's and the CLI's). */
  note: string;
  /** ISO instant the balances are compared at. */
  periodEnd?: string;
  differences: {
    ledgerId: string;
    symbol: string;
    computed: string;
    reportedAtPeriodEnd: string;
    difference: string;
  }[];
  /**
   * The computed closing balance at `periodEnd` of every ledger and token, for the next period's
   * opening check (kept also when not reconciled: they come from the transactions alone).
   */
  closingBalances: { ledgerId: string; symbol: string; amount: string }[];
  /** ISO instant of the opening balances: the period's start. */
  periodStart?: string;
  /** The computed balance at `periodStart` of every ledger and token not 0. */
  openingBalances?: { ledgerId: string; symbol: string; amount: string }[];
  /** The opening balances against the previous closed period's closing ones (opening.ts). */
  opening?: OpeningRecord;
  /** Tables of the reconciliation in the set (`<base>_<table>.csv`, and sheets of the workbook). */
  tables?: string[];
}

/** What to do about a difference, said with every one. */
export const DIFFERENCE_ACTION =
  'check the service for transactions missing from its listings (or listed twice) in this ledger and token, and ' +
  'whether its reported balance is current; export again once the service is corrected, or record the cause in the adjustments';

/** The record of a reconciliation that was not done, with the reason. */
export function notReconciled(reason: string): ReconciliationRecord {
  return {
    status: 'not-reconciled',
    note: `not reconciled: ${reason}`,
    differences: [],
    closingBalances: [],
  };
}

/** The record of a reconciliation's rows. */
export function reconciliationRecord(
  rows: readonly ReconciledBalance[],
  periodEnd: string,
): ReconciliationRecord {
  const differences = rows
    .filter((r) => !new Big(r.difference).eq(0))
    .map(({ ledgerId, symbol, computed, reportedAtPeriodEnd, difference }) => ({
      ledgerId,
      symbol,
      computed,
      reportedAtPeriodEnd,
      difference,
    }));
  const pairs = rows.length;
  const note =
    differences.length === 0
      ? `reconciled: ${pairs} ledger balance${pairs === 1 ? '' : 's'} at ${periodEnd} equal what the service reports`
      : `not reconciled: ${differences.length} of ${pairs} ledger balances at ${periodEnd} differ from what the service reports`;
  return {
    status: differences.length === 0 ? 'reconciled' : 'differences',
    note,
    periodEnd,
    differences,
    closingBalances: rows.map((r) => ({ ledgerId: r.ledgerId, symbol: r.symbol, amount: r.computed })),
  };
}

/** One warning per difference: ledger, token, the two figures, the difference and what to do. */
export function differenceWarnings(record: ReconciliationRecord): string[] {
  return record.differences.map(
    (d) =>
      `reconciliation difference: ledger ${d.ledgerId}, token ${d.symbol}: the transactions give ${d.computed} at ` +
      `${record.periodEnd}, the service reports ${d.reportedAtPeriodEnd} (carried back to then): difference ${d.difference}. ` +
      `What to do: ${DIFFERENCE_ACTION}.`,
  );
}
