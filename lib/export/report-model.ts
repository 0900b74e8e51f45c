import type { TransactionFieldMap } from '../pbs/shape.ts';
import { createNormalizer } from './normalize.ts';
import type { ExportRequest } from './request.ts';
import { readSnapshotRecords, type SnapshotHeader, type SnapshotRecord } from './snapshot.ts';
import { createSummary } from './summary.ts';
import type { Row, TableSource } from './table.ts';

/**
 * What the reports need to know before their first row is written: the extra columns (fields
 * the mapping does not know) and the summaries. It observes every snapshot record once, then
 * hands out the requested tables, each re-reading the snapshot when its rows are written.
 */
export interface ReportModel {
  observe(record: SnapshotRecord): void;
  /** Tables of the requested reports, in report order, reading their rows from `snapshotFile`. */
  tables(snapshotFile: string): TableSource[];
  /** Value and fee totals per currency, as exact decimal strings, e.g. `value (USD)`. */
  totals(): Record<string, string>;
}

/** A model for `request` reading transactions laid out as `fields`. */
export function createReportModel(fields: TransactionFieldMap, request: ExportRequest): ReportModel {
  const normalizer = createNormalizer({ fields, timeZone: request.timeZone });
  const summary = createSummary({ timeZone: request.timeZone });
  return {
    observe(record) {
      if (record.kind === 'transaction') {
        normalizer.observe(record.data);
        summary.add(normalizer.canonical(record.data));
      } else {
        normalizer.observeChange(record.data);
      }
    },
    tables(snapshotFile) {
      const rowsOf = (kind: SnapshotRecord['kind'], toRows: (data: Record<string, unknown>) => Row[]) =>
        async function* rows(): AsyncGenerator<Row> {
          for await (const record of readSnapshotRecords(snapshotFile)) {
            if (record.kind === kind) yield* toRows(record.data);
          }
        };
      const tables: TableSource[] = [];
      if (request.reports.includes('transactions')) {
        tables.push({
          spec: normalizer.transactionsSpec(),
          rows: rowsOf('transaction', (data) => [normalizer.transactionRow(data)]),
        });
      }
      if (request.reports.includes('movements')) {
        tables.push({
          spec: normalizer.movementsSpec(),
          rows: rowsOf('transaction', (data) => normalizer.movementRows(data)),
        });
      }
      if (request.reports.includes('summary')) tables.push(...summary.tables());
      if (request.reports.includes('changes')) {
        tables.push({
          spec: normalizer.changesSpec(),
          rows: rowsOf('change', (data) => [normalizer.changeRow(data)]),
        });
      }
      return tables;
    },
    totals() {
      const totals: Record<string, string> = {};
      for (const [currency, total] of summary.totals()) {
        const suffix = currency === '' ? '' : ` (${currency})`;
        totals[`value${suffix}`] = total.value;
        totals[`fees${suffix}`] = total.fees;
      }
      return totals;
    },
  };
}

/** Builds the model of a snapshot file by reading it once (render without the service). */
export async function observeSnapshot(
  snapshotFile: string,
  header: SnapshotHeader,
  request: ExportRequest,
): Promise<ReportModel> {
  const model = createReportModel(header.fields, request);
  for await (const record of readSnapshotRecords(snapshotFile)) model.observe(record);
  return model;
}
