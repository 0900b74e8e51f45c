import type { LoadedAdjustments } from '../../adjustments/index.ts';
import type { CanonicalTransaction, Row, TableSource, TableSpec } from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RateTable } from '../../fx/index.ts';
import type { TransactionFieldMap } from '../../pbs/index.ts';
import { getPath } from '../../pbs/index.ts';
import { periodRange } from '../plan/period.ts';
import type { ExportRequest } from '../plan/request.ts';
import { createBalanceTally, type TalliedBalances, wantsReconciliation } from '../reconcile/index.ts';
import { transactionInstant } from '../snapshot/part-line.ts';
import { readSnapshotRecords, type SnapshotHeader, type SnapshotRecord } from '../snapshot/snapshot.ts';
import { createGainsFeed } from './gains-feed.ts';
import type { JournalFeed } from './journal-feed.ts';
import { createNormalizer, type Normalizer } from './normalize.ts';
import { createRowChannel, type RowChannel } from './row-channel.ts';
import { type CurrencyTotal, createSummary } from './summary.ts';

/**
 * What the reports need to know before their first row is written: the extra columns (fields
 * the mapping does not know) and the summaries. It observes every snapshot record once, then
 * hands out the requested tables, each re-reading the snapshot when its rows are written.
 *
 * With `live`, the transactions and movements rows are also rendered while the records are
 * observed, so those tables need no second read of the snapshot: once `lookAhead` has seen the
 * first window with transactions, their columns are fixed and `live.open` gets one channel per
 * table; every later record pushes its rows. Should a later record bring a field never seen
 * before, the live rows no longer fit the final columns: the channels fail with
 * {@link LiveAbandonedError} and the tables are rendered from the snapshot as without `live`.
 */
export interface ReportModel {
  /**
   * Looks at one window's records before `observe` sees them. Until the live columns are fixed,
   * they are read to learn the columns; afterwards this does nothing.
   */
  lookAhead(records: Iterable<SnapshotRecord>): void;
  /** Observes one record; a promise means the live writers are behind: await it before the next. */
  observe(record: SnapshotRecord): Promise<void> | undefined;
  /** Tables of the requested reports, in report order, reading their rows from `snapshotFile`. */
  tables(snapshotFile: string): TableSource[];
  /** Value and fee totals per currency, as exact decimal strings, e.g. `value (USD)`. */
  totals(): Record<string, string>;
  /** The totals per currency as the summary has them (`totals` names them), for a merge. */
  currencyTotals(): Map<string, CurrencyTotal>;
  /**
   * Counts learnt while observing, for the manifest. With gains: `transactions` in the period,
   * `historyTransactions` fed to the engine, and the engine's lots matched, disposals and warnings.
   */
  counts(): Record<string, number>;
  /** With gains: the disposals whose 30 days are not over in the data yet (HMRC identification), in words. */
  pendingMatches(): string[];
  /** The journal report's feed, when asked for (tied out: throws when it does not tie out). */
  journal(): JournalFeed | null;
  /** Ends the live channels (every record observed) and tells whether their rows are the final ones. */
  endLive(): boolean;
  /**
   * For a request that is reconciled: each ledger's balances at the period end (or at `now`, a
   * period not over yet) from the transactions observed, so the reconciliation need not read the
   * snapshot again; `null` otherwise.
   */
  reconciliationBalances?(): TalliedBalances | null;
}

/** The live tables of a model, given to {@link LiveListener.open} once their columns are fixed. */
export interface LiveTables {
  /** Report name (`transactions`, `movements`) to its spec, in report order. */
  specs: TableSpec[];
  /** A new channel of a table's rows: every row pushed from now on reaches each channel. */
  channel(name: string): RowChannel;
}

/** Who renders live rows: told once, when the columns are fixed. */
export interface LiveListener {
  open(tables: LiveTables): void;
}

/** The live rows stopped fitting the columns (or the run failed): the tables are rendered again. */
export class LiveAbandonedError extends PbsExportError {
  constructor(reason: string) {
    super('live_abandoned', `live rendering given up: ${reason}`);
  }
}

/** Rows a live channel may hold before the producer waits for its writer. */
const LIVE_HIGH_WATER = 2048;

/**
 * A model for `request` reading transactions laid out as `fields`. `spoolDir` (a scratch folder
 * the caller removes) lets the gains reports spool their lines instead of holding them in memory.
 */
export function createReportModel(
  fields: TransactionFieldMap,
  request: ExportRequest,
  options: {
    spoolDir?: string;
    /** The clock: with HMRC identification the days after the period are used up to now. */
    now?: () => Date;
    live?: LiveListener;
    /** Told when the live rows are given up and the tables will be rendered from the snapshot. */
    warn?: (message: string) => void;
    /** The rates of `gains.rates` (see `createGainsFeed`). */
    rates?: RateTable;
    /** The preparer's adjustments, applied before the gains engine (see `createGainsFeed`). */
    adjustments?: LoadedAdjustments;
    /**
     * The zone the report tables' dates are shown in (`render --time-zone`); the request's by
     * default. The period, the summary's months and the gains computation keep the request's.
     */
    displayTimeZone?: string;
  } = {},
): ReportModel {
  const normalizer = createNormalizer({ fields, timeZone: options.displayTimeZone ?? request.timeZone });
  const summary = createSummary({
    timeZone: request.timeZone,
    tables: request.reports.includes('summary'),
  });
  const range = periodRange(request.period, request.timeZone);
  const period = { start: range.start.toJSDate(), end: range.end.toJSDate() };
  const gains = request.gains !== undefined ? createGainsFeed(request, period, options) : null;
  // With gains the snapshot starts at the portfolio's earliest date: the other reports keep to the period.
  const inPeriod = (data: Record<string, unknown>): boolean => {
    if (gains === null) return true;
    const at = transactionInstant(data, fields, String(getPath(data, fields.id)));
    return at >= period.start.getTime() && at < period.end.getTime();
  };
  const live = createLive(fields, request, options.live, options.warn);
  // The reconciliation's balances at the period's start and the instant it reconciles at
  // (lib/export/reconcile/step.ts): the opening and the closing, as the records go by.
  const tallyEndMs = Math.min(range.end.toMillis(), (options.now?.() ?? new Date()).getTime());
  const tally = wantsReconciliation(request.reports)
    ? createBalanceTally(fields, [Math.min(range.start.toMillis(), tallyEndMs), tallyEndMs])
    : null;
  let transactionsInPeriod = 0;
  return {
    lookAhead(records) {
      if (live === null || live.state !== 'learning') return;
      for (const record of records) {
        if (record.kind === 'transaction' && inPeriod(record.data)) {
          live.learn(normalizer.canonical(record.data));
        }
      }
      live.fixColumnsIfLearnt();
    },
    observe(record) {
      if (record.kind === 'transaction') {
        tally?.add(record.data);
        const tx = normalizer.canonical(record.data);
        gains?.add(record.shard.split('~')[0] ?? record.shard, tx);
        if (!inPeriod(record.data)) return undefined;
        transactionsInPeriod += 1;
        normalizer.observeCanonical(tx);
        summary.add(tx);
        return live?.push(tx, normalizer.extraCounts());
      }
      normalizer.observeChange(record.data);
      return undefined;
    },
    counts: () => (gains === null ? {} : { transactions: transactionsInPeriod, ...gains.counts() }),
    pendingMatches: () => gains?.pendingMatches() ?? [],
    journal: () => gains?.journal() ?? null,
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
    totals: () => namedTotals(summary.totals()),
    currencyTotals: () => summary.totals(),
    endLive: () => live?.end(normalizer.extraCounts()) ?? false,
    reconciliationBalances: () => tally?.result() ?? null,
  };
}

/** Totals per currency by name, as a model's `totals` gives them: `value (USD)`, `fees (USD)`. */
export function namedTotals(byCurrency: ReadonlyMap<string, CurrencyTotal>): Record<string, string> {
  const totals: Record<string, string> = {};
  for (const [currency, total] of byCurrency) {
    const suffix = currency === '' ? '' : ` (${currency})`;
    totals[`value${suffix}`] = total.value;
    totals[`fees${suffix}`] = total.fees;
  }
  return totals;
}

/** The reports rendered live: the transactions and movements tables, when requested. */
const LIVE_REPORTS = ['transactions', 'movements'] as const;

type ExtraCounts = ReturnType<Normalizer['extraCounts']>;

/**
 * The live half of a model. Its own normalizer learns the columns from the first window with
 * transactions, then renders every row with them; the model's normalizer keeps observing, and
 * the moment it knows more columns than were fixed, the live rows are given up.
 */
function createLive(
  fields: TransactionFieldMap,
  request: ExportRequest,
  listener: LiveListener | undefined,
  warn: ((message: string) => void) | undefined,
) {
  const reports = LIVE_REPORTS.filter((name) => request.reports.includes(name));
  if (listener === undefined || reports.length === 0) return null;
  const columns = createNormalizer({ fields, timeZone: request.timeZone });
  const channels = new Map<string, RowChannel[]>(reports.map((name) => [name, []]));
  let learnt = 0;
  let fixed: ExtraCounts | null = null;
  const live = {
    state: 'learning' as 'learning' | 'open' | 'abandoned' | 'ended',
    learn(tx: CanonicalTransaction) {
      columns.observeCanonical(tx);
      learnt += 1;
    },
    fixColumnsIfLearnt() {
      if (learnt === 0) return;
      fixed = columns.extraCounts();
      const specs = reports.map((name) =>
        name === 'transactions' ? columns.transactionsSpec() : columns.movementsSpec(),
      );
      live.state = 'open';
      listener.open({
        specs,
        channel(name) {
          const spec = specs.find((candidate) => candidate.name === name);
          const list = channels.get(name);
          if (spec === undefined || list === undefined) throw new Error(`no live table ${name}`);
          const channel = createRowChannel(spec, LIVE_HIGH_WATER);
          list.push(channel);
          return channel;
        },
      });
    },
    push(tx: CanonicalTransaction, seen: ExtraCounts): Promise<void> | undefined {
      if (live.state !== 'open' || fixed === null) return undefined;
      if (seen.transactions > fixed.transactions || seen.movements > fixed.movements) {
        live.abandon(`transaction ${tx.id} has a field the first window's transactions did not have`);
        return undefined;
      }
      if (seen.currencies > fixed.currencies) {
        live.abandon(`transaction ${tx.id} has a currency the first window's transactions did not have`);
        return undefined;
      }
      let wait: Promise<void> | undefined;
      for (const [name, list] of channels) {
        if (list.length === 0) continue;
        const rows = name === 'transactions' ? [columns.toTransactionRow(tx)] : columns.toMovementRows(tx);
        for (const channel of list) {
          for (const row of rows) wait = channel.push(row) ?? wait;
        }
      }
      return wait;
    },
    abandon(reason: string) {
      live.state = 'abandoned';
      warn?.(`${reason}: the ${reports.join(' and ')} reports will be rendered again from the snapshot`);
      const error = new LiveAbandonedError(reason);
      for (const list of channels.values()) for (const channel of list) channel.fail(error);
    },
    end(seen: ExtraCounts): boolean {
      if (live.state === 'learning') {
        // Nothing in the period: the tables are empty, and rendering them costs nothing.
        live.state = 'ended';
        return false;
      }
      if (live.state !== 'open' || fixed === null) return false;
      if (
        seen.transactions !== fixed.transactions ||
        seen.movements !== fixed.movements ||
        seen.currencies !== fixed.currencies
      ) {
        live.abandon('the columns changed');
        return false;
      }
      live.state = 'ended';
      for (const list of channels.values()) for (const channel of list) channel.end();
      return true;
    },
  };
  return live;
}

/** Builds the model of a snapshot file by reading it once (render without the service). */
export async function observeSnapshot(
  snapshotFile: string,
  header: SnapshotHeader,
  request: ExportRequest,
  rates?: RateTable,
  displayTimeZone?: string,
  adjustments?: LoadedAdjustments,
): Promise<ReportModel> {
  // The data is as it was when the snapshot was made: days after that were not over.
  const model = createReportModel(header.fields, request, {
    now: () => new Date(header.createdAt),
    ...(adjustments === undefined ? {} : { adjustments }),
    ...(rates === undefined ? {} : { rates }),
    ...(displayTimeZone === undefined ? {} : { displayTimeZone }),
  });
  for await (const record of readSnapshotRecords(snapshotFile)) model.observe(record);
  return model;
}
