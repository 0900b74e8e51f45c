import { z } from 'zod';
import { PbsResponseError } from './errors.ts';
import { DEFAULT_INSTANT_READING, type InstantReading, readBound, readInstant } from './instant.ts';
import type { DateBounds, RawAccount, RawLedger, RawTransaction } from './model.ts';
import { getPath } from './path.ts';
import type { ServiceShape, TransactionFieldMap } from './shape.ts';

// Loose objects: unknown fields pass through untouched; nothing is transformed or dropped.
const recordSchema = z.looseObject({});
const idRecordSchema = z.looseObject({ id: z.string() });
const stringSchema = z.string();
/** An instant as the shape's {@link InstantReading} reads it; the issue says why not. */
function instantSchema(reading: InstantReading) {
  return z.unknown().superRefine((value, context) => {
    const result = readInstant(value, reading);
    if (!result.ok) context.addIssue({ code: 'custom', message: result.reason });
  });
}
const protocolsSchema = z.array(z.string());

type Issue = { path: PropertyKey[]; message: string };

function fail(path: string, field: string, issue: Issue | undefined, fallback: string): never {
  const suffix = issue && issue.path.length > 0 ? `.${issue.path.map(String).join('.')}` : '';
  throw new PbsResponseError(path, `${field}${suffix}`, issue?.message ?? fallback, false);
}

function label(itemsPath: string | null): string {
  return itemsPath === null || itemsPath === '' ? '' : itemsPath;
}

/** The item array of a list response, at `itemsPath` or (null) the body itself. */
export function extractItems(body: unknown, itemsPath: string | null, path: string): unknown[] {
  const items = itemsPath === null ? body : getPath(body, itemsPath);
  if (!Array.isArray(items)) {
    throw new PbsResponseError(path, itemsPath ?? '(body)', 'expected an array of items', false);
  }
  return items;
}

/** Checks that every item is an object with a string `id` (accounts, ledgers). */
export function validateIdRecords(
  items: unknown[],
  itemsPath: string | null,
  path: string,
): RawAccount[] & RawLedger[] {
  items.forEach((item, index) => {
    const result = idRecordSchema.safeParse(item);
    if (!result.success) fail(path, `${label(itemsPath)}[${index}]`, result.error.issues[0], 'invalid item');
  });
  return items as RawAccount[] & RawLedger[];
}

/**
 * Checks that every item is an object with a string id and a parseable date at the mapped field
 * paths. `deletedPath`, when given, exempts deleted timeline items from the date check.
 *
 * The common valid item is checked with plain JS; only an item that fails those checks goes
 * through the zod schemas, which build the error (so messages and paths are zod's). The plain
 * checks accept nothing the schemas refuse.
 */
export function validateTransactions(
  items: unknown[],
  fields: TransactionFieldMap,
  itemsPath: string | null,
  path: string,
  deletedPath?: string,
): RawTransaction[] {
  for (let index = 0; index < items.length; index++) {
    const item = items[index];
    if (!plainValidTransaction(item, fields, deletedPath)) {
      failTransaction(item, index, fields, itemsPath, path, deletedPath);
    }
  }
  return items as RawTransaction[];
}

/** What the zod path below accepts, for the common case, without building any schema. */
function plainValidTransaction(item: unknown, fields: TransactionFieldMap, deletedPath?: string): boolean {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return false;
  if (typeof getPath(item, fields.id) !== 'string') return false;
  if (deletedPath !== undefined && !isDeletedFlag(getPath(item, deletedPath))) return false;
  if (deletedPath !== undefined && getPath(item, deletedPath) === true) return true;
  return readInstant(getPath(item, fields.date), fields.instants).ok;
}

/** A timeline item's deleted flag as the export reads it: JSON `true` or `false`, or absent. */
function isDeletedFlag(value: unknown): boolean {
  return value === undefined || value === null || typeof value === 'boolean';
}

/** Throws the error zod gives for an item the plain checks refused (returns if zod accepts it). */
function failTransaction(
  item: unknown,
  index: number,
  fields: TransactionFieldMap,
  itemsPath: string | null,
  path: string,
  deletedPath?: string,
): void {
  const at = `${label(itemsPath)}[${index}]`;
  const record = recordSchema.safeParse(item);
  if (!record.success) fail(path, at, record.error.issues[0], 'expected an object');
  const id = stringSchema.safeParse(getPath(item, fields.id));
  if (!id.success) fail(path, `${at}.${fields.id}`, id.error.issues[0], 'expected a string');
  if (deletedPath !== undefined) {
    const flag = getPath(item, deletedPath);
    if (!isDeletedFlag(flag)) {
      // Guessing would publish a deleted transaction as a live one, or the reverse.
      const reason = `is ${JSON.stringify(flag)}, not a JSON boolean (item ${JSON.stringify(id.data)})`;
      throw new PbsResponseError(path, `${at}.${deletedPath}`, reason, false);
    }
    if (flag === true) return;
  }
  const date = instantSchema(fields.instants ?? DEFAULT_INSTANT_READING).safeParse(
    getPath(item, fields.date),
  );
  if (!date.success) fail(path, `${at}.${fields.date}`, date.error.issues[0], 'expected a date');
}

/**
 * Reads the date-bounds response: each bound an instant, a calendar date, or both null (an empty
 * portfolio), read as the shape's `instants` say. A calendar date stands for its whole day (see
 * {@link readBound}): the earliest bound is the day's first instant, the latest its last, so a
 * plan built on them covers that day's transactions. Bounds that contradict each other (only one
 * null, or the latest before the earliest) are refused by field: planning from them would give an
 * empty, finished-looking report.
 */
export function parseDateBounds(body: unknown, shape: ServiceShape, path: string): DateBounds {
  const { earliestPath, latestPath } = shape.dateBounds;
  const read = (fieldPath: string, end: 'first' | 'last'): Date | null => {
    const value = getPath(body, fieldPath);
    if (value === null) return null;
    const bound = readBound(value, shape.instants);
    if (!bound.ok) {
      throw new PbsResponseError(
        path,
        fieldPath,
        `expected an instant, a calendar date or null: ${bound.reason}`,
        false,
      );
    }
    return new Date(bound[end]);
  };
  const earliest = read(earliestPath, 'first');
  const latest = read(latestPath, 'last');
  if ((earliest === null) !== (latest === null)) {
    const [nullField, setField] = earliest === null ? [earliestPath, latestPath] : [latestPath, earliestPath];
    throw new PbsResponseError(
      path,
      nullField,
      `is null while ${setField} is set (inconsistent date-bounds)`,
      false,
    );
  }
  if (earliest !== null && latest !== null && latest.getTime() < earliest.getTime()) {
    throw new PbsResponseError(
      path,
      latestPath,
      `${latest.toISOString()} is before ${earliestPath} ${earliest.toISOString()} (inconsistent date-bounds)`,
      false,
    );
  }
  return { earliest, latest };
}

/** Reads the metadata response: an array of protocol names at `protocolsPath` or the body. */
export function parseProtocols(body: unknown, shape: ServiceShape, path: string): string[] {
  const protocolsPath = shape.metadata.protocolsPath;
  const value = protocolsPath === null ? body : getPath(body, protocolsPath);
  const result = protocolsSchema.safeParse(value);
  if (!result.success)
    fail(path, protocolsPath ?? '(body)', result.error.issues[0], 'expected an array of strings');
  return value as string[];
}
