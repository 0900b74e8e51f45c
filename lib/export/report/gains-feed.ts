import { appendFileSync, createReadStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CanonicalTransaction } from '../../domain/index.ts';
import type { Row, TableSource, TableSpec } from '../../domain/table.ts';
import {
  createEventStream,
  createGainsEngine,
  createGainsSummary,
  createIncomeSummary,
  createTaxSummary,
  type DisposalLine,
  disposalRow,
  disposalsSpec,
  GAINS_SUMMARY_SPEC,
  type GainsEngine,
  type GainsEvent,
  type GainsResult,
  type GainsWarning,
  holdingsTable,
  INCOME_SPEC,
  poolHistoryTable,
  warningRow,
  warningsSpec,
} from '../../gains/index.ts';
import { type ExportRequest, parseGainsOptions } from '../plan/request.ts';

const HOUR_MS = 3_600_000;

/** How fees are treated, as the manifest and the About sheet state it. */
export const FEE_TREATMENT =
  'added to the cost basis of an acquisition; deducted from the proceeds of a disposal';

/**
 * Feeds the gains engine while the snapshot is written, one fetch window at a time: the engine
 * needs the whole history in date order, but only the current window (and the transactions of the
 * transfer tolerance before it) is held in memory. Transfers between the portfolio's own accounts
 * are paired across windows: a side waits up to the tolerance for its counterpart, so the results
 * do not depend on the window size or the time zone the history was fetched in. Windows must come
 * in time order; a transaction at or before the end of an earlier window is refused.
 */
export interface GainsFeed {
  add(windowLabel: string, tx: CanonicalTransaction): void;
  tables(): TableSource[];
  counts(): Record<string, number>;
}

/** Options of {@link createGainsFeed}. */
export interface GainsFeedOptions {
  /**
   * A scratch folder (removed by the caller) where disposal and warning lines are spooled as they
   * are found, so memory stays flat however long the period. Without it they are kept in memory.
   */
  spoolDir?: string;
}

/** Lines kept in a JSON-lines file or in memory, read back in the order they were added. */
interface LineStore<T> {
  add(lines: readonly T[]): void;
  read(): AsyncIterable<T>;
}

function memoryStore<T>(): LineStore<T> {
  const kept: T[] = [];
  return {
    add: (lines) => {
      kept.push(...lines);
    },
    async *read() {
      yield* kept;
    },
  };
}

function fileStore<T>(file: string): LineStore<T> {
  appendFileSync(file, '');
  return {
    add(lines) {
      if (lines.length > 0) appendFileSync(file, `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    },
    async *read() {
      for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
        if (line !== '') yield JSON.parse(line) as T;
      }
    },
  };
}

function spooledTable<T>(spec: TableSpec, store: LineStore<T>, toRow: (line: T) => Row): TableSource {
  return {
    spec,
    async *rows() {
      for await (const line of store.read()) yield toRow(line);
    },
  };
}

/** A feed for a request that asks for the gains reports (`request.gains` set). */
export function createGainsFeed(
  request: ExportRequest,
  period: { start: Date; end: Date },
  options: GainsFeedOptions = {},
): GainsFeed {
  const gains = request.gains ?? parseGainsOptions({});
  const [month, day] = gains.taxYearStart.split('-').map(Number) as [number, number];
  const engine: GainsEngine = createGainsEngine({
    method: gains.method,
    pooling: gains.pooling,
    timeZone: request.timeZone,
    taxYearStart: { month, day },
    longTermYears: gains.longTermYears,
    taxRules: gains.taxRules,
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
  });
  const { spoolDir } = options;
  const disposals: LineStore<DisposalLine> =
    spoolDir === undefined ? memoryStore() : fileStore(join(spoolDir, 'gains-disposals.jsonl'));
  const warnings: LineStore<GainsWarning> =
    spoolDir === undefined ? memoryStore() : fileStore(join(spoolDir, 'gains-warnings.jsonl'));
  const summary = createGainsSummary(engine.options.taxYearStart);
  const income = createIncomeSummary();
  const tax = createTaxSummary(engine.options);
  let warningCount = 0;
  const stream = createEventStream({
    fiatScale: Math.max(engine.options.fiatScale, 2),
    transferTolerance: gains.transferToleranceHours * HOUR_MS,
    sameTimeOrder: gains.sameInstantOrder,
    protocolMoves: gains.protocolMoves,
    transferInBasis: gains.transferInBasis,
    transferFee: gains.transferFee,
  });
  let batchWindow: string | null = null;
  let latest = Number.NEGATIVE_INFINITY;
  let transactions = 0;

  const feedEvents = (events: readonly GainsEvent[]) => {
    for (const event of events) engine.process(event);
    const drained = engine.drain();
    for (const line of drained.disposals) summary.add(line);
    for (const line of drained.income) income.add(line);
    for (const line of drained.disposals) tax?.add(line);
    for (const line of drained.income) tax?.addIncome(line);
    disposals.add(drained.disposals);
    warnings.add(drained.warnings);
    warningCount += drained.warnings.length;
  };
  let finished: GainsResult | null = null;
  const result = () => {
    if (finished === null) {
      feedEvents(stream.finish());
      engine.finish();
      feedEvents([]);
      finished = engine.result();
    }
    return finished;
  };
  const fixed = (spec: TableSpec, rows: () => Row[]): TableSource => ({
    spec,
    async *rows() {
      yield* rows();
    },
  });
  return {
    add(windowLabel, tx) {
      if (windowLabel !== batchWindow) {
        // Every transaction of the earlier windows is in: everything up to the latest of them is complete.
        if (batchWindow !== null) feedEvents(stream.advance(latest));
        batchWindow = windowLabel;
      }
      stream.add(tx);
      const at = Date.parse(tx.date);
      if (at > latest) latest = at;
      transactions += 1;
    },
    tables: () => {
      const finalResult = result();
      const hmrc = engine.options.method === 'hmrc';
      return [
        spooledTable(disposalsSpec(request.timeZone, hmrc), disposals, disposalRow),
        fixed(GAINS_SUMMARY_SPEC, () => summary.rows()),
        fixed(INCOME_SPEC, () => income.rows()),
        holdingsTable(finalResult),
        spooledTable(warningsSpec(request.timeZone), warnings, warningRow),
        ...(hmrc ? [poolHistoryTable(finalResult)] : []),
        ...(tax === null ? [] : [fixed(tax.spec, () => tax.rows())]),
      ];
    },
    counts: () => {
      const { counts } = result();
      return {
        historyTransactions: transactions,
        gainsLotsMatched: counts.lotsMatched,
        gainsDisposals: counts.disposals,
        gainsWarnings: warningCount,
      };
    },
  };
}
