/**
 * Normalisation: raw transactions in any field layout (read through a `TransactionFieldMap`)
 * become a canonical view and report rows. Fields the mapping does not know are never dropped:
 * a first pass (`observe`) collects them and they reach the reports as extra text columns.
 */

import type { CanonicalTransaction } from '../../domain/index.ts';
import { type Column, moneyCell, parseDecimal, type Row, type TableSpec } from '../../domain/index.ts';
import type { RawTimelineItem, RawTransaction, TransactionFieldMap } from '../../pbs/index.ts';
import { getPath } from '../../pbs/index.ts';
import { changeColumns, type MoneyUnits, movementColumns, transactionColumns } from './normalize-columns.ts';
import {
  canonicalOf,
  extrasOf,
  isPlainObject,
  layoutOf,
  TransactionDataError,
  text,
} from './normalize-read.ts';
import {
  ColumnsSeen,
  changeRowOf,
  type FrozenColumns,
  movementRowsOf,
  spec,
  transactionRowOf,
} from './normalize-rows.ts';

export {
  changeColumns,
  type MoneyUnits,
  movementColumns,
  transactionColumns,
} from './normalize-columns.ts';
export { extraPath, parseInstant, TransactionDataError } from './normalize-read.ts';

/** How raw items are read (`fields`) and which zone the local date columns show. */
export interface NormalizerOptions {
  fields: TransactionFieldMap;
  /** IANA zone of the `date_local` columns. */
  timeZone: string;
}

/**
 * Turns raw items into rows. Observe every item first (`observe` for search transactions,
 * `observeChange` for timeline items), then ask for specs and rows; the column sets are frozen
 * by the first spec or row, and observing is refused after that. A row whose item has an extra
 * field never observed is an error.
 */
export interface Normalizer {
  /** First pass: records the extra fields of one item (its 0-based `index` improves errors). */
  observe(raw: RawTransaction, index?: number): void;
  /**
   * First pass from an already canonical transaction (its extras were read by `canonical`):
   * the same columns as `observe` on its raw item, without walking the item again.
   */
  observeCanonical(tx: CanonicalTransaction): void;
  /** First pass over timeline items: records the extra fields of the changes report. */
  observeChange(raw: RawTimelineItem, index?: number): void;
  /**
   * How many extra columns have been observed so far, per report, and how many distinct money
   * currencies the transactions and movements reports have (they decide the money headers).
   * Both only ever grow, so two equal counts over the same observed prefix mean the same columns.
   */
  extraCounts(): { transactions: number; movements: number; changes: number; currencies: number };
  /** Reads and validates the known fields; throws {@link TransactionDataError}. */
  canonical(raw: RawTransaction, index?: number): CanonicalTransaction;
  transactionsSpec(): TableSpec;
  transactionRow(raw: RawTransaction, index?: number): Row;
  /** The transactions row of an already canonical transaction. */
  toTransactionRow(tx: CanonicalTransaction): Row;
  movementsSpec(): TableSpec;
  movementRows(raw: RawTransaction, index?: number): Row[];
  /** The movements rows of an already canonical transaction. */
  toMovementRows(tx: CanonicalTransaction): Row[];
  changesSpec(): TableSpec;
  changeRow(raw: RawTimelineItem, index?: number): Row;
}

/** Builds a {@link Normalizer} for one spool: reading, observing and rendering above, put together. */
export function createNormalizer(options: NormalizerOptions): Normalizer {
  const { fields, timeZone } = options;
  const layout = layoutOf(fields);
  const seen: ColumnsSeen = new ColumnsSeen();
  const canonical = (raw: RawTransaction, index?: number) => canonicalOf(raw, layout, index);
  const toTransactionRow = (tx: CanonicalTransaction) => transactionRowOf(tx, seen.freeze().extras);
  const toMovementRows = (tx: CanonicalTransaction) => movementRowsOf(tx, seen.freeze().movementExtras);
  /** A report's spec: its columns sized to what was seen, then its extra fields (fixed from now on). */
  const reportSpec = (
    name: keyof ColumnsSeen['units'],
    title: string,
    columns: (timeZone: string, units: MoneyUnits) => Column[],
    extras: keyof FrozenColumns,
  ) => spec(name, title, seen.sized(name, columns(timeZone, seen.units[name])), seen.freeze()[extras]);

  return {
    observe(raw, index) {
      seen.checkObservable(raw, index);
      for (const path of Object.keys(extrasOf(raw, layout.transactionPaths))) seen.extraPaths.add(path);
      // Invalid data is reported by the row that holds it, not while observing.
      let tx: CanonicalTransaction | null = null;
      try {
        tx = canonical(raw, index);
      } catch {}
      if (tx !== null) seen.observeNumbers(tx);
      const list = getPath(raw, fields.movements);
      if (Array.isArray(list)) {
        for (const item of list) {
          if (!isPlainObject(item)) continue;
          for (const path of Object.keys(extrasOf(item, layout.movementPaths)))
            seen.movementExtraPaths.add(path);
        }
      }
    },
    observeCanonical(tx) {
      seen.refuseIfFrozen();
      seen.observeNumbers(tx);
      for (const path in tx.extras) seen.extraPaths.add(path);
      for (const movement of tx.movements) {
        for (const path in movement.extras) seen.movementExtraPaths.add(path);
      }
    },
    extraCounts: () => ({
      transactions: seen.extraPaths.size,
      movements: seen.movementExtraPaths.size,
      changes: seen.changeExtraPaths.size,
      currencies:
        seen.units.transactions.value.size +
        seen.units.transactions.fee.size +
        seen.units.movements.value.size,
    }),
    observeChange(raw, index) {
      seen.checkObservable(raw, index);
      for (const path of Object.keys(extrasOf(raw, layout.transactionPaths))) seen.changeExtraPaths.add(path);
      const amount = parseDecimal(getPath(raw, fields.valueAmount));
      if (amount !== null) {
        const currency = text(raw, fields.valueCurrency);
        seen.units.changes.value.add(currency ?? '');
        seen.widen('changes.value_amount', moneyCell(amount, currency));
      }
    },
    canonical,
    transactionsSpec: () => reportSpec('transactions', 'Transactions', transactionColumns, 'extras'),
    transactionRow: (raw, index) => toTransactionRow(canonical(raw, index)),
    toTransactionRow,
    movementsSpec: () => reportSpec('movements', 'Movements', movementColumns, 'movementExtras'),
    movementRows: (raw, index) => toMovementRows(canonical(raw, index)),
    toMovementRows,
    changesSpec: () => reportSpec('changes', 'Changes', changeColumns, 'changeExtras'),
    changeRow: (raw, index) => changeRowOf(raw, layout, seen.freeze().changeExtras, index),
  };
}
