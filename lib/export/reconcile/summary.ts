/** The reconciliation's result in words and as the manifest records it. */
import Big from 'big.js';
import { instantWords } from '../plan/index.ts';
import type { OpeningRecord } from './opening.ts';
import type { ReconciledBalance } from './reconcile.ts';

/** `reconciled`: every difference 0; `differences`: some are not; `not-reconciled`: not done (`note` says why). */
export type ReconciliationStatus = 'reconciled' | 'differences' | 'not-reconciled';

/** The manifest's `reconciliation` entry. */
export interface ReconciliationRecord {
  status: ReconciliationStatus;
  /**
   * The result in one line of words (the Read me's, the CLI's, the tax pack's and the portal's),
   * its instant a day in the period's zone (`at the end of 2025-01-31 (UTC)`).
   */
  note: string;
  /** ISO instant the balances are compared at (the machine's field; the note says it in words). */
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

/** The record of a reconciliation's rows at `periodEnd` (ISO), said in days of `timeZone`. */
export function reconciliationRecord(
  rows: readonly ReconciledBalance[],
  periodEnd: string,
  timeZone: string,
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
  const at = instantWords(periodEnd, timeZone, 'end');
  const note =
    differences.length === 0
      ? `reconciled: ${pairs} ledger balance${pairs === 1 ? '' : 's'} at ${at} equal what the service reports`
      : `not reconciled: ${differences.length} of ${pairs} ledger balances at ${at} differ from what the service reports`;
  return {
    status: differences.length === 0 ? 'reconciled' : 'differences',
    note,
    periodEnd,
    differences,
    closingBalances: rows.map((r) => ({ ledgerId: r.ledgerId, symbol: r.symbol, amount: r.computed })),
  };
}

/**
 * One warning per difference: ledger, token, the two figures, the difference and what to do; the
 * instant in days of `timeZone`.
 */
export function differenceWarnings(record: ReconciliationRecord, timeZone: string): string[] {
  const at =
    record.periodEnd === undefined ? 'the period end' : instantWords(record.periodEnd, timeZone, 'end');
  return record.differences.map(
    (d) =>
      `reconciliation difference: ledger ${d.ledgerId}, token ${d.symbol}: the transactions give ${d.computed} at ` +
      `${at}, the service reports ${d.reportedAtPeriodEnd} (carried back to then): difference ${d.difference}. ` +
      `What to do: ${DIFFERENCE_ACTION}.`,
  );
}
