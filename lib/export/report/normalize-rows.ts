/**
 * The normaliser's two passes after reading (`normalize.ts`): observing what the columns will be,
 * then rendering canonical transactions into rows and specs of fixed columns.
 */
import type { CanonicalTransaction } from '../../domain/index.ts';
import {
  absDecimal,
  type Cell,
  type Column,
  moneyCell,
  numberWidth,
  type Row,
  signDecimal,
  type TableSpec,
  trimDecimal,
} from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTimelineItem } from '../../pbs/index.ts';
import { deletedFlag } from '../snapshot/timeline.ts';
import { TABLE_DESCRIPTIONS } from './normalize-columns.ts';
import {
  decimal,
  extrasOf,
  idOf,
  instant,
  isPlainObject,
  type Layout,
  TransactionDataError,
  text,
} from './normalize-read.ts';

// Observing: what the columns will be (extra fields, money currencies, number widths).

/** The extra paths of each report, sorted: fixed by the first spec or row. */
export interface FrozenColumns {
  extras: string[];
  movementExtras: string[];
  changeExtras: string[];
}

/** What the first pass has seen: each report's extra fields, money currencies and number widths. */
export class ColumnsSeen {
  readonly extraPaths = new Set<string>();
  readonly movementExtraPaths = new Set<string>();
  readonly changeExtraPaths = new Set<string>();
  readonly units = {
    transactions: { value: new Set<string>(), fee: new Set<string>() },
    movements: { value: new Set<string>(), fee: new Set<string>() },
    changes: { value: new Set<string>(), fee: new Set<string>() },
  };
  /** Widest number cell per `report.column`, as shown (see `numberWidth`). */
  readonly #widths = new Map<string, number>();
  #frozen: FrozenColumns | null = null;

  widen(column: string, literal: string | null): void {
    if (literal === null) return;
    const width = numberWidth(literal);
    if (width > (this.#widths.get(column) ?? 0)) this.#widths.set(column, width);
  }

  /** Records the currencies and number widths the rows of `tx` will have. */
  observeNumbers(tx: CanonicalTransaction): void {
    if (tx.valueAmount !== null) this.units.transactions.value.add(tx.valueCurrency ?? '');
    if (tx.feeAmount !== null) this.units.transactions.fee.add(tx.feeCurrency ?? '');
    this.widen('transactions.value_amount', moneyCell(tx.valueAmount, tx.valueCurrency));
    this.widen('transactions.fee_amount', moneyCell(tx.feeAmount, tx.feeCurrency));
    this.widen('transactions.fee_quantity', tx.feeQuantity);
    for (const movement of tx.movements) {
      if (movement.value !== null) this.units.movements.value.add(tx.valueCurrency ?? '');
      this.widen('movements.amount', movement.amount);
      this.widen('movements.value', moneyCell(movement.value, tx.valueCurrency));
    }
  }

  /** The columns of `report` with the widths observed. */
  sized(report: string, columns: Column[]): Column[] {
    return columns.map((column) => {
      const width = this.#widths.get(`${report}.${column.key}`);
      return width === undefined ? column : { ...column, width };
    });
  }

  freeze(): FrozenColumns {
    this.#frozen ??= {
      extras: [...this.extraPaths].sort(),
      movementExtras: [...this.movementExtraPaths].sort(),
      changeExtras: [...this.changeExtraPaths].sort(),
    };
    return this.#frozen;
  }

  refuseIfFrozen(): void {
    if (this.#frozen !== null) {
      throw new PbsExportError('normalizer_frozen', 'observe() called after the columns were fixed');
    }
  }

  checkObservable(raw: unknown, index: number | undefined): asserts raw is Record<string, unknown> {
    this.refuseIfFrozen();
    if (!isPlainObject(raw))
      throw new TransactionDataError('(item)', 'is not an object', null, index ?? null);
  }
}

// Rendering: canonical transactions into rows and specs of fixed columns.

function extraCells(extras: Readonly<Record<string, Cell>>, known: readonly string[], id: string): Cell[] {
  // Extras records have no prototype: every key `in` them is their own.
  for (const path in extras) {
    if (!known.includes(path)) {
      throw new TransactionDataError(
        path,
        'was not seen by observe() before the columns were fixed',
        id,
        null,
      );
    }
  }
  return known.map((path) => extras[path] ?? null);
}

function extraColumns(paths: readonly string[], fixed: readonly Column[]): Column[] {
  const taken = new Set(fixed.map((column) => column.key));
  return paths.map((path) => ({
    key: taken.has(path) ? `extra:${path}` : path,
    header: path,
    kind: 'text' as const,
    description: `field "${path}" of the service's data, which the field mapping does not know, as text`,
  }));
}

/** A report's table spec: its fixed columns, then its extra fields as text columns. */
export function spec(name: string, title: string, fixed: Column[], extras: readonly string[]): TableSpec {
  return {
    name,
    title,
    description: TABLE_DESCRIPTIONS[name],
    columns: [...fixed, ...extraColumns(extras, fixed)],
  };
}

const MINUS = 0x2d;
const POINT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

/**
 * `signDecimal(amount) < 0`, read from the characters of the plain form `parseDecimal` writes
 * (no regular expression per movement); any other form is left to `signDecimal`.
 */
function isNegative(amount: string): boolean {
  // Without a leading minus no decimal form is negative.
  if (amount.charCodeAt(0) !== MINUS) return false;
  let nonZero = false;
  for (let i = 1; i < amount.length; i += 1) {
    const code = amount.charCodeAt(i);
    if (code > ZERO && code <= NINE) nonZero = true;
    else if (code !== ZERO && code !== POINT) return signDecimal(amount) < 0;
  }
  return nonZero;
}

/**
 * `trimDecimal(absDecimal(amount))` (`-4205.120000` → `4205.12`), from the characters of the
 * plain form `parseDecimal` writes; any other form is left to those two.
 */
function magnitudeText(amount: string): string {
  const start = amount.charCodeAt(0) === MINUS ? 1 : 0;
  const point = normalPlainPoint(amount, start);
  if (point === null) return trimDecimal(absDecimal(amount));
  let end = amount.length;
  if (point !== -1) {
    while (amount.charCodeAt(end - 1) === ZERO) end -= 1;
    if (end - 1 === point) end -= 1;
  }
  return start === 0 && end === amount.length ? amount : amount.slice(start, end);
}

/**
 * Where the point is in `text` from `start` on, when that part is in normal plain form
 * (`0|[1-9]\d*` then optionally `.\d+`): its index, or -1 without a point; null in any other form.
 */
function normalPlainPoint(text: string, start: number): number | null {
  const first = text.charCodeAt(start);
  if (!(first >= ZERO && first <= NINE)) return null;
  let i = start + 1;
  if (first !== ZERO) while (i < text.length && isDigit(text.charCodeAt(i))) i += 1;
  if (i === text.length) return -1;
  if (text.charCodeAt(i) !== POINT || i + 1 === text.length) return null;
  for (let j = i + 1; j < text.length; j += 1) if (!isDigit(text.charCodeAt(j))) return null;
  return i;
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

function quantities(tx: CanonicalTransaction, sign: 1 | -1): Cell {
  // One string built in a loop: two cells of every row, no arrays in between.
  let text: string | null = null;
  for (const movement of tx.movements) {
    if ((isNegative(movement.amount) ? -1 : 1) !== sign) continue;
    const part = `${magnitudeText(movement.amount)} ${movement.symbol}`;
    text = text === null ? part : `${text}; ${part}`;
  }
  return text;
}

/** The transactions report row of a canonical transaction. */
export function transactionRowOf(tx: CanonicalTransaction, extras: readonly string[]): Row {
  const row: Cell[] = [
    tx.id,
    tx.date,
    tx.date,
    tx.type,
    tx.subType,
    tx.category,
    tx.protocol,
    tx.hash,
    tx.accountId,
    tx.ledgerId,
    quantities(tx, 1),
    quantities(tx, -1),
    moneyCell(tx.valueAmount, tx.valueCurrency),
    tx.valueCurrency,
    moneyCell(tx.feeAmount, tx.feeCurrency),
    tx.feeCurrency,
    tx.feeSymbol,
    tx.feeQuantity,
  ];
  for (const cell of extraCells(tx.extras, extras, tx.id)) row.push(cell);
  return row;
}

/** The movements report rows of a canonical transaction, one per movement. */
export function movementRowsOf(tx: CanonicalTransaction, known: readonly string[]): Row[] {
  return tx.movements.map((movement) => [
    tx.id,
    tx.date,
    tx.date,
    movement.symbol,
    movement.amount,
    moneyCell(movement.value, tx.valueCurrency),
    isNegative(movement.amount) ? 'out' : 'in',
    ...extraCells(movement.extras, known, tx.id),
  ]);
}

/** The changes report row of a raw timeline item. */
export function changeRowOf(
  raw: RawTimelineItem,
  layout: Layout,
  known: readonly string[],
  index?: number,
): Row {
  const { fields } = layout;
  const at = index ?? null;
  const id = idOf(raw, fields.id, at);
  const deleted = deletedFlag(raw, fields.deleted, id);
  return [
    id,
    // A deleted item may be a bare tombstone without a date.
    instant(raw, fields.date, id, at, !deleted, fields.instants),
    instant(raw, fields.lastModifiedDate, id, at, false, fields.instants),
    deleted ? 'yes' : 'no',
    text(raw, fields.sourceGuid),
    text(raw, fields.sourceName),
    text(raw, fields.type),
    text(raw, fields.subType),
    text(raw, fields.category),
    text(raw, fields.protocol),
    text(raw, fields.hash),
    moneyCell(decimal(raw, fields.valueAmount, fields.valueAmount, id, at), text(raw, fields.valueCurrency)),
    text(raw, fields.valueCurrency),
    ...extraCells(extrasOf(raw, layout.transactionPaths), known, id),
  ];
}
