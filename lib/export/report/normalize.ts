/**
 * Normalisation: raw transactions in any field layout (read through a `TransactionFieldMap`)
 * become a canonical view and report rows. Fields the mapping does not know are never dropped:
 * a first pass (`observe`) collects them and they reach the reports as extra text columns.
 */

import type { CanonicalMovement, CanonicalTransaction } from '../../domain/index.ts';
import {
  absDecimal,
  type Cell,
  type Column,
  fastUtcInstant,
  isExactNumber,
  moneyCell,
  moneyHeader,
  numberWidth,
  parseDecimal,
  type Row,
  signDecimal,
  stringifyJson,
  type TableSpec,
  trimDecimal,
} from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTimelineItem, RawTransaction, TransactionFieldMap } from '../../pbs/index.ts';
import { getPath, type InstantReading, readInstant } from '../../pbs/index.ts';
import { deletedFlag } from '../snapshot/timeline.ts';
import { isCanonicalInstant } from './canonical-instant.ts';

/** A transaction's data is unusable: `path` names the field, `transactionId` or `index` the item. */
export class TransactionDataError extends PbsExportError {
  readonly path: string;
  readonly transactionId: string | null;
  readonly index: number | null;

  constructor(path: string, problem: string, transactionId: string | null, index: number | null) {
    const who =
      transactionId !== null
        ? `transaction ${JSON.stringify(transactionId)}`
        : `transaction ${index === null ? '(unknown position)' : `#${index}`}`;
    super('invalid_transaction', `${who}: field "${path}" ${problem}`);
    this.path = path;
    this.transactionId = transactionId;
    this.index = index;
  }
}

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

/**
 * The UTC and local views of one instant (both cells hold the same ISO instant). Headers name the
 * zone; with the UTC zone the second is headed `Date (UTC, report zone)`, so no two are alike.
 */
const dateColumns = (zone: string): Column[] => [
  { key: 'date_utc', header: 'Date (UTC)', kind: 'datetime', timeZone: 'UTC' },
  {
    key: 'date_local',
    header: zone === 'UTC' ? 'Date (UTC, report zone)' : `Date (${zone})`,
    kind: 'datetime',
    timeZone: zone,
  },
];

/**
 * What a report's money headers name: the currencies of its values and fees, as observed. One
 * currency gives `Value (USD)`; several (or none) give `Value (in the row's currency)`.
 */
export interface MoneyUnits {
  value: ReadonlySet<string>;
  fee: ReadonlySet<string>;
}

const NO_UNITS: MoneyUnits = { value: new Set(), fee: new Set() };

/** Gives each column its description from `descriptions`, by key. */
function described(columns: Column[], descriptions: Readonly<Record<string, string>>): Column[] {
  return columns.map((column) => {
    const description = descriptions[column.key];
    return description === undefined ? column : { ...column, description };
  });
}

const MONEY_NOTE = "rounded to the currency's minor unit (e.g. cents)";

/** The two date columns, described. */
const dateDescriptions = (zone: string) => ({
  date_utc: 'when the transaction happened, in UTC',
  date_local: `the same moment as wall-clock time in the report zone, ${zone}`,
});

/** What each fixed column of the transactions report holds. */
const TRANSACTION_DESCRIPTIONS = (zone: string): Record<string, string> => ({
  id: "the service's id of the transaction",
  ...dateDescriptions(zone),
  type: 'type as the service reports it (trade, transfer, income, …)',
  sub_type: 'sub-type as the service reports it (buy, swap, withdrawal, …)',
  category: 'category as the service reports it',
  protocol: 'DeFi protocol or venue; empty when none',
  hash: 'on-chain transaction hash',
  account_id: 'the account (wallet or exchange account) the transaction belongs to',
  ledger_id: 'the ledger (data source connection) it came from',
  in: "what came into the portfolio: quantity and token, several joined by '; '",
  out: "what left the portfolio: quantity (without sign) and token, several joined by '; '",
  value_amount: `value of the transaction as the service reports it, in the value currency, ${MONEY_NOTE}`,
  value_currency: 'currency of the value (ISO 4217 code, e.g. USD)',
  fee_amount: `fee paid, a positive cost, in the fee currency, ${MONEY_NOTE}`,
  fee_currency: 'currency of the fee amount',
  fee_symbol: 'token the fee was paid in',
  fee_quantity: 'quantity of the fee token paid, exactly as sent',
});

/** Sheet width of the wrapped hash column: a 66-character hash on three lines. */
const HASH_WIDTH = 24;
/** Sheet width of the wrapped id columns: a 29-character transaction id on two lines. */
const ID_WIDTH = 16;
/** Sheet width of the wrapped In and Out columns: `0.0241237458194 stETH` on one line. */
const QUANTITY_TEXT_WIDTH = 24;

/** The fixed columns of the transactions report, in order. */
export function transactionColumns(timeZone: string, units: MoneyUnits = NO_UNITS): Column[] {
  return described(transactionColumnList(timeZone, units), TRANSACTION_DESCRIPTIONS(timeZone));
}

function transactionColumnList(timeZone: string, units: MoneyUnits): Column[] {
  return [
    { key: 'id', header: 'ID', kind: 'text', wrap: true, width: ID_WIDTH },
    ...dateColumns(timeZone),
    { key: 'type', header: 'Type', kind: 'text' },
    { key: 'sub_type', header: 'Sub-type', kind: 'text' },
    { key: 'category', header: 'Category', kind: 'text' },
    { key: 'protocol', header: 'Protocol', kind: 'text' },
    // Long text wraps in narrow columns, so the sheet prints one page wide at a readable size.
    { key: 'hash', header: 'Hash', kind: 'text', wrap: true, width: HASH_WIDTH },
    { key: 'account_id', header: 'Account ID', kind: 'text' },
    { key: 'ledger_id', header: 'Ledger ID', kind: 'text' },
    { key: 'in', header: 'In (quantity token)', kind: 'text', wrap: true, width: QUANTITY_TEXT_WIDTH },
    { key: 'out', header: 'Out (quantity token)', kind: 'text', wrap: true, width: QUANTITY_TEXT_WIDTH },
    { key: 'value_amount', header: moneyHeader('Value', units.value), kind: 'decimal' },
    { key: 'value_currency', header: 'Value currency', kind: 'text' },
    { key: 'fee_amount', header: moneyHeader('Fee', units.fee), kind: 'decimal' },
    { key: 'fee_currency', header: 'Fee currency', kind: 'text' },
    { key: 'fee_symbol', header: 'Fee token', kind: 'text' },
    { key: 'fee_quantity', header: 'Fee quantity (fee token)', kind: 'decimal', exact: true },
  ];
}

/** The fixed columns of the movements report, in order. */
export function movementColumns(timeZone: string, units: MoneyUnits = NO_UNITS): Column[] {
  return described(movementColumnList(timeZone, units), {
    transaction_id: 'id of the transaction the movement belongs to (see Transactions)',
    ...dateDescriptions(timeZone),
    token: 'token symbol',
    amount: 'quantity moved, exactly as sent: positive came in, negative went out',
    value: `value of the movement in the transaction's value currency, same sign as the amount, ${MONEY_NOTE}`,
    direction: "'in' or 'out', from the sign of the amount",
  });
}

function movementColumnList(timeZone: string, units: MoneyUnits): Column[] {
  return [
    { key: 'transaction_id', header: 'Transaction ID', kind: 'text' },
    ...dateColumns(timeZone),
    { key: 'token', header: 'Token', kind: 'text' },
    { key: 'amount', header: 'Amount (token, signed)', kind: 'decimal', exact: true },
    { key: 'value', header: moneyHeader('Value', units.value), kind: 'decimal' },
    { key: 'direction', header: 'Direction', kind: 'text' },
  ];
}

/** The fixed columns of the changes report, in order. */
export function changeColumns(timeZone: string, units: MoneyUnits = NO_UNITS): Column[] {
  return described(changeColumnList(timeZone, units), {
    id: "the service's id of the transaction",
    date: `when the transaction happened, in ${timeZone}; empty for some deleted items`,
    last_modified: `when the service last changed the item, in ${timeZone}`,
    deleted: "'yes' when the item was deleted, else 'no'",
    source_guid: 'id of the data source (exchange, wallet import) the item came from',
    source_name: 'name of that data source',
    type: 'type as the service reports it',
    sub_type: 'sub-type as the service reports it',
    category: 'category as the service reports it',
    protocol: 'DeFi protocol or venue; empty when none',
    hash: 'on-chain transaction hash',
    value_amount: `value as the service reports it, in the value currency, ${MONEY_NOTE}`,
    value_currency: 'currency of the value (ISO 4217 code)',
  });
}

function changeColumnList(timeZone: string, units: MoneyUnits): Column[] {
  return [
    { key: 'id', header: 'ID', kind: 'text' },
    { key: 'date', header: `Date (${timeZone})`, kind: 'datetime', timeZone },
    { key: 'last_modified', header: `Last modified (${timeZone})`, kind: 'datetime', timeZone },
    { key: 'deleted', header: 'Deleted', kind: 'text' },
    { key: 'source_guid', header: 'Source GUID', kind: 'text' },
    { key: 'source_name', header: 'Source name', kind: 'text' },
    { key: 'type', header: 'Type', kind: 'text' },
    { key: 'sub_type', header: 'Sub-type', kind: 'text' },
    { key: 'category', header: 'Category', kind: 'text' },
    { key: 'protocol', header: 'Protocol', kind: 'text' },
    { key: 'hash', header: 'Hash', kind: 'text' },
    { key: 'value_amount', header: moneyHeader('Value', units.value), kind: 'decimal' },
    { key: 'value_currency', header: 'Value currency', kind: 'text' },
  ];
}

/** What one row of each report of the normalizer is. */
const TABLE_DESCRIPTIONS: Readonly<Record<string, string>> = {
  transactions: 'one row per transaction in the period, in date order',
  movements: 'one row per token movement of a transaction (a trade has one in and one out)',
  changes: 'one row per transaction added, changed or deleted at the service since the date asked for',
};

/**
 * Reads a date as the service's instants are read everywhere (`pbs/instant.ts`): ISO text with an
 * offset, offset-less text in the configured zone, or an epoch number in the configured unit.
 * Returns the UTC ISO instant, or `null` when `reading` refuses the value.
 */
export function parseInstant(value: unknown, reading?: InstantReading): string | null {
  if (typeof value === 'string') {
    // Already the UTC ISO instant written below (the service's own form): the text itself.
    if (isCanonicalInstant(value)) return value;
    const fast = fastUtcInstant(value);
    if (!Number.isNaN(fast)) return new Date(fast).toISOString();
  }
  const result = readInstant(value, reading);
  return result.ok ? new Date(result.ms).toISOString() : null;
}

/** A scalar as cell text; objects as JSON. `null`/`undefined` give `null`. */
function asText(value: unknown): Cell {
  if (value === undefined || value === null) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  // A number token kept as its source text: the text is the value.
  if (isExactNumber(value)) return value.value;
  return stringifyJson(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !isExactNumber(value);
}

/** A record for extra fields without a prototype, so a `__proto__` key is a key like any other. */
function leafRecord(): Record<string, Cell> {
  return Object.create(null) as Record<string, Cell>;
}

/**
 * The path of `key` under `prefix`: dotted for plain keys (`fee.network`); a key that is empty or
 * holds `.`, `[`, `]` or `"` is written as a quoted index (`meta["a.b"]`, `[""]`), so a literal
 * key `a.b` and a nested `a: {b}` get different columns instead of one overwriting the other.
 */
export function extraPath(prefix: string, key: string): string {
  if (key === '' || /[.[\]"]/.test(key)) return `${prefix}[${JSON.stringify(key)}]`;
  return prefix === '' ? key : `${prefix}.${key}`;
}

/** Keys remembered per layout at most: a hostile service may send any number of distinct keys. */
const REMEMBERED_KEYS = 10_000;

/**
 * The extra paths of a layout: which keys it consumes, and each key's {@link extraPath} under each
 * prefix, worked out once per key (the items of one service share their keys) instead of per item.
 */
class ExtraPaths {
  readonly #consumed: ReadonlySet<string>;
  readonly #byPrefix = new Map<string, Map<string, string | null>>();
  #remembered = 0;

  constructor(consumed: ReadonlySet<string>) {
    this.#consumed = consumed;
  }

  /** The paths worked out for the keys under `prefix`: looked up once per object, not per key. */
  keysUnder(prefix: string): Map<string, string | null> {
    let keys = this.#byPrefix.get(prefix);
    if (keys === undefined) {
      keys = new Map();
      if (this.#remembered < REMEMBERED_KEYS) this.#byPrefix.set(prefix, keys);
    }
    return keys;
  }

  /**
   * The extra path of `key` under `prefix` (`keys`: {@link keysUnder} that prefix), or null when
   * the layout consumes that path.
   */
  of(keys: Map<string, string | null>, prefix: string, key: string): string | null {
    let path = keys.get(key);
    if (path === undefined) {
      const extra = extraPath(prefix, key);
      path = this.#consumed.has(extra) ? null : extra;
      if (this.#remembered < REMEMBERED_KEYS) {
        keys.set(key, path);
        this.#remembered += 1;
      }
    }
    return path;
  }
}

/** True when a plain object has an own key (without listing its keys). */
function hasOwnKey(value: Record<string, unknown>): boolean {
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}

/**
 * Flattens every leaf of `value` not under a consumed path into `out` (made at the first leaf),
 * keyed by its {@link extraPath}, and returns `out`. Arrays and empty objects are leaves (JSON
 * text), so nothing is lost.
 */
function collectLeaves(
  value: Record<string, unknown>,
  paths: ExtraPaths,
  out: Record<string, Cell> | null,
  prefix = '',
): Record<string, Cell> | null {
  let leaves = out;
  const keys = paths.keysUnder(prefix);
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const child = value[key];
    if (child === undefined) continue;
    const path = paths.of(keys, prefix, key);
    if (path === null) continue;
    if (isPlainObject(child) && hasOwnKey(child)) {
      leaves = collectLeaves(child, paths, leaves, path);
      continue;
    }
    leaves ??= leafRecord();
    leaves[path] = isPlainObject(child) || Array.isArray(child) ? stringifyJson(child) : asText(child);
  }
  return leaves;
}

// Reading: raw items into canonical transactions. Each reader names the field it refuses.

/** Reads one configured field of an item: `getPath` with the path split once, not per read. */
type FieldReader = (value: unknown) => unknown;

/** The {@link FieldReader} of a dotted path (the same reading as `getPath`). */
function fieldReader(path: string): FieldReader {
  if (path === '') return (value) => value;
  const keys = path.split('.');
  if (keys.length === 1) {
    const [key] = keys as [string];
    return (value) =>
      value === null || typeof value !== 'object' ? undefined : (value as Record<string, unknown>)[key];
  }
  return (value) => {
    let current = value;
    for (const key of keys) {
      if (current === null || typeof current !== 'object') return undefined;
      current = (current as Record<string, unknown>)[key];
    }
    return current;
  };
}

/** The paths of a field map a canonical transaction reads. */
type ReadFields = Exclude<keyof TransactionFieldMap, 'instants'>;

/**
 * A field map, a reader of each of its paths, and the paths it consumes (the others are extras),
 * worked out once per normalizer.
 */
interface Layout {
  fields: TransactionFieldMap;
  read: Readonly<Record<ReadFields, FieldReader>>;
  transactionPaths: ExtraPaths;
  movementPaths: ExtraPaths;
}

function layoutOf(fields: TransactionFieldMap): Layout {
  const { instants: _reading, ...paths } = fields;
  const read = Object.fromEntries(
    Object.entries(paths).map(([name, path]) => [name, fieldReader(path)]),
  ) as Record<ReadFields, FieldReader>;
  return {
    fields,
    read,
    transactionPaths: new ExtraPaths(
      new Set<string>([
        fields.id,
        fields.date,
        fields.type,
        fields.subType,
        fields.category,
        fields.protocol,
        fields.hash,
        fields.accountId,
        fields.ledgerId,
        fields.movements,
        fields.valueAmount,
        fields.valueCurrency,
        fields.feeAmount,
        fields.feeCurrency,
        fields.feeSymbol,
        fields.feeQuantity,
        fields.lastModifiedDate,
        fields.sourceGuid,
        fields.sourceName,
        fields.deleted,
      ]),
    ),
    movementPaths: new ExtraPaths(
      new Set<string>([fields.movementSymbol, fields.movementAmount, fields.movementValue]),
    ),
  };
}

function idOf(raw: RawTransaction, path: string, index: number | null): string {
  return idText(getPath(raw, path), path, index);
}

/** The id read at `path` (`value`), as text; throws when it is missing. */
function idText(value: unknown, path: string, index: number | null): string {
  const id = asText(value);
  if (id === null || id === '') throw new TransactionDataError(path, 'is missing', null, index);
  return id;
}

function text(raw: unknown, path: string): string | null {
  return asText(getPath(raw, path));
}

function instant(
  raw: RawTransaction,
  path: string,
  id: string,
  index: number | null,
  required: boolean,
  reading: InstantReading | undefined,
) {
  return instantOf(getPath(raw, path), path, id, index, required, reading);
}

/** The instant read at `path` (`value`), as a UTC ISO instant; throws when it is not one. */
function instantOf(
  value: unknown,
  path: string,
  id: string,
  index: number | null,
  required: boolean,
  reading: InstantReading | undefined,
) {
  if (value === undefined || value === null) {
    if (required) throw new TransactionDataError(path, 'is missing', id, index);
    return null;
  }
  const parsed = parseInstant(value, reading);
  if (parsed === null) {
    const { reason } = readInstant(value, reading) as { reason: string };
    throw new TransactionDataError(path, `is not a date: ${reason}`, id, index);
  }
  return parsed;
}

function decimal(raw: unknown, path: string, shownPath: string, id: string, index: number | null) {
  return decimalOf(getPath(raw, path), shownPath, id, index);
}

/** The decimal read at `shownPath` (`value`), or null when absent; throws when it is not one. */
function decimalOf(value: unknown, shownPath: string, id: string, index: number | null) {
  if (value === undefined || value === null) return null;
  const parsed = parseDecimal(value);
  if (parsed === null) {
    throw new TransactionDataError(shownPath, `is not a decimal amount: ${JSON.stringify(value)}`, id, index);
  }
  return parsed;
}

function movements(
  raw: RawTransaction,
  layout: Layout,
  id: string,
  index: number | null,
): CanonicalMovement[] {
  const { fields, read } = layout;
  const list = read.movements(raw);
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new TransactionDataError(fields.movements, 'is not a list', id, index);
  return list.map((item: unknown, position) => {
    const at = (path: string) => `${fields.movements}[${position}].${path}`;
    if (!isPlainObject(item)) {
      throw new TransactionDataError(`${fields.movements}[${position}]`, 'is not an object', id, index);
    }
    const symbol = asText(read.movementSymbol(item));
    if (symbol === null || symbol === '') {
      throw new TransactionDataError(at(fields.movementSymbol), 'is missing', id, index);
    }
    const amountValue = read.movementAmount(item);
    const amount =
      amountValue === undefined || amountValue === null
        ? null
        : decimalOf(amountValue, at(fields.movementAmount), id, index);
    if (amount === null) throw new TransactionDataError(at(fields.movementAmount), 'is missing', id, index);
    const value = read.movementValue(item);
    return {
      symbol,
      amount,
      value:
        value === undefined || value === null ? null : decimalOf(value, at(fields.movementValue), id, index),
      extras: extrasOf(item, layout.movementPaths),
    };
  });
}

/** The leaves of `raw` outside the `consumed` paths, by {@link extraPath}. */
/**
 * The extras of an item without any: one shared empty record, so the common item allocates none
 * (extras are only ever read).
 */
const NO_EXTRAS: Readonly<Record<string, Cell>> = Object.freeze(leafRecord());

function extrasOf(raw: Record<string, unknown>, paths: ExtraPaths): Record<string, Cell> {
  return collectLeaves(raw, paths, null) ?? (NO_EXTRAS as Record<string, Cell>);
}

function canonicalOf(raw: RawTransaction, layout: Layout, index?: number): CanonicalTransaction {
  const { fields, read } = layout;
  const at = index ?? null;
  const id = idText(read.id(raw), fields.id, at);
  return {
    id,
    date: instantOf(read.date(raw), fields.date, id, at, true, fields.instants) as string,
    type: asText(read.type(raw)),
    subType: asText(read.subType(raw)),
    category: asText(read.category(raw)),
    protocol: asText(read.protocol(raw)),
    hash: asText(read.hash(raw)),
    accountId: asText(read.accountId(raw)),
    ledgerId: asText(read.ledgerId(raw)),
    movements: movements(raw, layout, id, at),
    valueAmount: decimalOf(read.valueAmount(raw), fields.valueAmount, id, at),
    valueCurrency: asText(read.valueCurrency(raw)),
    feeAmount: decimalOf(read.feeAmount(raw), fields.feeAmount, id, at),
    feeCurrency: asText(read.feeCurrency(raw)),
    feeSymbol: asText(read.feeSymbol(raw)),
    feeQuantity: decimalOf(read.feeQuantity(raw), fields.feeQuantity, id, at),
    extras: extrasOf(raw, layout.transactionPaths),
  };
}

// Observing: what the columns will be (extra fields, money currencies, number widths).

/** The extra paths of each report, sorted: fixed by the first spec or row. */
interface FrozenColumns {
  extras: string[];
  movementExtras: string[];
  changeExtras: string[];
}

/** What the first pass has seen: each report's extra fields, money currencies and number widths. */
class ColumnsSeen {
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

function spec(name: string, title: string, fixed: Column[], extras: readonly string[]): TableSpec {
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

function transactionRowOf(tx: CanonicalTransaction, extras: readonly string[]): Row {
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

function movementRowsOf(tx: CanonicalTransaction, known: readonly string[]): Row[] {
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

function changeRowOf(raw: RawTimelineItem, layout: Layout, known: readonly string[], index?: number): Row {
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
