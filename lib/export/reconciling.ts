/**
 * The reconciliation stage of the pipeline (run after the records are in, before the render): the
 * period's balances against the service's reported ones (`reconcile/step.ts`), and its opening
 * balances against the closed period before (`reconcile/opening.ts`), each difference and break
 * warned of. Null for a request whose reports do not ask for it.
 */
import type { TransactionFieldMap } from '../pbs/index.ts';
import { type ExportRequest, periodLabel, periodRange } from './plan/index.ts';
import {
  type BalanceSource,
  type ClosedPrevious,
  checkOpening,
  type ReconcileStepResult,
  type ReconciliationRecord,
  reconcileStep,
  type TalliedBalances,
} from './reconcile/index.ts';
import type { RenderedReports } from './report/index.ts';

/** What the stage is given. */
export interface ReconcileRunInput {
  request: ExportRequest;
  runId: string;
  snapshotFile: string;
  fields: TransactionFieldMap;
  startedAt: Date;
  /** Null: a render from a snapshot (the service is not asked). */
  service: BalanceSource | null;
  /** The closed set of the period ending at `periodStart` (`PipelineStages.closedPrevious`). */
  closedPrevious?: (request: ExportRequest, periodStart: string) => Promise<ClosedPrevious | null>;
  warn?: (message: string) => void;
  /** The balances the assembly's report model tallied (`ReconcileStepInput.tallied`). */
  tallied?: TalliedBalances | null;
}

/** Runs the stage (see the module). */
export async function reconcileRun(input: ReconcileRunInput): Promise<ReconcileStepResult | null> {
  const { request, warn } = input;
  const range = periodRange(request.period, request.timeZone);
  const result = await reconcileStep({
    reports: request.reports,
    snapshotFile: input.snapshotFile,
    fields: input.fields,
    periodStartMs: range.start.toMillis(),
    periodEndMs: range.end.toMillis(),
    timeZone: request.timeZone,
    startedAtMs: input.startedAt.getTime(),
    service: input.service,
    tallied: input.tallied ?? null,
  });
  for (const warning of result?.warnings ?? []) warn?.(warning);
  const record = result?.record;
  const lookup = input.closedPrevious;
  if (lookup === undefined || result?.quiet || record?.openingBalances === undefined) return result;
  const periodStart = record.periodStart as string;
  const self = {
    profile: request.profile,
    periodLabel: periodLabel(request.period),
    runId: input.runId,
    timeZone: request.timeZone,
  };
  const checked = await checkOpening(record.openingBalances, periodStart, self, () =>
    lookup(request, periodStart),
  );
  record.opening = checked.record;
  for (const warning of checked.warnings) warn?.(warning);
  return result;
}

/**
 * The Read me's first-screen line of a reconciled run: its result, and its opening check's (one
 * line, so the notes after it, demo rates say, stay on the first lines).
 */
export function reconciliationAttention(record: ReconciliationRecord): string[] {
  return [record.opening === undefined ? record.note : `${record.note}; ${record.opening.note}`];
}

/** The rendered set with the reconciliation's record in its description (the manifest's `reconciliation`). */
export function withReconciliation(rendered: RenderedReports, record: ReconciliationRecord): RenderedReports {
  return {
    ...rendered,
    description: { ...rendered.description, reconciliation: record } as RenderedReports['description'],
  };
}
