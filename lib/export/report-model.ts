import { getPath } from '../pbs/path.ts';
import type { TransactionFieldMap } from '../pbs/shape.ts';
import { transactionInstant } from './assemble.ts';
import { createGainsFeed } from './gains-feed.ts';
import { createNormalizer } from './normalize.ts';
import { periodRange } from './period.ts';
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
  /**
   * Counts learnt while observing, for the manifest. With gains: `transactions` in the period,
   * `historyTransactions` fed to the engine, and the engine's lots matched, disposals and warnings.
   */
  counts(): Record<string, number>;
}

/**
 * A model for `request` reading transactions laid out as `fields`. `spoolDir` (a scratch folder
 * the caller removes) lets the gains reports spool their lines instead of holding them in memory.
 */
export function createReportModel(
  fields: TransactionFieldMap,
  request: ExportRequest,
  options: { spoolDir?: string } = {},
): ReportModel {
  const normalizer = createNormalizer({ fields, timeZone: request.timeZone });
  const summary = createSummary({ timeZone: request.timeZone });
  const range = periodRange(request.period, request.timeZone);
  const period = { start: range.start.toJSDate(), end: range.end.toJSDate() };
  const gains = request.gains !== undefined ? createGainsFeed(request, period, options) : null;
  // With gains the snapshot starts at the portfolio's earliest date: the other reports keep to the period.
  const inPeriod = (data: Record<string, unknown>): boolean => {
    if (gains === null) return true;
    const at = transactionInstant(data, fields, String(getPath(data, fields.id)));
    return at >= period.start.getTime() && at < period.end.getTime();
  };
  let transactionsInPeriod = 0;
  return {
    observe(record) {
      if (record.kind === 'transaction') {
        const tx = normalizer.canonical(record.data);
        gains?.add(record.shard.split('~')[0] ?? record.shard, tx);
        if (!inPeriod(record.data)) return;
        transactionsInPeriod += 1;
        normalizer.observe(record.data);
        summary.add(tx);
      } else {
        normalizer.observeChange(record.data);
      }
    },
    counts: () => (gains === null ? {} : { transactions: transactionsInPeriod, ...gains.counts() }),
    tables(snapshotFile) {
      const rowsOf = (kind: SnapshotRecord['kind'], toRows: (data: Record<string, unknown>) => Row[]) =>
        async function* rows(): AsyncGenerator<Row> {
          for await (const record of readSnapshotRecords(snapshotFile)) {
            if (record.kind === kind && (kind === 'change' || inPeriod(record.data)))
              yield* toRows(record.data);
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
      if (gains !== null) tables.push(...gains.tables());
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
