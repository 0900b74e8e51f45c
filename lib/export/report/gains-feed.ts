import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadedAdjustments } from '../../adjustments/index.ts';
import { createSuggester, suggestionCell } from '../../adjustments/index.ts';
import type { Row, TableSource, TableSpec } from '../../domain/index.ts';
import { Big, type CanonicalTransaction, minorUnit } from '../../domain/index.ts';
import { ValidationError } from '../../errors.ts';
import type { RateTable } from '../../fx/index.ts';
import {
  createEventStream,
  createFiling,
  createGainsEngine,
  createGainsSummary,
  createIncomeSummary,
  type DisposalLine,
  disposalRow,
  disposalsSpec,
  EXACT_MONEY,
  eventOptions,
  type GainsEngine,
  type GainsEvent,
  type GainsMoney,
  type GainsOptions,
  type GainsResult,
  type GainsWarning,
  gainsMoney,
  gainsSummarySpec,
  holdingsTable,
  incomeSpec,
  lotMethod,
  poolHistoryTable,
  readingHorizon,
  roundDisposal,
  roundIncome,
  ruleSet,
  warningRow,
  warningsSpec,
  withCurrency,
} from '../../gains/index.ts';
import { type ExportRequest, parseGainsOptions } from '../plan/request.ts';
import { readNdjsonLines } from '../snapshot/snapshot.ts';
import { type AdjustmentsStep, createAdjustmentsStep } from './adjustments-step.ts';
import { createFxStep, type FxLine } from './fx-step.ts';
import { createJournalFeed, type JournalFeed } from './journal-feed.ts';
import { createPackedLines } from './packed-lines.ts';

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
  /**
   * The disposals whose 30 days (HMRC identification) are not over in the data yet, in words: an
   * acquisition still to come may match them and change their cost (the Read me lists them).
   */
  pendingMatches(): string[];
  /** The journal report's feed, when the request asks for it (tied out once the tables are asked for). */
  journal(): JournalFeed | null;
}

/** Options of {@link createGainsFeed}. */
export interface GainsFeedOptions {
  /**
   * A scratch folder (removed by the caller) where disposal and warning lines are spooled as they
   * are found, so memory stays flat however long the period. Without it they are kept in memory.
   */
  spoolDir?: string;
  /** The clock: with HMRC identification, the days after the period are used only up to now. */
  now?: () => Date;
  /** The rates of `gains.rates` (the files the trigger read), for values not in `gains.currency`. */
  rates?: RateTable;
  /**
   * The zone the disposals' and warnings' date columns are shown in (`render --time-zone`); the
   * request's by default. Tax years and holding periods stay in the run's zones whatever it is.
   */
  displayTimeZone?: string;
  /** The preparer's adjustments, applied before the engine (see adjustments-step.ts). */
  adjustments?: LoadedAdjustments;
}

/** Lines kept in a JSON-lines file or in memory, read back in the order they were added. */
interface LineStore<T> {
  add(lines: readonly T[]): void;
  read(): AsyncIterable<T>;
}

/**
 * Lines kept in memory as the file store writes them: their JSON texts, packed (a line's text
 * takes about half the memory of its object, and deflated a third of that or less; a busy period
 * has many lines).
 */
function memoryStore<T>(): LineStore<T> {
  const kept = createPackedLines();
  return {
    add: (lines) => kept.add(lines.map((line) => JSON.stringify(line))),
    async *read() {
      for (const text of kept.texts()) yield JSON.parse(text) as T;
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
      // One JSON text a line (JSON.stringify leaves no line break inside one); no empty line is yielded.
      for await (const line of readNdjsonLines(file)) yield JSON.parse(line) as T;
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

/**
 * The gains engine's options of a request (its `gains`, else the defaults) over `period`. With a
 * method that reads past the period (HMRC identification: the 30 days after its last day) the
 * history runs on (see `historyPeriod` in plan.ts), but not past `now`: the engine uses those days
 * only to match the period's disposals.
 */
export function gainsEngineOptions(
  request: ExportRequest,
  period: { start: Date; end: Date },
  now?: Date,
): GainsOptions {
  const gains = request.gains ?? parseGainsOptions({});
  const [month, day] = gains.taxYearStart.split('-').map(Number) as [number, number];
  const horizon = readingHorizon(gains.method, period.end, taxYearZone(request));
  const historyEnd =
    horizon === null
      ? null
      : Math.max(period.end.getTime(), Math.min(horizon.getTime(), (now ?? horizon).getTime()));
  return {
    ...(historyEnd === null ? {} : { historyEnd: new Date(historyEnd).toISOString() }),
    method: gains.method,
    pooling: gains.pooling,
    ...(gains.walletAllocation === undefined ? {} : { walletAllocation: gains.walletAllocation }),
    timeZone: request.timeZone,
    taxYearStart: { month, day },
    longTermYears: gains.longTermYears,
    taxRules: gains.taxRules,
    period: { start: period.start.toISOString(), end: period.end.toISOString() },
  };
}

/**
 * The zone the gains reports' tax years are in: the rule set's when it has one (uk:
 * Europe/London), else the request's (as the engine resolves it). The Read me and About sheet say it.
 */
export function taxYearZone(request: Pick<ExportRequest, 'gains' | 'timeZone'>): string {
  return (request.gains && ruleSet(request.gains.taxRules).timeZone) ?? request.timeZone;
}

/** A feed for a request that asks for the gains reports (`request.gains` set). */
export function createGainsFeed(
  request: ExportRequest,
  period: { start: Date; end: Date },
  options: GainsFeedOptions = {},
): GainsFeed {
  const gains = request.gains ?? parseGainsOptions({});
  const { spoolDir } = options;
  const journal =
    request.journal === undefined
      ? null
      : createJournalFeed(request, period, {
          ...(spoolDir === undefined ? {} : { spoolDir }),
          ...(options.rates === undefined ? {} : { rates: options.rates }),
          ...(options.now === undefined ? {} : { now: options.now }),
        });
  const engineOptions = gainsEngineOptions(request, period, options.now?.());
  const engine: GainsEngine = createGainsEngine(engineOptions, undefined, journal?.observer);
  const store = <T>(name: string): LineStore<T> =>
    spoolDir === undefined ? memoryStore() : fileStore(join(spoolDir, name));
  // Each line is rounded once, as it is drained; the exact lines are kept for the `_exact` files.
  const disposals = store<DisposalLine>('gains-disposals.jsonl');
  const exactDisposals = store<DisposalLine>('gains-disposals-exact.jsonl');
  const warnings = store<GainsWarning>('gains-warnings.jsonl');
  const summary = createGainsSummary(engine.options);
  const exactSummary = createGainsSummary(engine.options);
  const income = createIncomeSummary(engine.options);
  const exactIncome = createIncomeSummary(engine.options);
  // The rule set's tax summary and forms, filled with the rounded lines.
  const filing = createFiling(engine.options, { timeZone: request.timeZone, gains });
  const fx = createFxStep(request, taxYearZone(request), options.rates, store<FxLine>('gains-fx.jsonl'));
  const currencies = createCurrencies(gains.currency ?? null, gains.taxRules);
  journal?.attach(engine, () => currencies.money());
  // A method that reads past the period (the 30-day rule) can match a disposal with a later buy.
  const ahead =
    lotMethod(engine.options.method).readsPastPeriod > 0 ? matchedAheadAtEnd(period.end.getTime()) : null;
  let warningCount = 0;
  const pending: string[] = [];
  const streamOptions = {
    ...eventOptions(engine.options),
    transferTolerance: gains.transferToleranceHours * HOUR_MS,
    sameTimeOrder: gains.sameInstantOrder,
    protocolMoves: gains.protocolMoves,
    transferInBasis: gains.transferInBasis,
    transferFee: gains.transferFee,
  };
  const adjust =
    options.adjustments === undefined
      ? null
      : createAdjustmentsStep(options.adjustments, {
          engine: engineOptions,
          stream: streamOptions,
          currency: gains.currency ?? null,
          profile: request.profile,
          money: () => currencies.money(),
        });
  const stream = createEventStream({ ...streamOptions, ...adjust?.adapterOptions });
  // Each warning row says what the data points at (lib/adjustments/suggest.ts); nothing is applied.
  const suggester = createSuggester({
    transferTolerance: gains.transferToleranceHours * HOUR_MS,
    currency: () => currencies.money().currency ?? '',
  });
  let batchWindow: string | null = null;
  let latest = Number.NEGATIVE_INFINITY;
  let transactions = 0;

  const feedEvents = (events: readonly GainsEvent[]) => {
    for (const event of events) engine.process(event);
    const drained = engine.drain();
    const money = currencies.money();
    const rounded = drained.disposals.map((line) => roundDisposal(line, money));
    const roundedIncome = drained.income.map((line) => roundIncome(line, money));
    for (const line of rounded) summary.add(line);
    for (const line of drained.disposals) exactSummary.add(line);
    ahead?.add(drained.disposals);
    for (const line of roundedIncome) income.add(line);
    for (const line of drained.income) exactIncome.add(line);
    filing.add(rounded, roundedIncome);
    journal?.report(rounded, roundedIncome);
    adjust?.observe(drained);
    disposals.add(rounded);
    exactDisposals.add(drained.disposals);
    warnings.add(drained.warnings);
    for (const w of drained.warnings) {
      suggester.warn(w);
      if (w.kind === 'thirty-day-window')
        pending.push(
          `${w.quantity} ${w.token}, transaction ${w.txId} (${new Date(w.time).toISOString()}): ${w.message}`,
        );
    }
    warningCount += drained.warnings.length;
  };
  let finished: GainsResult | null = null;
  const result = () => {
    if (finished === null) {
      for (const tx of adjust?.finish() ?? []) {
        currencies.see(tx);
        journal?.see(tx);
        stream.add(tx);
      }
      feedEvents(stream.finish());
      engine.finish();
      feedEvents([]);
      journal?.finish();
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
    add(windowLabel, given) {
      const tx = fx.convert(given);
      currencies.see(tx);
      suggester.see(tx);
      if (windowLabel !== batchWindow) {
        // Every transaction of the earlier windows is in: everything before the latest of them is
        // complete. Not the latest instant itself: the snapshot is in date order across windows, but
        // a transaction another window's search returned (its record names that search) may share
        // the instant of the one before it.
        if (batchWindow !== null) {
          feedEvents(stream.advance(latest - 1));
          adjust?.advance(latest - 1);
          // The transactions turned into events have all their warnings: the suggester keeps only
          // the warned ones (a long history has many transfers, and few are ever warned of).
          suggester.settle(stream.pendingFrom);
        }
        batchWindow = windowLabel;
      }
      // The adjustments' step may drop the transaction or add synthetic lots before it.
      for (const one of adjust === null ? [tx] : adjust.add(tx)) {
        if (one !== tx) currencies.see(one);
        // After the adjustments: a spam token's movements are gone, so a token fee's leg moves.
        journal?.see(one);
        stream.add(one);
      }
      const at = Date.parse(tx.date);
      if (at > latest) latest = at;
      transactions += 1;
    },
    tables: () => {
      const finalResult = result();
      const method = lotMethod(engine.options.method);
      const money = currencies.money();
      const rounding = (exact?: string) => ({
        currency: money.currency,
        minorUnit: minorUnit(money.currency),
        ...(exact === undefined ? {} : { exact }),
      });
      const shownIn = options.displayTimeZone ?? request.timeZone;
      const disposalsShown = disposalsSpec(shownIn, method.namesRule, money);
      const summaryShown = gainsSummarySpec(money);
      const incomeShown = incomeSpec(money);
      return [
        spooledTable(
          { ...disposalsShown, rounding: rounding(`${disposalsShown.name}_exact`) },
          disposals,
          disposalRow,
        ),
        fixed({ ...summaryShown, rounding: rounding(`${summaryShown.name}_exact`) }, () =>
          summary.rows(money),
        ),
        fixed({ ...incomeShown, rounding: rounding(`${incomeShown.name}_exact`) }, () => income.rows(money)),
        shownWithExact(holdingsTable(finalResult, money, ahead?.byToken), rounding),
        adjustedWarnings(
          otherCurrencyWarnings(
            spooledTable(warningsSpec(shownIn), warnings, (w) =>
              warningRow(w, suggestionCell(suggester.forWarning(w))),
            ),
            currencies,
          ),
          adjust,
        ),
        ...(adjust === null ? [] : [adjust.table()]),
        ...(method.poolHistory
          ? [
              shownWithExact(poolHistoryTable(finalResult, money), rounding),
              asExact(poolHistoryTable(finalResult)),
            ]
          : []),
        ...filing
          .tables({ result: finalResult, money, disposals: () => disposals.read() })
          .map((table) => ({ ...table, spec: { ...table.spec, rounding: rounding() } })),
        spooledTable(exactSpec(disposalsSpec(shownIn, method.namesRule)), exactDisposals, disposalRow),
        fixed(exactSpec(gainsSummarySpec()), () => exactSummary.rows()),
        fixed(exactSpec(incomeSpec()), () => exactIncome.rows()),
        asExact(holdingsTable(finalResult, EXACT_MONEY, ahead?.byToken)),
      ]
        .map((table) => withCurrency(table, money.currency))
        .concat([fx.table()].filter((table) => table !== null))
        .concat(journal === null ? [] : [journal.table()]);
    },
    journal: () => {
      result();
      return journal;
    },
    pendingMatches: () => {
      result();
      return [...pending];
    },
    counts: () => {
      const { counts } = result();
      return {
        historyTransactions: transactions,
        gainsLotsMatched: counts.lotsMatched,
        gainsDisposals: counts.disposals,
        gainsWarnings: warningCount + currencies.warnings().length,
        ...(request.gains?.rates === undefined ? {} : { fxConverted: fx.converted() }),
      };
    },
  };
}

/**
 * HMRC identification: per token, the period's disposal lines the 30-day rule matched with an
 * acquisition at or after `end` (the section 104 pool still counts them; the wallets do not).
 */
function matchedAheadAtEnd(end: number) {
  const byToken = new Map<string, { quantity: Big; cost: Big }>();
  return {
    byToken,
    add(lines: readonly DisposalLine[]) {
      for (const line of lines) {
        if (line.rule !== 'thirty-day' || line.acquiredAt === null || line.acquiredAt < end) continue;
        const found = byToken.get(line.token) ?? { quantity: new Big(0), cost: new Big(0) };
        found.quantity = found.quantity.plus(line.quantity);
        found.cost = found.cost.plus(line.cost);
        byToken.set(line.token, found);
      }
    },
  };
}

/** The warnings table, with the adjustments' resolution column when there are adjustments. */
function adjustedWarnings(table: TableSource, adjust: AdjustmentsStep | null): TableSource {
  return adjust === null ? table : adjust.warnings(table);
}

/**
 * Refuses a transaction whose money is not in the currency of the gains figures: the engine does
 * not convert, and the service has no parameter for another currency (spec: none), so a uk run on
 * USD values would put dollars into the pounds of a Capital Gains summary (and a de run would test
 * dollars against the euro limits). The error names `gains.currency` and how to compute in the
 * data's currency anyway.
 */
export function checkGainsCurrency(tx: CanonicalTransaction, currency: string, taxRules: string): void {
  const valued = tx.valueAmount !== null || tx.movements.some((movement) => movement.value !== null);
  const found = [
    ...(valued ? [tx.valueCurrency] : []),
    ...(tx.feeAmount !== null ? [tx.feeCurrency] : []),
  ].find((code) => code !== currency);
  if (found === undefined) return;
  const data = found === null ? 'a currency the service did not name' : found;
  const theirs = found === null ? "the data's currency" : found;
  throw new ValidationError(
    'gains.currency',
    `${taxRules} figures are in ${currency}, but transaction ${tx.id} has values in ${data}; the service offers no other currency and the engine does not convert. Convert at published rates (gains.rates, CLI --rates FILE: HMRC's or the ECB's rate files), export data valued in ${currency}, or set gains.currency (CLI --gains-currency) to ${theirs} to compute in it anyway (the figures are then not ${currency} and must be converted before filing)`,
  );
}

/** `table` with its money at the minor unit, naming its `_exact` companion. */
function shownWithExact(
  table: TableSource,
  rounding: (exact?: string) => TableSpec['rounding'],
): TableSource {
  return { ...table, spec: { ...table.spec, rounding: rounding(`${table.spec.name}_exact`) } };
}

/** `table` (built without money rounding) as its CSV-only `_exact` companion. */
function asExact(table: TableSource): TableSource {
  return { ...table, spec: exactSpec(table.spec) };
}

/**
 * The `_exact` companion of a rounded table: the same columns and rows, every amount as the
 * engine computed it, for machines; written as CSV only.
 */
function exactSpec(spec: TableSpec): TableSpec {
  return {
    ...spec,
    name: `${spec.name}_exact`,
    title: `${spec.title} (exact)`,
    description: `the ${spec.title} report's rows in the same order, every amount exact (unrounded), for machines (CSV only)`,
    csvOnly: true,
  };
}

/**
 * The currency of the gains reports. With `gains.currency` set, every transaction is checked
 * against it ({@link checkGainsCurrency} throws), so no other currency can reach the engine and
 * there is nothing to warn about. Without it (`generic`), the first value currency of the history
 * is taken, and a transaction valued in another currency is used as it is (the engine does not
 * convert), with one `other-currency` warning per such currency.
 */
function createCurrencies(configured: string | null, taxRules: string) {
  let money: GainsMoney | null = configured === null ? null : gainsMoney(configured);
  const others: GainsWarning[] = [];
  const seen = new Set<string>();
  return {
    /** Checks (configured) or records (inferred) the currency of `tx`; called before it is used. */
    see(tx: CanonicalTransaction) {
      if (configured !== null) {
        checkGainsCurrency(tx, configured, taxRules);
        return;
      }
      const currency = tx.valueCurrency;
      if (currency === null || currency === '') return;
      if (money === null) {
        money = gainsMoney(currency);
        seen.add(currency);
        return;
      }
      if (seen.has(currency)) return;
      seen.add(currency);
      others.push({
        kind: 'other-currency',
        txId: tx.id,
        time: Date.parse(tx.date),
        token: currency,
        account: tx.accountId ?? '',
        quantity: '0',
        message: `valued in ${currency}, not in ${money.currency} (the currency of the gains reports): this and every later ${currency} amount is used as it is, not converted`,
      });
    },
    /** How the reports show money: rounded to the currency's minor unit once it is known. */
    money: (): GainsMoney => money ?? EXACT_MONEY,
    warnings: (): readonly GainsWarning[] => others,
  };
}

/** The warnings table followed by the `other-currency` warnings (told once the history is read). */
function otherCurrencyWarnings(
  table: TableSource,
  currencies: ReturnType<typeof createCurrencies>,
): TableSource {
  return {
    spec: table.spec,
    async *rows() {
      yield* table.rows();
      for (const warning of currencies.warnings()) yield warningRow(warning);
    },
  };
}
