/**
 * The gains reports as tables for the CSV/XLSX writers: disposals (Form 8949 style), gains
 * summary, income, holdings roll-forward and warnings. Every sum is exact.
 */

import {
  Big,
  type Column,
  compareText,
  type Row,
  type TableSource,
  type TableSpec,
  text,
  ZERO,
} from '../domain/index.ts';
import { COVERS_COLUMN, createCoverage, type TaxYearCoverage } from './coverage.ts';
import { withCurrency } from './currency-column.ts';
import { coverageOptions } from './options.ts';
import { EXACT_MONEY, type GainsMoney, gainsMoney, roundDisposal, roundIncome } from './rounding.ts';
import { lotMethod, ruleSet } from './rules/index.ts';
import { type TaxSummary, TOTAL } from './tax-summary.ts';

export { DE_SERVICES_LIMIT, deSaleLimit } from './rules/de/index.ts';
export { type TaxSummary, TOTAL, taxSummaryColumns } from './tax-summary.ts';
export { COVERS_COLUMN };

import type {
  DisposalLine,
  GainsResult,
  GainsWarning,
  IncomeLine,
  PoolHistoryLine,
  ResolvedGainsOptions,
  Term,
} from './types.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function source(spec: TableSpec, build: () => Row[]): TableSource {
  return {
    spec,
    async *rows() {
      yield* build();
    },
  };
}

const decimal = (key: string, header: string, exact = false): Column =>
  exact ? { key, header, kind: 'decimal', exact: true } : { key, header, kind: 'decimal' };
const textColumn = (key: string, header: string): Column => ({ key, header, kind: 'text' });

/**
 * Columns of the disposals report; with `withRule`, the HMRC matching rule of each part last.
 * Money headers name `money`'s currency (`Proceeds (USD)`).
 */
export function disposalColumns(timeZone: string, withRule = false, money = EXACT_MONEY): Column[] {
  const columns: Column[] = [
    textColumn('token', 'Token'),
    decimal('quantity', 'Quantity', true),
    { key: 'date_acquired', header: `Date acquired (${timeZone})`, kind: 'datetime', timeZone },
    { key: 'date_disposed', header: `Date disposed (${timeZone})`, kind: 'datetime', timeZone },
    decimal('proceeds', money.header('Proceeds')),
    decimal('cost_basis', money.header('Cost basis')),
    decimal('gain_loss', money.header('Gain or loss')),
    textColumn('term', 'Term'),
    textColumn('tax_year', 'Tax year'),
    textColumn('account', 'Account'),
    textColumn('acquired_tx_id', 'Acquiring transaction'),
    textColumn('disposed_tx_id', 'Disposing transaction'),
  ];
  if (withRule) columns.push(textColumn('rule', 'Matching rule'));
  return columns;
}

/** Spec of the disposals report (`withRule`: HMRC identification, see {@link disposalColumns}). */
export function disposalsSpec(timeZone: string, withRule = false, money = EXACT_MONEY): TableSpec {
  return {
    name: 'disposals',
    title: 'Disposals',
    description:
      'one row per lot matched to a disposal: token, quantity, acquired, disposed, proceeds, cost, gain or loss, term, tax year and the transactions',
    columns: disposalColumns(timeZone, withRule, money),
  };
}

/** The disposals report's row of one line (with its matching rule when the line has one). */
export function disposalRow(line: DisposalLine): Row {
  const row = [
    line.token,
    line.quantity,
    iso(line.acquiredAt),
    iso(line.disposedAt),
    line.proceeds,
    line.cost,
    line.gain,
    line.term,
    line.taxYear,
    line.account,
    line.acquiredTxId,
    line.disposedTxId,
  ];
  return line.rule === undefined ? row : [...row, line.rule];
}

/** One row per lot matched (and per zero-basis rest), in processing order, its money as `money` shows it. */
export function disposalsTable(result: GainsResult, money = EXACT_MONEY): TableSource {
  const spec = disposalsSpec(result.options.timeZone, lotMethod(result.options.method).namesRule, money);
  return source(spec, () => result.disposals.map((line) => disposalRow(roundDisposal(line, money))));
}

/** Columns of the gains summary, money headers in `money`'s currency. */
function summaryColumns(money = EXACT_MONEY): Column[] {
  return [
    textColumn('tax_year', 'Tax year'),
    textColumn('first_day', 'First day'),
    textColumn('last_day', 'Last day'),
    COVERS_COLUMN,
    textColumn('token', 'Token'),
    textColumn('term', 'Term'),
    { key: 'lines', header: 'Lots matched', kind: 'integer' },
    decimal('quantity', 'Quantity', true),
    decimal('proceeds', money.header('Proceeds')),
    decimal('cost', money.header('Cost basis')),
    decimal('gains', money.header('Gains')),
    decimal('losses', money.header('Losses')),
    decimal('net', money.header('Net gain or loss')),
  ];
}

/** Spec of the gains summary, money headers in `money`'s currency. */
export function gainsSummarySpec(money = EXACT_MONEY): TableSpec {
  return {
    name: 'gains_summary',
    title: 'Gains summary',
    description: 'gains and losses per tax year, token and term, then a TOTAL row per tax year and term',
    columns: summaryColumns(money),
  };
}

interface Totals {
  lines: number;
  quantity: Big;
  proceeds: Big;
  cost: Big;
  gains: Big;
  losses: Big;
}

const totals = (): Totals => ({
  lines: 0,
  quantity: ZERO,
  proceeds: ZERO,
  cost: ZERO,
  gains: ZERO,
  losses: ZERO,
});

function addLine(target: Totals, line: DisposalLine, withQuantity: boolean): void {
  const gain = new Big(line.gain);
  target.lines += 1;
  if (withQuantity) target.quantity = target.quantity.plus(line.quantity);
  target.proceeds = target.proceeds.plus(line.proceeds);
  target.cost = target.cost.plus(line.cost);
  if (gain.gt(0)) target.gains = target.gains.plus(gain);
  else target.losses = target.losses.plus(gain);
}

const TERMS: readonly Term[] = ['short', 'long', 'none'];

/**
 * A summary report built line by line: its sums are of the lines added, so lines rounded before
 * `add` give totals that are the sums of the rounded lines.
 */
export interface LineSummary<Line> {
  add(line: Line): void;
  /** The rows, amounts as `money` shows them (sums of amounts at the minor unit are only padded). */
  rows(money?: GainsMoney): Row[];
}

/** The gains summary, built line by line (see {@link gainsSummaryTable}). */
export type GainsSummary = LineSummary<DisposalLine>;

/**
 * A summary report as a table: a fresh summary each time the table is read, every line rounded
 * by `round` as `money` shows it before it is added.
 */
function summaryTable<Line>(
  spec: TableSpec,
  create: () => LineSummary<Line>,
  lines: readonly Line[],
  round: (line: Line, money: GainsMoney) => Line,
  money: GainsMoney,
): TableSource {
  return source(spec, () => {
    const summary = create();
    for (const line of lines) summary.add(round(line, money));
    return summary.rows(money);
  });
}

/**
 * An empty gains summary for the tax years of `options`, each row saying which part of its tax
 * year the period of `options` covers.
 */
export function createGainsSummary(options: ResolvedGainsOptions): GainsSummary {
  const coverage = createCoverage(coverageOptions(options));
  const years = new Map<string, { tokens: Map<string, Map<Term, Totals>>; total: Map<Term, Totals> }>();
  return {
    add(line) {
      let year = years.get(line.taxYear);
      if (year === undefined) {
        year = { tokens: new Map(), total: new Map() };
        years.set(line.taxYear, year);
      }
      let byTerm = year.tokens.get(line.token);
      if (byTerm === undefined) {
        byTerm = new Map();
        year.tokens.set(line.token, byTerm);
      }
      const cell = byTerm.get(line.term) ?? totals();
      byTerm.set(line.term, cell);
      addLine(cell, line, true);
      const total = year.total.get(line.term) ?? totals();
      year.total.set(line.term, total);
      addLine(total, line, false);
    },
    rows(money = EXACT_MONEY) {
      const rows: Row[] = [];
      const show = money.showBig;
      const row = (
        label: string,
        year: TaxYearCoverage,
        token: string,
        term: Term,
        t: Totals,
        withQuantity: boolean,
      ): Row => [
        label,
        year.first,
        year.last,
        year.text,
        token,
        term,
        String(t.lines),
        withQuantity ? text(t.quantity) : null,
        show(t.proceeds),
        show(t.cost),
        show(t.gains),
        show(t.losses),
        show(t.gains.plus(t.losses)),
      ];
      for (const label of [...years.keys()].sort(compareText)) {
        const year = years.get(label);
        if (year === undefined) continue;
        const covered = coverage.of(label);
        for (const token of [...year.tokens.keys()].sort(compareText)) {
          for (const term of TERMS) {
            const t = year.tokens.get(token)?.get(term);
            if (t !== undefined) rows.push(row(label, covered, token, term, t, true));
          }
        }
        for (const term of TERMS) {
          const t = year.total.get(term);
          if (t !== undefined) rows.push(row(label, covered, TOTAL, term, t, false));
        }
      }
      return rows;
    },
  };
}

/**
 * Per tax year, token and term: proceeds, cost, gains (sum of positive lines), losses (sum of
 * negative lines, negative) and net (= gains + losses = proceeds − cost). After each tax year, a
 * TOTAL row per term (its quantity is empty: tokens do not add up).
 */
export function gainsSummaryTable(result: GainsResult, money = EXACT_MONEY): TableSource {
  const create = () => createGainsSummary(result.options);
  return summaryTable(gainsSummarySpec(money), create, result.disposals, roundDisposal, money);
}

/** Columns of the income report, money headers in `money`'s currency. */
function incomeColumns(money = EXACT_MONEY): Column[] {
  return [
    textColumn('tax_year', 'Tax year'),
    COVERS_COLUMN,
    textColumn('category', 'Category'),
    textColumn('token', 'Token'),
    { key: 'receipts', header: 'Receipts', kind: 'integer' },
    decimal('quantity', 'Quantity', true),
    decimal('value', money.header('Value at receipt')),
  ];
}

/** Spec of the income report, money headers in `money`'s currency. */
export function incomeSpec(money = EXACT_MONEY): TableSpec {
  return {
    name: 'income',
    title: 'Income',
    description:
      'income (staking, interest and other rewards) per tax year, category and token, at its value',
    columns: incomeColumns(money),
  };
}

/** The income report, built line by line (see {@link incomeTable}). */
export type IncomeSummary = LineSummary<IncomeLine>;

interface IncomeGroup {
  key: [string, string, string];
  count: number;
  quantity: Big;
  value: Big;
}

/** An empty income summary, each row saying which part of its tax year the period of `options` covers. */
export function createIncomeSummary(options: ResolvedGainsOptions): IncomeSummary {
  const coverage = createCoverage(coverageOptions(options));
  const groups = new Map<string, IncomeGroup>();
  return {
    add(line) {
      const id = [line.taxYear, line.category, line.token].join('\u0000');
      let group = groups.get(id);
      if (group === undefined) {
        group = { key: [line.taxYear, line.category, line.token], count: 0, quantity: ZERO, value: ZERO };
        groups.set(id, group);
      }
      group.count += 1;
      group.quantity = group.quantity.plus(line.quantity);
      group.value = group.value.plus(line.value);
    },
    rows(money = EXACT_MONEY) {
      const rows: Row[] = [];
      // Sorted by their ids, which start with the tax year: a year's groups are consecutive.
      const sorted = [...groups.entries()].sort(([a], [b]) => compareText(a, b));
      let yearCount = 0;
      let yearValue = ZERO;
      sorted.forEach(([, g], i) => {
        const label = g.key[0];
        const covers = coverage.of(label).text;
        rows.push([
          label,
          covers,
          g.key[1],
          g.key[2],
          String(g.count),
          text(g.quantity),
          money.showBig(g.value),
        ]);
        yearCount += g.count;
        yearValue = yearValue.plus(g.value);
        if (sorted[i + 1]?.[1].key[0] !== label) {
          rows.push([label, covers, null, TOTAL, String(yearCount), null, money.showBig(yearValue)]);
          yearCount = 0;
          yearValue = ZERO;
        }
      });
      return rows;
    },
  };
}

/**
 * Per tax year, category and token: receipts, quantity and fiat value at receipt (each receipt
 * rounded once as `money` shows it); after each tax year a TOTAL row (token cell `TOTAL`) with
 * its receipts and value.
 */
export function incomeTable(result: GainsResult, money = EXACT_MONEY): TableSource {
  const create = () => createIncomeSummary(result.options);
  return summaryTable(incomeSpec(money), create, result.income, roundIncome, money);
}

/** Columns of the holdings roll-forward. */
export const HOLDINGS_COLUMNS: readonly Column[] = [
  textColumn('token', 'Token'),
  textColumn('account', 'Account'),
  decimal('opening_quantity', 'Opening quantity', true),
  decimal('opening_cost', 'Opening cost'),
  decimal('acquired_quantity', 'Acquired quantity', true),
  decimal('acquired_cost', 'Acquired cost'),
  decimal('transferred_in_quantity', 'Transferred in quantity', true),
  decimal('transferred_in_cost', 'Transferred in cost'),
  decimal('disposed_quantity', 'Disposed quantity', true),
  decimal('disposed_cost', 'Disposed cost'),
  decimal('transferred_out_quantity', 'Transferred out quantity', true),
  decimal('transferred_out_cost', 'Transferred out cost'),
  decimal('unmatched_disposed_quantity', 'Disposed without lots (zero basis)', true),
  decimal('closing_quantity', 'Closing quantity', true),
  decimal('closing_cost', 'Closing cost'),
  decimal('check_quantity', 'Check: opening + in − out − closing (quantity)', true),
  decimal('check_cost', 'Check: opening + in − out − closing (cost)'),
];

/**
 * Under HMRC identification, per token: what the 30-day rule matched ahead at the period's end
 * (tokens disposed of in the period and matched with acquisitions after it: the section 104 pool
 * still counts them, the wallets no longer hold them), added up from the period's disposal lines.
 */
export type MatchedAheadAtEnd = ReadonlyMap<string, { quantity: Big; cost: Big }>;

/**
 * The columns HMRC identification adds: the closing figures are the section 104 pool's, and beside
 * them what the wallets hold, at the pool's average cost (as the journal carries them).
 */
const HELD_COLUMNS: readonly Column[] = [
  {
    ...decimal(
      'matched_ahead_quantity',
      'Sold and matched with acquisitions after the period (30-day rule)',
      true,
    ),
    description:
      'disposed of in the period and matched under the 30-day rule with acquisitions after its end: still in the section 104 pool, no longer in the wallets; quantity, exact',
  },
  {
    ...decimal('held_quantity', 'Held in the wallets at the end', true),
    description:
      'what the wallets hold at the end: the section 104 pool less what was matched ahead; quantity, exact',
  },
  {
    ...decimal('held_cost', "Held in the wallets, at the pool's average cost"),
    description:
      "the tokens held at the section 104 pool's average cost (pool cost × held ÷ pool quantity), as the journal carries them; in the reports' currency, rounded to its minor unit",
  },
];

/** The holdings columns: under HMRC identification the closing ones named the section 104 pool's. */
function holdingsColumns(hmrc: boolean): Column[] {
  if (!hmrc) return [...HOLDINGS_COLUMNS];
  const pool: Record<string, [string, string]> = {
    closing_quantity: [
      'Section 104 pool at the end (quantity)',
      'the section 104 pool at the end of the period, which still counts tokens sold and matched with later acquisitions (see the held columns); quantity, exact',
    ],
    closing_cost: [
      'Section 104 pool at the end (cost)',
      "allowable cost of the section 104 pool at the end of the period; in the reports' currency, rounded to its minor unit",
    ],
  };
  const renamed = HOLDINGS_COLUMNS.map((c) => {
    const words = pool[c.key];
    return words === undefined ? c : { ...c, header: words[0], description: words[1] };
  });
  const at = renamed.findIndex((c) => c.key === 'closing_cost') + 1;
  return [...renamed.slice(0, at), ...HELD_COLUMNS, ...renamed.slice(at)];
}

/**
 * Per token (and account when pooled by account). Closing amounts are read from the pools; the
 * check columns compute opening + acquired + transferred in − disposed − transferred out − closing
 * from the exact figures, which is 0 when the books balance. Every cost is shown as `money` shows
 * it: each rounded once, half to even, to the minor unit (so a row's rounded costs may differ
 * from its rounded closing cost by cents; the exact figures are in the `_exact` companion).
 * Under HMRC identification (`ahead` given) the closing figures are the section 104 pool's, and
 * three columns say what of it was sold and matched ahead and what the wallets hold.
 */
export function holdingsTable(
  result: GainsResult,
  money = EXACT_MONEY,
  ahead?: MatchedAheadAtEnd,
): TableSource {
  const hmrc = ahead !== undefined;
  const spec = {
    name: 'holdings',
    title: 'Holdings roll-forward',
    description:
      'one row per token: opening, in, out and closing quantity and cost, with check columns that are 0 when the books balance',
    columns: holdingsColumns(hmrc),
  };
  const cost = (amount: string) => money.show(amount);
  return source(spec, () =>
    result.rollForward.map((line) => {
      const check = (key: 'quantity' | 'cost') =>
        text(
          new Big(line.opening[key])
            .plus(line.acquired[key])
            .plus(line.transferredIn[key])
            .minus(line.disposed[key])
            .minus(line.transferredOut[key])
            .minus(line.closing[key]),
        );
      return [
        line.token,
        line.account,
        line.opening.quantity,
        cost(line.opening.cost),
        line.acquired.quantity,
        cost(line.acquired.cost),
        line.transferredIn.quantity,
        cost(line.transferredIn.cost),
        line.disposed.quantity,
        cost(line.disposed.cost),
        line.transferredOut.quantity,
        cost(line.transferredOut.cost),
        line.unmatchedDisposed,
        line.closing.quantity,
        cost(line.closing.cost),
        ...(hmrc ? heldCells(line.closing, ahead.get(line.token), cost) : []),
        check('quantity'),
        cost(check('cost')),
      ];
    }),
  );
}

/**
 * What the wallets hold of a section 104 pool: the pool less what was matched ahead, at the pool's
 * average cost (`pool cost × held / pool quantity`, the journal's carrying value of the tokens).
 */
function heldCells(
  pool: { quantity: string; cost: string },
  ahead: { quantity: Big } | undefined,
  cost: (amount: string) => string,
): string[] {
  const sold = ahead?.quantity ?? ZERO;
  const quantity = new Big(pool.quantity);
  const held = quantity.minus(sold);
  const heldCost =
    sold.eq(0) || quantity.eq(0) ? new Big(pool.cost) : new Big(pool.cost).times(held).div(quantity);
  return [text(sold), text(held), cost(text(heldCost))];
}

/** Columns of the warnings report. */
export function warningColumns(timeZone: string): Column[] {
  return [
    { key: 'date', header: `Date (${timeZone})`, kind: 'datetime', timeZone },
    textColumn('transaction_id', 'Transaction'),
    textColumn('kind', 'Kind'),
    textColumn('token', 'Token'),
    textColumn('account', 'Account'),
    decimal('quantity', 'Quantity', true),
    textColumn('message', 'Message'),
    // What the data points at (lib/adjustments/suggest.ts): in words, with the proposed adjustment's id.
    textColumn('suggestion', 'Suggestion'),
  ];
}

/** Spec of the warnings report. */
export function warningsSpec(timeZone: string): TableSpec {
  return {
    name: 'gains_warnings',
    title: 'Warnings',
    description:
      'one row per thing the gains calculation could not settle (a zero basis, a missing value, a negative balance, an unmatched transfer, …), with its transaction and what it assumed, and a suggested adjustment where the data points at one',
    columns: warningColumns(timeZone),
  };
}

/** The warnings report's row of one warning, with the suggestion resolving it (if any) in words. */
export function warningRow(w: GainsWarning, suggestion = ''): Row {
  return [iso(w.time), w.txId, w.kind, w.token, w.account, w.quantity, w.message, suggestion];
}

/** One row per warning, in processing order. */
export function warningsTable(result: GainsResult): TableSource {
  return source(warningsSpec(result.options.timeZone), () => result.warnings.map((w) => warningRow(w)));
}

/** Columns of the section 104 pool history. */
export const POOL_HISTORY_COLUMNS: readonly Column[] = [
  textColumn('token', 'Token'),
  textColumn('date', 'Date'),
  textColumn('tax_year', 'Tax year'),
  textColumn('change', 'Change'),
  decimal('quantity', 'Quantity', true),
  decimal('cost', 'Pooled cost'),
  decimal('pool_quantity', 'Pool quantity after', true),
  decimal('pool_cost', 'Pooled cost after'),
  textColumn('transactions', 'Transactions'),
];

/** Spec of the section 104 pool history. */
export const POOL_HISTORY_SPEC: TableSpec = {
  name: 'pool_history',
  title: 'Section 104 pools',
  description:
    "one row per change of a token's section 104 pool: what changed it, and the pool's quantity and cost after",
  columns: POOL_HISTORY_COLUMNS,
};

/** The pool history's row of one change. */
export function poolHistoryRow(line: PoolHistoryLine): Row {
  return [
    line.token,
    line.date,
    line.taxYear,
    line.change,
    line.quantity,
    line.cost,
    line.poolQuantity,
    line.poolCost,
    line.txIds,
  ];
}

/**
 * HMRC identification: every change of each token's section 104 pool in the period, in order
 * (acquisitions left by the same-day and 30-day rules, disposals from the pool, withdrawals, fees).
 */
export function poolHistoryTable(result: GainsResult, money = EXACT_MONEY): TableSource {
  return source(POOL_HISTORY_SPEC, () =>
    result.poolHistory.map((line) =>
      poolHistoryRow({ ...line, cost: money.show(line.cost), poolCost: money.show(line.poolCost) }),
    ),
  );
}

/**
 * The summary table of a rule set that has one (uk: SA108's cryptoasset boxes; de: the Anlage SO
 * lines); `null` for the others.
 */
export function createTaxSummary(options: ResolvedGainsOptions): TaxSummary | null {
  const { summary } = ruleSet(options.taxRules);
  return summary === undefined ? null : summary(createCoverage(coverageOptions(options)));
}

/** The tax summary of a finished run, when its rule set has one (amounts of the rounded lines). */
export function taxSummaryTable(result: GainsResult, money = EXACT_MONEY): TableSource | null {
  const summary = createTaxSummary(result.options);
  if (summary === null) return null;
  return source(summary.spec(money), () => {
    for (const line of result.disposals) summary.add(roundDisposal(line, money));
    for (const line of result.income) summary.addIncome(roundIncome(line, money));
    return summary.rows(money);
  });
}

/** Options of {@link gainsReports}. */
export interface GainsReportsOptions {
  /**
   * The currency of the amounts: every line's money is rounded once, half to even, to its minor
   * unit, and every total adds the rounded lines. Default: none, every amount exact.
   */
  currency?: string | null;
}

/**
 * Every report, in the order a workbook shows them: the five of every run, then the section 104
 * pools (HMRC identification) and the tax summary of the rule set, when they apply. Every table
 * with money has a `currency` column and money headers naming it (`Proceeds (GBP)`).
 */
export function gainsReports(result: GainsResult, options: GainsReportsOptions = {}): TableSource[] {
  const money = gainsMoney(options.currency ?? null);
  const tax = taxSummaryTable(result, money);
  // Every money header names its currency: the one given, else the rule set's (whose currency the
  // values must be in); the figures are only rounded when a currency is given.
  const rules = ruleSet(result.options.taxRules);
  const named = options.currency ?? rules.currency;
  return [
    disposalsTable(result, money),
    gainsSummaryTable(result, money),
    incomeTable(result, money),
    holdingsTable(result, money),
    warningsTable(result),
    ...(lotMethod(result.options.method).poolHistory ? [poolHistoryTable(result, money)] : []),
    ...(tax === null ? [] : [tax]),
    ...(rules.reports?.(result, money, createCoverage(coverageOptions(result.options))) ?? []),
  ].map((table) => withCurrency(table, named));
}
