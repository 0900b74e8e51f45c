/**
 * The plain exporter's page scan (`bench/plain-export.ts`): one pass over a list body's text
 * that finds where each item starts and ends (so the snapshot gets the item's own text, not the
 * parsed item written out again), and whether any number token is one a double would not return
 * as sent (so the page is parsed with lossless-json instead of `JSON.parse`). The body is
 * assumed to be JSON (the parse after the scan throws when it is not).
 */
import { isInexactNumberToken } from '../lib/domain/index.ts';

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const MINUS = 0x2d;

/** What one scan of a page found: its items' texts (null when there is no list at the path), and inexact numbers. */
export interface ScannedPage {
  texts: string[] | null;
  inexact: boolean;
}

let inexact = false;

/** Scans `body` for the items of the array at `itemsPath` (segments; empty: the body is the array). */
export function scanPage(body: string, itemsPath: readonly string[]): ScannedPage {
  inexact = false;
  let at = skipSpace(body, 0);
  for (const key of itemsPath) {
    at = valueOfKey(body, at, key);
    if (at < 0) return { texts: null, inexact: scanRest(body) };
  }
  if (body.charCodeAt(at) !== OPEN_BRACKET) return { texts: null, inexact: scanRest(body) };
  const texts: string[] = [];
  at = skipSpace(body, at + 1);
  while (body.charCodeAt(at) !== CLOSE_BRACKET) {
    const end = skipValue(body, at);
    texts.push(body.slice(at, end));
    at = skipSpace(body, end);
    if (body.charCodeAt(at) === COMMA) at = skipSpace(body, at + 1);
  }
  // The numbers outside the list count too (the page is parsed whole): those before it were
  // read while skipping the keys before the list's, those after it are read here.
  scanTokens(body, at, body.length);
  return { texts, inexact };
}

/** Whether the whole body holds an inexact number token (a body without a list). */
function scanRest(body: string): boolean {
  scanTokens(body, 0, body.length);
  return inexact;
}

/** Checks each number token between `from` and `to` (outside strings). */
function scanTokens(body: string, from: number, to: number): void {
  let at = from;
  while (at < to) {
    const code = body.charCodeAt(at);
    if (code === QUOTE) at = stringEnd(body, at);
    else if (code === MINUS || (code >= 0x30 && code <= 0x39)) at = numberEnd(body, at);
    else at += 1;
  }
}

/** In the object at `at`, where the value of `key` starts; -1 when it has none or is no object. */
function valueOfKey(body: string, at: number, key: string): number {
  if (body.charCodeAt(at) !== OPEN_BRACE) return -1;
  let i = skipSpace(body, at + 1);
  while (body.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(body, i);
    const raw = body.slice(i + 1, keyEnd - 1);
    const name = raw.includes('\\') ? (JSON.parse(body.slice(i, keyEnd)) as string) : raw;
    i = skipSpace(body, keyEnd);
    i = skipSpace(body, i + 1); // the colon
    if (name === key) return i;
    i = skipSpace(body, skipValue(body, i));
    if (body.charCodeAt(i) === COMMA) i = skipSpace(body, i + 1);
  }
  return -1;
}

function skipSpace(body: string, at: number): number {
  let i = at;
  for (;;) {
    const code = body.charCodeAt(i);
    if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) return i;
    i += 1;
  }
}

/** The index after the string whose opening quote is at `at`. */
function stringEnd(body: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const quote = body.indexOf('"', i);
    if (quote < 0) throw new SyntaxError('plain export: unterminated string in a page');
    let backslashes = 0;
    while (body.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

/** The index after the number token at `at`, noting an inexact one. */
function numberEnd(body: string, at: number): number {
  let i = at + 1;
  for (;;) {
    const code = body.charCodeAt(i);
    const part =
      (code >= 0x30 && code <= 0x39) ||
      code === 0x2e ||
      code === 0x2d ||
      code === 0x2b ||
      (code | 0x20) === 0x65;
    if (!part) break;
    i += 1;
  }
  if (!inexact && isInexactNumberToken(body, at, i)) inexact = true;
  return i;
}

/** The index after the JSON value starting at `at`. */
function skipValue(body: string, at: number): number {
  const first = body.charCodeAt(at);
  if (first === QUOTE) return stringEnd(body, at);
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) {
    if (first === MINUS || (first >= 0x30 && first <= 0x39)) return numberEnd(body, at);
    let i = at;
    // true, false, null
    while (body.charCodeAt(i) >= 0x61 && body.charCodeAt(i) <= 0x7a) i += 1;
    return i;
  }
  let depth = 0;
  let i = at;
  for (;;) {
    const code = body.charCodeAt(i);
    if (code === QUOTE) {
      i = stringEnd(body, i);
      continue;
    }
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      if (depth === 0) return i + 1;
    } else if (code === MINUS || (code >= 0x30 && code <= 0x39)) {
      i = numberEnd(body, i);
      continue;
    } else if (Number.isNaN(code)) throw new SyntaxError('plain export: a page ends inside a value');
    i += 1;
  }
}
