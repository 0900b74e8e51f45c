/**
 * The gains report family's pure tax engine: cost basis, realised gains, income and holdings
 * roll-forward from canonical transactions. No I/O. Conventions: README.md in this folder.
 */
import type { CanonicalTransaction } from '../domain/index.ts';
import { createGainsEngine } from './engine.ts';
import { type AdapterOptions, toEvents } from './events.ts';
import { eventOptions } from './options.ts';
import type { GainsCounts, GainsOptions, GainsResult, GainsState } from './types.ts';

export { type Coverage, type CoverageOptions, createCoverage, type TaxYearCoverage } from './coverage.ts';
export { createGainsEngine, type GainsEngine } from './engine.ts';
export { GainsOrderError } from './errors.ts';
export {
  type AdapterOptions,
  createEventStream,
  DEFAULT_FIAT_SYMBOLS,
  DEFAULT_TRANSFER_TOLERANCE,
  type EventStream,
  type ExchangeValue,
  NO_ACCOUNT,
  POSITION_MOVES,
  type ProtocolMoves,
  positionAccount,
  type TransferFee,
  type TransferInBasis,
  type TransferInCost,
  toEvents,
} from './events.ts';
export { createFiling, type Filing, type FilingOptions } from './filing.ts';
export { coverageOptions, eventOptions, resolveGainsOptions } from './options.ts';
export {
  COVERS_COLUMN,
  createGainsSummary,
  createIncomeSummary,
  createTaxSummary,
  DE_SERVICES_LIMIT,
  deSaleLimit,
  disposalRow,
  disposalsSpec,
  disposalsTable,
  type GainsReportsOptions,
  type GainsSummary,
  gainsReports,
  gainsSummarySpec,
  gainsSummaryTable,
  holdingsTable,
  type IncomeSummary,
  incomeSpec,
  incomeTable,
  POOL_HISTORY_SPEC,
  poolHistoryRow,
  poolHistoryTable,
  type TaxSummary,
  TOTAL,
  taxSummaryColumns,
  taxSummaryTable,
  warningRow,
  warningsSpec,
  warningsTable,
} from './reports.ts';
export { EXACT_MONEY, type GainsMoney, gainsMoney, roundDisposal, roundIncome } from './rounding.ts';
export {
  findLotMethod,
  findRuleSet,
  lotMethod,
  poolingRules,
  poolingRulesList,
  type RuleChoices,
  type RuleConflict,
  readingHorizon,
  registerTaxRuleSet,
  resolveChoices,
  ruleConflicts,
  ruleOptionProblem,
  ruleSet,
  TAX_RULES,
  type TaxRuleSet,
  takesOption,
  taxRuleIds,
} from './rules/index.ts';
export { heldAtPoolCost, type MatchedAhead } from './rules/uk/index.ts';
export { BROKER_REPORTING, type BrokerReporting, type BrokerReportingByAccount } from './rules/us/index.ts';
export { localDate, taxYearLabel, taxYearOf, termOf } from './tax-year.ts';
export type * from './types.ts';
export { LOT_METHODS, POOLINGS, WALLET_ALLOCATIONS } from './types.ts';

/** Options of {@link runGains}: the engine's, the adapter's, and a state to resume from. */
export interface RunGainsOptions extends GainsOptions, Omit<AdapterOptions, 'fiatScale' | 'exchangeValue'> {
  /** Open lots carried from an earlier run (same method and pooling). */
  state?: GainsState;
}

/** What {@link runGains} returns. */
export interface GainsRun {
  result: GainsResult;
  /** The open lots at the end, to resume a later run from. */
  state: GainsState;
  counts: GainsCounts & { transactions: number };
}

/**
 * Runs the whole history through the engine. `transactions` must hold every transaction from the
 * earliest (or from the date of `state`); only the output is limited to `period`.
 */
export function runGains(
  transactions: Iterable<CanonicalTransaction>,
  options: RunGainsOptions = {},
): GainsRun {
  const { state, ...rest } = options;
  let count = 0;
  const counted = (function* () {
    for (const tx of transactions) {
      count += 1;
      yield tx;
    }
  })();
  const engine = createGainsEngine(rest, state);
  const events = toEvents(counted, { ...rest, ...eventOptions(engine.options) });
  for (const event of events) engine.process(event);
  engine.finish();
  const result = engine.result();
  return { result, state: engine.carry(), counts: { ...result.counts, transactions: count } };
}
export { withCurrency } from './currency-column.ts';
