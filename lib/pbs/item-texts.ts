/**
 * The JSON text of each item of a list response, cut from the body as the service sent it: the
 * export keeps each transaction's own bytes (its snapshot holds what was sent) instead of writing
 * the parsed item out again, which cost as much as parsing it.
 *
 * The body was parsed already (`domain/json/exact-json.ts`), so it is known to be valid JSON: this only finds
 * where the items start and end, jumping from quote to quote inside strings. On the way it reads
 * every number token, so {@link parseListBody} knows without a second scan whether the body needs
 * the lossless parser.
 */
import {
  isExactNumber,
  isInexactNumberToken,
  type ParsedJson,
  parseJson,
  parseJsonExactly,
} from '../domain/index.ts';
import { setPath } from './path.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * A list body parsed as `parseJson` parses it (number tokens a double would change kept as
 * `ExactNumber`s), with the text of each of its items as sent: one scan of the text finds both
 * the items and any such token. Throws `SyntaxError` when the body is not JSON.
 */
export function parseListBody(
  text: string,
  itemsPath: string | null,
): ParsedJson & { itemTexts?: readonly string[] } {
  const value: unknown = JSON.parse(text);
  sawInexactNumber = false;
  const texts = itemTexts(text, itemsPath);
  // No items where the shape says (the caller reports that): the plain parse, without texts.
  if (texts === null) return parseJson(text);
  if (sawInexactNumber) return { value: parseJsonExactly(text), exactNumbers: true, itemTexts: texts };
  return { value, exactNumbers: false, itemTexts: texts };
}

/**
 * {@link parseListBody} for a caller that reads only a few fields of each item and takes the rest
 * from the item's text (the export's fetch): the same value, except that each item that is an
 * object holds only the fields at `fields` (dotted paths) that it has. Every byte of the body is
 * still parsed (a body `JSON.parse` refuses throws here too), but item by item: each item's full
 * parse is garbage at once, instead of a page of parsed items (several MB for a page of 1 000)
 * living until the page has been handled and being copied out of the young generation meanwhile.
 *
 * Items are cut down only when their texts are given: a body whose items could not be cut out is
 * parsed whole, as {@link parseListBody} does, without texts.
 */
export function parseListBodyFields(
  text: string,
  itemsPath: string | null,
  fields: readonly string[],
): ParsedJson & { itemTexts?: readonly string[] } {
  sawInexactNumber = false;
  const found = locateItems(text, itemsPath);
  if (found === null || fields.includes('')) return parseListBody(text, itemsPath);
  const exact = sawInexactNumber;
  // The body around the items, with an empty array in their place: what is left to parse.
  const rest = `${text.slice(0, found.start)}[]${text.slice(found.end)}`;
  const value: unknown = JSON.parse(rest);
  const envelope = exact ? parseJsonExactly(rest) : value;
  const paths = fields.map((field) => field.split('.'));
  const items = found.texts.map((itemText) => {
    const item: unknown = JSON.parse(itemText);
    return fieldsOf(exact ? parseJsonExactly(itemText) : item, paths);
  });
  if (itemsPath === null || itemsPath === '')
    return { value: items, exactNumbers: exact, itemTexts: found.texts };
  setPath(envelope as Record<string, unknown>, itemsPath, items);
  return { value: envelope, exactNumbers: exact, itemTexts: found.texts };
}

/**
 * `item` with only the fields at `paths` (each split into its keys, as `getPath` reads them) it
 * has; an item that is not an object, as it is.
 */
function fieldsOf(item: unknown, paths: readonly (readonly string[])[]): unknown {
  if (!isPlainObject(item)) return item;
  const kept: Record<string, unknown> = {};
  for (const keys of paths) {
    let value: unknown = item;
    for (const key of keys) value = isObject(value) ? value[key] : undefined;
    if (value === undefined) continue;
    // Down the path, creating the objects on the way (`setPath`), then the value.
    let into = kept;
    for (let depth = 0; depth < keys.length - 1; depth++) {
      const key = keys[depth] as string;
      let next = into[key];
      if (!isObject(next)) {
        next = {};
        into[key] = next;
      }
      into = next as Record<string, unknown>;
    }
    into[keys[keys.length - 1] as string] = value;
  }
  return kept;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !Array.isArray(value) && !isExactNumber(value);
}

/**
 * Set by a scan that met a number token whose double, written back, is not the same text (`1.50`,
 * `1e3`, `-0`, more than 15 significant digits): see `domain/json/exact-json.ts`. Scans are synchronous, so
 * one flag serves them all.
 */
let sawInexactNumber = false;

/** Notes the number token `text[start, end)` if a double would not give it back as it is. */
function checkNumber(text: string, start: number, end: number): void {
  if (isInexactNumberToken(text, start, end)) sawInexactNumber = true;
}

/**
 * The text of each element of the array at `itemsPath` (dotted keys from the body; null: the body
 * itself is the array) in the valid JSON `text`, in order; null when the path does not lead to an
 * array through objects. As `JSON.parse` does, the last of repeated keys counts.
 */
export function itemTexts(text: string, itemsPath: string | null): string[] | null {
  return locateItems(text, itemsPath)?.texts ?? null;
}

/** The array of items of a list body: its elements' texts, and where it starts and ends in the body. */
interface ItemsFound {
  texts: string[];
  /** Index of the array's `[`. */
  start: number;
  /** Index just past its `]`. */
  end: number;
}

/** {@link itemTexts}, with where the array is (see {@link ItemsFound}). */
function locateItems(text: string, itemsPath: string | null): ItemsFound | null {
  const segments = itemsPath === null || itemsPath === '' ? [] : itemsPath.split('.');
  return itemsAt(text, skipSpace(text, 0), segments, 0);
}

/** The items under `segments[depth…]` of the value at `at`. */
function itemsAt(text: string, at: number, segments: readonly string[], depth: number): ItemsFound | null {
  if (depth === segments.length) return elements(text, at);
  if (text.charCodeAt(at) !== OPEN_BRACE) return null;
  const key = segments[depth];
  let found: ItemsFound | null = null;
  let position = skipSpace(text, at + 1);
  if (text.charCodeAt(position) === CLOSE_BRACE) return null;
  for (;;) {
    const keyEnd = stringEnd(text, position);
    if (keyEnd < 0) return null;
    const name = keyName(text, position, keyEnd);
    position = skipSpace(text, keyEnd);
    if (text.charCodeAt(position) !== COLON) return null;
    position = skipSpace(text, position + 1);
    let end: number;
    if (name === key && depth + 1 === segments.length) {
      // The array itself: cut into items once, not scanned again to find its end.
      const array = elements(text, position);
      found = array;
      end = array?.end ?? valueEnd(text, position);
    } else {
      // A later copy of the key replaces an earlier one, as in the parsed body.
      if (name === key) found = itemsAt(text, position, segments, depth + 1);
      end = valueEnd(text, position);
    }
    if (end < 0) return null;
    position = skipSpace(text, end);
    const next = text.charCodeAt(position);
    if (next === CLOSE_BRACE) return found;
    if (next !== COMMA) return null;
    position = skipSpace(text, position + 1);
  }
}

/** The text of a key (the string from `start` to `end`), unescaped when it holds escapes. */
function keyName(text: string, start: number, end: number): string {
  const raw = text.slice(start + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(start, end)) as string) : raw;
}

/** The elements of the array at `at`, and where it starts and ends; null when no array starts there. */
function elements(text: string, at: number): ItemsFound | null {
  if (text.charCodeAt(at) !== OPEN_BRACKET) return null;
  const texts: string[] = [];
  let position = skipSpace(text, at + 1);
  if (text.charCodeAt(position) === CLOSE_BRACKET) return { texts, start: at, end: position + 1 };
  for (;;) {
    const end = valueEnd(text, position);
    if (end < 0) return null;
    texts.push(text.slice(position, end));
    position = skipSpace(text, end);
    const next = text.charCodeAt(position);
    if (next === CLOSE_BRACKET) return { texts, start: at, end: position + 1 };
    if (next !== COMMA) return null;
    position = skipSpace(text, position + 1);
  }
}

function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

function skipSpace(text: string, at: number): number {
  let position = at;
  while (position < text.length && isSpace(text.charCodeAt(position))) position++;
  return position;
}

/** Where the string starting at `at` (a quote) ends, past its closing quote; -1 when it does not. */
function stringEnd(text: string, at: number): number {
  if (text.charCodeAt(at) !== QUOTE) return -1;
  let from = at + 1;
  for (;;) {
    const quote = text.indexOf('"', from);
    if (quote < 0) return -1;
    // A quote after an odd number of backslashes is escaped.
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/** Where the value starting at `at` ends; -1 when the text ends first. */
function valueEnd(text: string, at: number): number {
  const first = text.charCodeAt(at);
  if (first === QUOTE) return stringEnd(text, at);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) return containerEnd(text, at);
  // A number, true, false or null: up to the next delimiter.
  const end = scalarEnd(text, at);
  if (isNumberStart(first)) checkNumber(text, at, end);
  return end;
}

/** Where the number, true, false or null starting at `at` ends. */
function scalarEnd(text: string, at: number): number {
  let position = at;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === COMMA || code === CLOSE_BRACE || code === CLOSE_BRACKET || isSpace(code)) break;
    position++;
  }
  return position;
}

function isNumberStart(code: number): boolean {
  return code === MINUS || (code >= DIGIT_0 && code <= DIGIT_9);
}

/** Where the object or array starting at `at` ends, past its closing bracket. */
function containerEnd(text: string, at: number): number {
  let depth = 0;
  let position = at;
  while (position < text.length) {
    const code = text.charCodeAt(position);
    if (code === QUOTE) {
      position = stringEnd(text, position);
      if (position < 0) return -1;
      continue;
    }
    if (isNumberStart(code)) {
      const end = scalarEnd(text, position);
      checkNumber(text, position, end);
      position = end;
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth++;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return position + 1;
    }
    position++;
  }
  return -1;
}
