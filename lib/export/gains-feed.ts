import { createGainsEngine, type GainsEngine, gainsReports, toEvents } from '../gains/index.ts';
import type { CanonicalTransaction } from './normalize.ts';
import type { ExportRequest } from './request.ts';
import type { TableSource } from './table.ts';

/** How fees are treated, as the manifest and the About sheet state it. */
export const FEE_TREATMENT =
  'added to the cost basis of an acquisition; deducted from the proceeds of a disposal';

/**
 * Feeds the gains engine while the snapshot is written, one fetch window at a time: the engine
 * needs the whole history in date order, but only one window of it is held in memory. Transfers
 * between the portfolio's own accounts are paired within a window.
 */
export interface GainsFeed {
  add(windowLabel: string, tx: CanonicalTransaction): void;
  tables(): TableSource[];
  counts(): Record<string, number>;
}

/** A feed for a request that asks for the gains reports (`request.gains` set). */
export function createGainsFeed(request: ExportRequest, period: { start: Date; end: Date }): GainsFeed {
  const options = request.gains ?? {
    method: 'fifo',
    pooling: 'universal',
    taxYearStart: '01-01',
    longTermYears: 1,
  };
  const [month, day] = options.taxYearStart.split('-').map(Number) as [number, number];
  const engine: GainsEngine = createGainsEngine({
    method: options.method,
    pooling: options.pooling,
    timeZone: request.timeZone,
    taxYearStart: { month, day },
    longTermYears: options.longTermYears,
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
  });
  let batch: CanonicalTransaction[] = [];
  let batchWindow: string | null = null;
  let transactions = 0;
  const flush = () => {
    for (const event of toEvents(batch, { fiatScale: engine.options.fiatScale })) engine.process(event);
    batch = [];
  };
  let finished: ReturnType<GainsEngine['result']> | null = null;
  const result = () => {
    if (finished === null) {
      flush();
      finished = engine.result();
    }
    return finished;
  };
  return {
    add(windowLabel, tx) {
      if (windowLabel !== batchWindow) {
        flush();
        batchWindow = windowLabel;
      }
      batch.push(tx);
      transactions += 1;
    },
    tables: () => gainsReports(result()),
    counts: () => {
      const { counts } = result();
      return {
        historyTransactions: transactions,
        gainsLotsMatched: counts.lotsMatched,
        gainsDisposals: counts.disposals,
        gainsWarnings: result().warnings.length,
      };
    },
  };
}
