/** A set's reconciliation in short, as a job's result carries it for the portal (`JobResult.reconciliation`). */
import type { JobReconciliation } from './records.ts';

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

/**
 * The reconciliation of a published set's manifest, in short: `reconciliation.status` and `.note`,
 * and its opening check's status, note and the closed period compared with
 * (`reconciliation.opening`, lib/export/reconcile). Read defensively: undefined when the manifest
 * records no reconciliation; an opening check of another shape is left out.
 */
export function jobReconciliation(manifest: unknown): JobReconciliation | undefined {
  const record = (manifest as { reconciliation?: Record<string, unknown> } | null)?.reconciliation;
  const status = text(record?.status);
  const note = text(record?.note);
  if (status === undefined || note === undefined) return undefined;
  const opening = record?.opening as
    | { status?: unknown; note?: unknown; previousSet?: { period?: { label?: unknown } } | null }
    | undefined;
  const openingStatus = text(opening?.status);
  const openingNote = text(opening?.note);
  if (openingStatus === undefined || openingNote === undefined) return { status, note };
  const previousPeriod = text(opening?.previousSet?.period?.label);
  return {
    status,
    note,
    opening: {
      status: openingStatus,
      note: openingNote,
      ...(previousPeriod === undefined ? {} : { previousPeriod }),
    },
  };
}
