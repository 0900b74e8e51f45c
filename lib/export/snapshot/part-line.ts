import { isExactNumber, parseJsonValue, stringifyJson } from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTransaction, TransactionFieldMap } from '../../pbs/index.ts';
import { getPath, readInstant } from '../../pbs/index.ts';

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
   * parser's scan (`domain/json/exact-json.ts`) of every line.
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
  return partLinePrefix(key, exactNumbers) + partLineJson(item, exactNumbers, sent);
}

/**
 * The start of {@link encodePartLine}'s line, up to the JSON text: for a writer that writes the
 * two pieces one after the other (`NdjsonWriter.writeJson(json, prefix)`) instead of joining them.
 */
export function partLinePrefix(key: PartLineKey, exactNumbers: boolean): string {
  return `${key.at}\t${JSON.stringify(key.id)}\t${exactNumbers ? '' : PLAIN_MARK}`;
}

/**
 * The JSON text of {@link encodePartLine}'s line: `sent` when it is one line, else the item
 * written on one line: parsed again from `sent` when given (the item may be cut down to a few
 * fields, `PageRequestOptions.itemFields`), else `item` itself.
 */
export function partLineJson(item: RawTransaction, exactNumbers: boolean, sent?: string): string {
  if (sent !== undefined && isOneLine(sent)) return sent;
  // Items with number tokens kept as text (see `domain/json/exact-json.ts`) are written with them as sent.
  if (exactNumbers) return stringifyJson(sent === undefined ? item : parseJsonValue(sent));
  return JSON.stringify(sent === undefined ? item : JSON.parse(sent));
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

/**
 * {@link decodePartLine} from the line's bytes (`readNdjsonLineBytes`): only the instant and id
 * are decoded; `json` is the JSON text's bytes (a view of `line`), to be decoded when parsed and
 * written on as they are. A line of bare JSON is decoded and parsed as by {@link decodePartLine}.
 */
export function decodePartLineBytes(line: Buffer, fields: PartLineFields): PartLineBytes {
  if (line[0] === OPEN_BRACE) {
    const { at, id, data } = decodePartLine(line.toString('utf8'), fields);
    return { at, id, json: line, plain: false, ...(data ? { data } : {}) };
  }
  const first = line.indexOf(TAB);
  const second = line.indexOf(TAB, first + 1);
  const plain = line[second + 1] === PLAIN_BYTE;
  return {
    at: instantOfBytes(line, first),
    id: idOfBytes(line, first + 1, second),
    json: line.subarray(second + (plain ? 2 : 1)),
    plain,
  };
}

/** A part line read by {@link decodePartLineBytes}. */
export interface PartLineBytes {
  at: number;
  id: string;
  json: Buffer;
  plain: boolean;
  data?: RawTransaction;
}

const TAB = 0x09;
const OPEN_BRACE = 0x7b;
const PLAIN_BYTE = PLAIN_MARK.charCodeAt(0);
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The instant of a part line, its first `end` bytes: digits are read as they are, anything else by `Number`. */
function instantOfBytes(line: Buffer, end: number): number {
  // A sign, a fraction, an exponent or more digits than a double holds exactly: read by `Number`.
  if (end <= 0 || end > 15) return instantByNumber(line, end);
  let value = 0;
  for (let i = 0; i < end; i += 1) {
    const digit = (line[i] as number) - 0x30;
    if (digit < 0 || digit > 9) return instantByNumber(line, end);
    value = value * 10 + digit;
  }
  return value;
}

function instantByNumber(line: Buffer, end: number): number {
  return Number(line.toString('latin1', 0, Math.max(end, 0)));
}

/** The id of a part line, the JSON string in bytes `[start, end)`: read as it is unless escaped or beyond ASCII. */
function idOfBytes(line: Buffer, start: number, end: number): string {
  let plain = end - start >= 2 && line[start] === QUOTE && line[end - 1] === QUOTE;
  for (let i = start + 1; plain && i < end - 1; i += 1) {
    const byte = line[i] as number;
    plain = byte !== BACKSLASH && byte < 0x80;
  }
  if (plain) return line.toString('latin1', start + 1, end - 1);
  return JSON.parse(line.toString('utf8', start, end)) as string;
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
