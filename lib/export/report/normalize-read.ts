/**
 * Reading raw items into canonical transactions (`normalize.ts`): each reader names the field it
 * refuses, and fields the mapping does not know are kept as extra paths.
 */
import type { CanonicalMovement, CanonicalTransaction } from '../../domain/index.ts';
import { type Cell, fastUtcInstant, isExactNumber, parseDecimal, stringifyJson } from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTransaction, TransactionFieldMap } from '../../pbs/index.ts';
import { getPath, type InstantReading, readInstant } from '../../pbs/index.ts';
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

/** A plain JSON object (not an array or null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
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
export interface Layout {
  fields: TransactionFieldMap;
  read: Readonly<Record<ReadFields, FieldReader>>;
  transactionPaths: ExtraPaths;
  movementPaths: ExtraPaths;
}

/** The field readers and consumed paths of a field map, built once per normaliser. */
export function layoutOf(fields: TransactionFieldMap): Layout {
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

/** A raw transaction's id, read at `path`, as text; throws when it is missing. */
export function idOf(raw: RawTransaction, path: string, index: number | null): string {
  return idText(getPath(raw, path), path, index);
}

/** The id read at `path` (`value`), as text; throws when it is missing. */
function idText(value: unknown, path: string, index: number | null): string {
  const id = asText(value);
  if (id === null || id === '') throw new TransactionDataError(path, 'is missing', null, index);
  return id;
}

/** The text at `path` of `raw`, or null when absent. */
export function text(raw: unknown, path: string): string | null {
  return asText(getPath(raw, path));
}

/** The instant at `path` of `raw`, as a UTC ISO instant; throws when it is not one. */
export function instant(
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

/** The decimal at `path` of `raw` (shown as `shownPath` in errors), or null when absent. */
export function decimal(raw: unknown, path: string, shownPath: string, id: string, index: number | null) {
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

/** The leaves of `raw` outside the paths the layout reads, by extra path. */
export function extrasOf(raw: Record<string, unknown>, paths: ExtraPaths): Record<string, Cell> {
  return collectLeaves(raw, paths, null) ?? (NO_EXTRAS as Record<string, Cell>);
}

/** A raw transaction as the canonical transaction; throws a {@link TransactionDataError} naming the field. */
export function canonicalOf(raw: RawTransaction, layout: Layout, index?: number): CanonicalTransaction {
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
