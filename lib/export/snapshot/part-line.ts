import { PbsExportError } from '../../errors.ts';
import { isExactNumber, parseJsonValue, stringifyJson } from '../../pbs/exact-json.ts';
import { readInstant } from '../../pbs/instant.ts';
import type { RawTransaction } from '../../pbs/model.ts';
import { getPath } from '../../pbs/path.ts';
import type { TransactionFieldMap } from '../../pbs/shape.ts';

/** The fields a part line is ordered and deduplicated by, and how the date is read. */
export type PartLineFields = Pick<TransactionFieldMap, 'id' | 'date' | 'instants'>;

/** One transaction of a part file: its instant and id, its JSON text, and the item if it was parsed. */
export interface PartLine {
  at: number;
  id: string;
  json: string;
  data?: RawTransaction;
  /**
   * True when `JSON.parse` reads `json` exactly: written by `JSON.stringify`, so it holds no number
   * token a double cannot give back. The assembly then parses it natively, without the lossless
   * parser's scan (`pbs/exact-json.ts`) of every line.
   */
  plain?: boolean;
}

/** Marks a part line's JSON as plain (see {@link PartLine.plain}); JSON text itself starts with `{`. */
const PLAIN_MARK = 'p';

/** What a part line is ordered and deduplicated by: the transaction's instant and id. */
export interface PartLineKey {
  at: number;
  id: string;
}

/** The instant and id of `item` (see {@link transactionId}, {@link transactionInstant}). */
export function partLineKey(item: RawTransaction, fields: PartLineFields): PartLineKey {
  const id = transactionId(item, fields);
  return { at: transactionInstant(item, fields, id), id };
}

/**
 * A part file line: the transaction's instant and id ahead of its JSON text, tab-separated
 * (`1735689600000\t"tx-1"\t{…}`), so the assembly can order and deduplicate a window's lines
 * without parsing them. JSON text never holds a raw tab, so the first two tabs split the line. A
 * `p` before the JSON (`…\t"tx-1"\tp{…}`) says it is plain (see {@link PartLine.plain}). `key`,
 * when the caller has it already, is the item's {@link partLineKey}. `sent`, the item's JSON text
 * as the service sent it (`pbs/item-texts.ts`), is written as it is unless it spans lines (an
 * indented body): the snapshot then holds the service's own bytes, parsed once.
 */
export function encodePartLine(
  item: RawTransaction,
  fields: PartLineFields,
  exactNumbers = false,
  key: PartLineKey = partLineKey(item, fields),
  sent?: string,
): string {
  // Items with number tokens kept as text (see `pbs/exact-json.ts`) are written with them as sent.
  const json =
    sent !== undefined && isOneLine(sent) ? sent : exactNumbers ? stringifyJson(item) : JSON.stringify(item);
  return `${key.at}\t${JSON.stringify(key.id)}\t${exactNumbers ? '' : PLAIN_MARK}${json}`;
}

/** True when JSON text holds no line break (outside strings it may hold spaces, never inside). */
function isOneLine(json: string): boolean {
  return !json.includes('\n') && !json.includes('\r');
}

/** Reads a part line; a line of bare JSON (no prefix) is parsed to read its instant and id. */
export function decodePartLine(line: string, fields: PartLineFields): PartLine {
  if (line.startsWith('{')) {
    const data = parseJsonValue(line) as RawTransaction;
    const id = transactionId(data, fields);
    return { at: transactionInstant(data, fields, id), id, json: line, data };
  }
  const first = line.indexOf('\t');
  const second = line.indexOf('\t', first + 1);
  const plain = line.startsWith(PLAIN_MARK, second + 1);
  return {
    at: Number(line.slice(0, first)),
    id: JSON.parse(line.slice(first + 1, second)) as string,
    json: line.slice(second + (plain ? 2 : 1)),
    ...(plain ? { plain } : {}),
  };
}

/** A transaction's id as text: a non-empty string, or a safe integer. */
export function transactionId(item: RawTransaction, fields: Pick<TransactionFieldMap, 'id'>): string {
  const id = getPath(item, fields.id);
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  if (isExactNumber(id) && /^-?\d+$/.test(id.value)) return id.value;
  throw new PbsExportError('invalid_transaction', `transaction without an id at field "${fields.id}"`);
}

/**
 * Milliseconds since the epoch of a transaction's date, read as `fields.instants` says (the one
 * reading of the service's instants, `pbs/instant.ts`: never the machine's zone).
 */
export function transactionInstant(
  item: RawTransaction,
  fields: Pick<TransactionFieldMap, 'date' | 'instants'>,
  id: string,
): number {
  const value = getPath(item, fields.date);
  const result = readInstant(value, fields.instants);
  if (!result.ok) {
    throw new PbsExportError(
      'invalid_transaction',
      `transaction ${id}: field "${fields.date}" is not a date (${JSON.stringify(value)?.slice(0, 40)}): ${result.reason}`,
    );
  }
  return result.ms;
}
