/**
 * The adjustments' step in the gains feed: each transaction passes through the applier (spam
 * dropped, values and categories set, synthetic lots added) before the event stream, and the
 * stream gets the hand-made pairs and the transfer ins' costs. Beside it a baseline engine runs
 * on the transactions as the service sent them, so the warnings table can say which warnings the
 * adjustments resolved (and which they raised), and the Adjustments table what they changed in
 * the period's realised gain and income. The baseline doubles the engine's work, only when
 * adjustments are given.
 */

import {
  type AdjustmentEffect,
  createAdjustmentsApplier,
  InvalidAdjustmentsError,
  type LoadedAdjustments,
} from '../../adjustments/index.ts';
import type { Column, Row, TableSource } from '../../domain/index.ts';
import { Big, type CanonicalTransaction } from '../../domain/index.ts';
import {
  type AdapterOptions,
  createEventStream,
  createGainsEngine,
  type GainsEngine,
  type GainsEvent,
  type GainsMoney,
  type GainsOptions,
  type GainsWarning,
  roundDisposal,
  roundIncome,
  warningRow,
} from '../../gains/index.ts';

/** Name of the Adjustments table (`<base>_adjustments.csv`, sheet "Adjustments"). */
export const ADJUSTMENTS_TABLE = 'adjustments';

/** The key of the column the warnings table gets with adjustments. */
export const RESOLUTION_COLUMN = 'resolution';

/** Options of {@link createAdjustmentsStep}. */
export interface AdjustmentsStepOptions {
  /** The engine's options (the baseline runs with the same). */
  engine: GainsOptions;
  /** The event stream's options (the baseline's; the adjusted stream adds the adjustments'). */
  stream: AdapterOptions;
  /** The currency of the gains figures, when the request names it. */
  currency: string | null;
  /** The run's profile: the document must be this profile's. */
  profile: string;
  /**
   * How the gains reports show money (read when lines are drained): the figures are added up from
   * the lines as they show them, so the change is the difference of the two Gains summaries.
   */
  money: () => GainsMoney;
}

/** Figures of a run as its reports add them up: realised gain and income of the period, from the rounded lines. */
interface Figures {
  gain: Big;
  income: Big;
}

/** The step (see the module comment). */
export interface AdjustmentsStep {
  /** For the adjusted stream. */
  readonly adapterOptions: AdapterOptions;
  /** The transactions to feed for `tx` (the baseline sees `tx` itself). */
  add(tx: CanonicalTransaction): CanonicalTransaction[];
  /** The baseline follows the adjusted stream's `advance`. */
  advance(complete: number): void;
  /** The end of the history: the synthetic transactions still due; throws for a name the data lacks. */
  finish(): CanonicalTransaction[];
  /** The adjusted engine's drained lines, as the feed drains them (exact: rounded here as the reports round them). */
  observe(drained: ReturnType<GainsEngine['drain']>): void;
  /** The warnings table with a resolution column, and the resolved warnings after the open ones. */
  warnings(table: TableSource): TableSource;
  /** The Adjustments table (its money columns get the currency's name with the other tables'). */
  table(): TableSource;
}

/** A warning's identity across the two runs (a warning whose quantity changed is another one). */
const keyOf = (w: Pick<GainsWarning, 'kind' | 'txId' | 'token' | 'account' | 'quantity'>) =>
  `${w.kind}\u0000${w.txId}\u0000${w.token}\u0000${w.account}\u0000${w.quantity}`;

/**
 * Adds the drained lines of an engine to `figures`, each rounded once as the reports show it (a
 * disposal's gain is its rounded proceeds less its rounded cost); returns the warnings.
 */
function tally(figures: Figures, drained: ReturnType<GainsEngine['drain']>, money: GainsMoney) {
  for (const line of drained.disposals) figures.gain = figures.gain.plus(roundDisposal(line, money).gain);
  for (const line of drained.income) figures.income = figures.income.plus(roundIncome(line, money).value);
  return drained.warnings;
}

/** Creates the step for one run over `loaded` (a validated document and its bytes). */
export function createAdjustmentsStep(
  loaded: LoadedAdjustments,
  options: AdjustmentsStepOptions,
): AdjustmentsStep {
  if (loaded.document.profile !== options.profile)
    throw new InvalidAdjustmentsError(
      'profile',
      `the adjustments are profile ${loaded.document.profile}'s, but the run is of profile ${options.profile}`,
    );
  const applier = createAdjustmentsApplier(loaded.document, {
    currency: options.currency,
    ...(options.stream.transferCategories ? { transferCategories: options.stream.transferCategories } : {}),
    ...(options.stream.fiatSymbols ? { fiatSymbols: options.stream.fiatSymbols } : {}),
  });
  const baseline = createGainsEngine(options.engine);
  const baseStream = createEventStream(options.stream);
  const before: Figures = { gain: new Big(0), income: new Big(0) };
  const after: Figures = { gain: new Big(0), income: new Big(0) };
  /** The baseline's warnings by key (the ones the adjusted run does not repeat were resolved). */
  const baseWarnings = new Map<string, GainsWarning[]>();
  const feed = (events: readonly GainsEvent[]) => {
    for (const event of events) baseline.process(event);
    for (const w of tally(before, baseline.drain(), options.money())) {
      const key = keyOf(w);
      baseWarnings.set(key, [...(baseWarnings.get(key) ?? []), w]);
    }
  };
  const resolvedBy = (w: GainsWarning) => {
    const names = applier.namedBy(w.txId, w.token);
    return names.length > 0 ? names.join(', ') : 'the adjustments together';
  };

  return {
    adapterOptions: applier.adapterOptions,
    add(tx) {
      baseStream.add(tx);
      return applier.apply(tx);
    },
    advance(complete) {
      feed(baseStream.advance(complete));
    },
    finish() {
      const rest = applier.finish();
      feed(baseStream.finish());
      baseline.finish();
      feed([]);
      return rest;
    },
    observe(drained) {
      tally(after, drained, options.money());
    },
    warnings(table) {
      const columns = table.spec.columns;
      const at = (key: string) => columns.findIndex((column) => column.key === key);
      const [kind, txId, token, account, quantity] = [
        'kind',
        'transaction_id',
        'token',
        'account',
        'quantity',
      ].map(at) as number[];
      const resolution: Column = {
        key: RESOLUTION_COLUMN,
        header: 'Resolution',
        kind: 'text',
        description:
          'open: still to resolve; resolved by <adjustment ids>: gone from the figures since those adjustments; raised after <ids>: appeared with the adjustments (see the Adjustments sheet)',
      };
      return {
        spec: { ...table.spec, columns: [...columns, resolution] },
        async *rows() {
          // Each open warning takes one of the baseline's with the same identity; the baseline's
          // left over are the resolved ones (counted afresh for each writer that reads the rows).
          const left = new Map([...baseWarnings].map(([key, list]) => [key, [...list]]));
          for await (const row of table.rows()) {
            const cell = (index: number | undefined) => row[index as number] ?? '';
            const key = keyOf({
              kind: cell(kind) as GainsWarning['kind'],
              txId: cell(txId),
              token: cell(token),
              account: cell(account),
              quantity: cell(quantity),
            });
            const same = left.get(key);
            const raised = same?.shift() === undefined && cell(kind) !== 'other-currency';
            const named = applier.namedBy(cell(txId), cell(token));
            yield [...row, raised ? `raised after ${named.join(', ') || 'the adjustments'}` : 'open'];
          }
          for (const list of left.values()) {
            for (const w of list) yield [...warningRow(w), `resolved by ${resolvedBy(w)}`];
          }
        },
      };
    },
    table() {
      return adjustmentsTable(applier.effects(), { before, after }, options.money());
    },
  };
}

const text = (key: string, header: string, description: string): Column => ({
  key,
  header,
  kind: 'text',
  description,
});

/** The Adjustments table: one row per adjustment, then one row of the change in the period's figures. */
function adjustmentsTable(
  effects: readonly AdjustmentEffect[],
  figures: { before: Figures; after: Figures },
  shown: GainsMoney,
): TableSource {
  const money = (key: string, header: string, description: string): Column => ({
    key,
    header,
    kind: 'decimal',
    description: `${description}, in the reports' currency, at its minor unit`,
  });
  const show = (amount: string | null) => (amount === null ? null : shown.show(amount));
  const columns: Column[] = [
    text('id', 'Id', 'the adjustment id (unique in its document)'),
    text('kind', 'Kind', 'transfer-pair, cost-basis, missing-lots, value, spam, category or opening-lots'),
    text('by', 'By', 'who made the adjustment'),
    text('at', 'At', 'when it was made (ISO instant)'),
    text('why', 'Why', "the preparer's reason, in their words"),
    text('names', 'Names', 'the transactions and tokens it names'),
    text('effect', 'Effect', 'what it did to the transactions the engine used, in words'),
    money('basis_given', 'Basis given', 'the cost basis it gave: lots, or a transfer in’s cost'),
    money('value_set', 'Value set', 'the fiat value it set on a movement without one'),
    {
      key: 'movements',
      header: 'Movements',
      kind: 'integer',
      description: 'movements it changed, dropped or added',
    },
    money(
      'change',
      'Change',
      "the total rows: the change in the period's figure that all the adjustments made together",
    ),
  ];
  const { before, after } = figures;
  return {
    spec: {
      name: ADJUSTMENTS_TABLE,
      title: 'Adjustments',
      description:
        "one row per adjustment applied (the preparer's corrections), with what it did; the last rows give the change in the period's realised gain and income that all of them made together",
      columns,
    },
    async *rows(): AsyncGenerator<Row> {
      for (const e of effects) {
        const a = e.adjustment;
        yield [
          a.id,
          a.kind,
          a.by,
          a.at,
          a.why,
          e.names,
          e.effect,
          show(e.basis),
          show(e.value),
          String(e.movements),
          null,
        ];
      }
      const change = (label: string, from: Big, to: Big): Row => [
        label,
        'total',
        '',
        '',
        '',
        '',
        `${shown.showBig(from)} without the adjustments, ${shown.showBig(to)} with them (the Gains summaries' and Income reports' totals)`,
        null,
        null,
        null,
        shown.showBig(to.minus(from)),
      ];
      yield change('(all) realised gain', before.gain, after.gain);
      yield change('(all) income', before.income, after.income);
    },
  };
}
