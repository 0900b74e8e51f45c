/**
 * The reconciliation step of an export (run by the pipeline after the render, before publishing):
 * for a request whose reports include the gains (holdings) or the journal, each ledger's balance
 * per token at the period end computed from the snapshot, against the service's reported balance
 * carried back to the period end. Returns the Reconciliation table and its movements (rendered as
 * CSV files and sheets with the reports), the manifest's `reconciliation` entry and one warning per
 * difference. Otherwise: nothing at all.
 */
import type { TableSource } from '../../domain/index.ts';
import type { ReportedBalance, TransactionFieldMap } from '../../pbs/index.ts';
import { PbsHttpError } from '../../pbs/index.ts';
import {
  balancesAtInstants,
  type LaterSource,
  type LedgerBalances,
  laterMovements,
  type TalliedBalances,
} from './compute.ts';
import { reconcile } from './reconcile.ts';
import {
  differenceWarnings,
  notReconciled,
  type ReconciliationRecord,
  reconciliationRecord,
} from './summary.ts';
import { movementsTable, reconciliationTable } from './tables.ts';

/** The service's side, when the run has one (not a render from a snapshot). */
export interface BalanceSource extends LaterSource {
  /** Absent: the client cannot ask for balances (then "not reconciled"). */
  reportedBalances?(): Promise<ReportedBalance[] | null>;
}

/** What the step is given. */
export interface ReconcileStepInput {
  /** The request's reports: reconciled only with `gains` or `journal`. */
  reports: readonly string[];
  snapshotFile: string;
  fields: TransactionFieldMap;
  /** The period's start instant (epoch ms): its opening balances are computed there. */
  periodStartMs: number;
  /** The period's end instant (epoch ms). */
  periodEndMs: number;
  /** The period's time zone: the notes and warnings say their instants as days in it. */
  timeZone: string;
  /** When the export started: a period not over yet is reconciled at this instant. */
  startedAtMs: number;
  /** Null: a render from a snapshot (the service is not asked). */
  service: BalanceSource | null;
  /**
   * The balances the run tallied while it assembled the snapshot (its report model's
   * `reconciliationBalances`): used when they are at the period's start and the step's end, so
   * the snapshot is not read again; otherwise the snapshot is read.
   */
  tallied?: TalliedBalances | null;
}

/** What the step returns: nothing when not asked. */
export interface ReconcileStepResult {
  record: ReconciliationRecord;
  /** The Reconciliation table and its movements: CSV files and sheets of the set. */
  tables: TableSource[];
  warnings: string[];
  /**
   * The balances at the period start, per ledger then token (the opening the next step checks
   * against the closed period before, `opening.ts`); absent in a render from a snapshot.
   */
  opening?: LedgerBalances;
  /**
   * A render from a snapshot: the manifest records why it is not reconciled, but the files and
   * messages stay those of the render (the set it re-renders carries its own reconciliation).
   */
  quiet?: true;
}

/** Whether a request with `reports` is reconciled: it includes holdings (gains) or the journal. */
export function wantsReconciliation(reports: readonly string[]): boolean {
  return reports.includes('gains') || reports.includes('journal');
}

/** Runs the step (see the module); null when the request's reports do not ask for it. */
export async function reconcileStep(input: ReconcileStepInput): Promise<ReconcileStepResult | null> {
  if (!wantsReconciliation(input.reports)) return null;
  if (input.service === null) {
    const record = notReconciled('rendered from a snapshot, the service was not asked for its balances');
    return { record, tables: [], warnings: [], quiet: true };
  }
  const endMs = Math.min(input.periodEndMs, input.startedAtMs);
  // Not reconciled, the computed balances are still recorded: the next period's opening check needs them.
  const refuse = async (reason: string): Promise<ReconcileStepResult> => {
    const [opening, closing] = await openingAndClosing(input, endMs);
    const record = {
      ...withBalances(notReconciled(reason), input.periodStartMs, opening),
      periodEnd: new Date(endMs).toISOString(),
      closingBalances: recorded(closing),
    };
    return { record, tables: [], warnings: [record.note], opening };
  };
  if (input.service.reportedBalances === undefined) return refuse('the service reports no balances');
  let reported: ReportedBalance[] | null;
  try {
    reported = await input.service.reportedBalances();
  } catch (error) {
    // The service answered with an error (its ledgers' path missing, say): the export stands,
    // and every report says it is not reconciled and why. Anything else (a stop, the network)
    // fails the run as any other request would.
    if (!(error instanceof PbsHttpError)) throw error;
    return refuse(`the service's reported balances could not be read: ${error.message}`);
  }
  if (reported === null) return refuse('the service reports no balances');
  const asOfMs = reported.reduce((latest, r) => Math.max(latest, r.asOfMs), endMs);
  const [[opening, balances], later] = await Promise.all([
    openingAndClosing(input, endMs),
    laterMovements(input.service, input.fields, endMs, asOfMs),
  ]);
  const rows = reconcile({ computed: balances, reported, later });
  const record = withBalances(
    reconciliationRecord(rows, new Date(endMs).toISOString(), input.timeZone),
    input.periodStartMs,
    opening,
  );
  const used = later.filter((m) => rows.some((r) => r.ledgerId === m.ledgerId && r.symbol === m.symbol));
  const tables = [reconciliationTable(rows), movementsTable(used)];
  record.tables = tables.map((t) => t.spec.name);
  return { record, tables, warnings: differenceWarnings(record, input.timeZone), opening };
}

/** The balances at the period start and at `endMs`, in one pass over the snapshot. */
async function openingAndClosing(
  input: ReconcileStepInput,
  endMs: number,
): Promise<[LedgerBalances, LedgerBalances]> {
  const startMs = Math.min(input.periodStartMs, endMs);
  const { tallied } = input;
  const { balances } =
    tallied?.instants.length === 2 && tallied.instants[0] === startMs && tallied.instants[1] === endMs
      ? tallied
      : await balancesAtInstants(input.snapshotFile, input.fields, [startMs, endMs]);
  return [balances[0] as LedgerBalances, balances[1] as LedgerBalances];
}

/** `record` with the period's opening balances (`periodStart`, `openingBalances`). */
function withBalances(
  record: ReconciliationRecord,
  periodStartMs: number,
  opening: LedgerBalances,
): ReconciliationRecord {
  return {
    ...record,
    periodStart: new Date(periodStartMs).toISOString(),
    openingBalances: recorded(opening),
  };
}

/** Balances as the manifest records them: every ledger and token not 0, in ledger then token order. */
function recorded(balances: LedgerBalances): { ledgerId: string; symbol: string; amount: string }[] {
  return [...balances]
    .flatMap(([ledgerId, tokens]) =>
      [...tokens]
        .filter(([, amount]) => !amount.eq(0))
        .map(([symbol, amount]) => ({ ledgerId, symbol, amount: amount.toFixed() })),
    )
    .sort((a, b) =>
      a.ledgerId === b.ledgerId ? (a.symbol < b.symbol ? -1 : 1) : a.ledgerId < b.ledgerId ? -1 : 1,
    );
}
