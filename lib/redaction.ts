/**
 * Redaction of known secrets (the API key, the API secret, a signature) from text that leaves the
 * process. A server that echoes a secret rarely echoes it raw, and an echo may be cut short.
 *
 * The encodings redacted form a closed list:
 *
 * 1. the secret itself (for a secret of hex digits only, in either case: a signature);
 * 2. JSON string escapes, any character escaped or not: `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`,
 *    `\t`, and `\uXXXX` for any character (`\u0026`; hex digits in either case; astral characters
 *    as a surrogate pair);
 * 3. percent-encoding of its UTF-8 bytes, any character encoded or not, hex digits in either
 *    case; with `+` read as a space (forms) and as itself;
 * 4. HTML character references, any character encoded or not: `&#38;`, `&#x26;` (either case),
 *    `&amp;`, `&lt;`, `&gt;`, `&quot;`, `&apos;`;
 * 5. hex of its UTF-8 bytes, in either case;
 * 6. base64 and base64url of its UTF-8 bytes, with or without padding, alone or inside a longer
 *    encoded text (base64 of `key:secret`, of a JSON body, …): at each of the three byte
 *    alignments, the characters that depend on the secret's bytes alone. The one character at
 *    each edge that mixes secret bits with its neighbours' stays: it holds less than a byte of it.
 *
 * Forms 2–4 are found by decoding the text (one view per family, each decoded character mapped
 * back to the text it came from) and searching the secret in it: one family per echo, so a mix
 * of families (percent-encoded JSON escapes) or an encoding applied twice is not covered, nor are
 * other encodings (quoted-printable, punycode) or a secret split by inserted text.
 *
 * Cut echoes: a text that ends with the first {@link PARTIAL_UNITS} or more characters of a form
 * (bytes, for hex), maybe followed by an incomplete escape, has that end redacted; likewise a
 * text that starts with the last {@link PARTIAL_UNITS} or more. A cut echo thus keeps fewer than
 * `PARTIAL_UNITS` characters of a secret. Text that is shortened (an error body) is redacted
 * before it is cut ({@link redactThenShorten}).
 */

/** Placeholder written where a secret was. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not redacted: they would match ordinary text everywhere. */
const MIN_SECRET_LENGTH = 4;

/** Characters of a form that a cut echo at a text's start or end must show to be redacted. */
export const PARTIAL_UNITS = 4;

/** An incomplete escape after a cut: the start of a percent, JSON or HTML escape, half a pair. */
const CUT_TAIL =
  /^(?:%[0-9A-Fa-f]{0,2}(?:%[0-9A-Fa-f]{0,2}){0,3}|\\(?:u[0-9A-Fa-f]{0,4}(?:\\u?[0-9A-Fa-f]{0,3})?)?|&#?[xX]?[0-9A-Za-z]{0,6}|[0-9A-Fa-f]|[\uD800-\uDBFF])$/;
/** The rest of an escape cut at a text's start: its end, or the low half of a pair. */
const CUT_HEAD =
  /^(?:%?[0-9A-Fa-f]{0,2}(?:%[0-9A-Fa-f]{2}){0,3}|\\?u?[0-9A-Fa-f]{0,4}(?:\\u[0-9A-Fa-f]{4})?|#?[xX]?[0-9A-Za-z]{0,6};|[0-9A-Za-z]{1,6};?|[\uDC00-\uDFFF])$/;
/** Longest fragment either pattern above accepts. */
const MAX_CUT_FRAGMENT = 13;

/**
 * A text as read through one family of escapes: `text` holds the decoded characters (UTF-16
 * units), and decoded unit `i` came from `[starts[i], ends[i])` of the original.
 */
interface View {
  text: string;
  starts: number[];
  ends: number[];
  /** `text` with `A`–`F` lowered, once asked for. */
  lowered?: string;
}

/** The identity view. */
function rawView(text: string): View {
  const starts = Array.from({ length: text.length }, (_, at) => at);
  return { text, starts, ends: starts.map((at) => at + 1) };
}

/**
 * The view of `text` with each match of `escapes` replaced by what `decode` returns for it (the
 * match is kept as it is when `decode` returns null); every other character as it is.
 */
function decodedView(text: string, escapes: RegExp, decode: (match: RegExpExecArray) => string | null): View {
  const view: View = { text: '', starts: [], ends: [] };
  const parts: string[] = [];
  const copy = (from: number, to: number) => {
    parts.push(text.slice(from, to));
    for (let at = from; at < to; at++) {
      view.starts.push(at);
      view.ends.push(at + 1);
    }
  };
  let done = 0;
  for (const match of text.matchAll(escapes)) {
    const decoded = decode(match);
    if (decoded === null) continue;
    copy(done, match.index);
    parts.push(decoded);
    for (let unit = 0; unit < decoded.length; unit++) {
      view.starts.push(match.index);
      view.ends.push(match.index + match[0].length);
    }
    done = match.index + match[0].length;
  }
  copy(done, text.length);
  view.text = parts.join('');
  return view;
}

const JSON_SHORT: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
const HTML_NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** One UTF-8 character as percent escapes (`%C3%A9`), or null for bytes that are not one. */
function percentCharacter(escapes: string): string | null {
  const bytes = Buffer.from(escapes.replace(/%/g, ''), 'hex');
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes) ? text : null;
}

const PERCENT_CHARACTER =
  /%[0-7][0-9A-Fa-f]|%[Cc][2-9A-Fa-f]%[89AaBb][0-9A-Fa-f]|%[Dd][0-9A-Fa-f]%[89AaBb][0-9A-Fa-f]|%[Ee][0-9A-Fa-f](?:%[89AaBb][0-9A-Fa-f]){2}|%[Ff][0-4](?:%[89AaBb][0-9A-Fa-f]){3}/g;

const FORM_ESCAPES = new RegExp(`${PERCENT_CHARACTER.source}|\\+`, 'g');

/** A family of escapes (forms 1–4): whether a text may hold one, and the text read through it. */
interface Family {
  applies(text: string): boolean;
  view(text: string): View;
}

/** Raw, JSON, percent (with and without `+` as space), HTML; the raw view first. */
const FAMILIES: readonly Family[] = [
  { applies: () => true, view: rawView },
  {
    applies: (text) => text.includes('\\'),
    view: (text) =>
      decodedView(text, /\\u([0-9A-Fa-f]{4})|\\(["\\/bfnrt])/g, (m) =>
        m[1] !== undefined
          ? String.fromCharCode(Number.parseInt(m[1], 16))
          : (JSON_SHORT[m[2] as string] ?? (m[2] as string)),
      ),
  },
  {
    applies: (text) => text.includes('%'),
    view: (text) => decodedView(text, PERCENT_CHARACTER, (m) => percentCharacter(m[0])),
  },
  {
    applies: (text) => text.includes('+'),
    view: (text) => decodedView(text, FORM_ESCAPES, (m) => (m[0] === '+' ? ' ' : percentCharacter(m[0]))),
  },
  {
    applies: (text) => text.includes('&'),
    view: (text) =>
      decodedView(text, /&#[xX]([0-9A-Fa-f]{1,6});|&#(\d{1,7});|&(amp|lt|gt|quot|apos);/g, (m) => {
        if (m[3] !== undefined) return HTML_NAMED[m[3]] ?? null;
        const code = m[1] !== undefined ? Number.parseInt(m[1], 16) : Number(m[2]);
        return code <= 0x10ffff ? String.fromCodePoint(code) : null;
      }),
  },
];

/** One text to find in a view, and how short a cut of it may be and still be redacted. */
interface Needle {
  text: string;
  /** Compared with `A`–`F` lowered on both sides (hex digits in either case). */
  caseless: boolean;
  /** Fewest characters of a cut echo that are redacted. */
  minCut: number;
  /** Searched in the raw view only (forms 5 and 6 are not escaped further). */
  rawOnly: boolean;
}

const lowerHex = (text: string) => text.replace(/[A-F]/g, (c) => c.toLowerCase());

/**
 * Form 6's texts: the base64 of the secret alone (with and without padding), then, at each byte
 * alignment, the characters that depend on its bytes alone; each in both alphabets.
 */
function base64Texts(bytes: Buffer): string[] {
  const texts = [bytes.toString('base64'), bytes.toString('base64').replace(/=+$/, '')];
  for (let offset = 0; offset < 3; offset++) {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    // Character j holds bits [6j, 6j + 6); the secret's bits are [8 * offset, 8 * (offset + n)).
    const first = Math.ceil((8 * offset) / 6);
    const end = Math.floor((8 * (offset + bytes.length)) / 6);
    if (end - first >= PARTIAL_UNITS) texts.push(encoded.slice(first, end));
  }
  const both = texts.flatMap((text) => [text, text.replace(/\+/g, '-').replace(/\//g, '_')]);
  return [...new Set(both)];
}

function needlesOf(secret: string): Needle[] {
  const bytes = Buffer.from(secret, 'utf8');
  const hexOnly = /^[0-9A-Fa-f]+$/.test(secret);
  return [
    { text: hexOnly ? lowerHex(secret) : secret, caseless: hexOnly, minCut: PARTIAL_UNITS, rawOnly: false },
    { text: bytes.toString('hex'), caseless: true, minCut: 2 * PARTIAL_UNITS, rawOnly: true },
    ...base64Texts(bytes).map((text) => ({ text, caseless: false, minCut: PARTIAL_UNITS, rawOnly: true })),
  ];
}

/** What a needle is compared with in a view. */
function haystackOf(view: View, needle: Needle): string {
  if (!needle.caseless) return view.text;
  view.lowered ??= lowerHex(view.text);
  return view.lowered;
}

/** Spans `[start, end)` of the original text where `needle` shows whole in `view`. */
function wholeSpans(view: View, needle: Needle): [number, number][] {
  const spans: [number, number][] = [];
  const haystack = haystackOf(view, needle);
  const { text } = needle;
  for (let at = haystack.indexOf(text); at !== -1; at = haystack.indexOf(text, at + 1)) {
    spans.push([view.starts[at] as number, view.ends[at + text.length - 1] as number]);
  }
  return spans;
}

/**
 * The span of an echo cut at the end of `original`: the view, up to an incomplete escape, ends
 * with the start of the needle (an incomplete escape counts as one more character of it).
 */
function cutAtEnd(view: View, needle: Needle, original: string): [number, number] | null {
  const haystack = haystackOf(view, needle);
  const { text } = needle;
  for (let tail = 0; tail <= Math.min(MAX_CUT_FRAGMENT, original.length); tail++) {
    if (tail > 0 && !CUT_TAIL.test(original.slice(original.length - tail))) continue;
    let units = haystack.length;
    while (units > 0 && (view.ends[units - 1] as number) > original.length - tail) units--;
    const kept = haystack.slice(0, units);
    const fewest = tail > 0 ? needle.minCut - 1 : needle.minCut;
    // Candidates start with the needle's first character, the earliest (the longest) first.
    const first = text.charAt(0);
    for (
      let at = kept.indexOf(first, Math.max(0, kept.length - text.length + 1));
      at !== -1 && kept.length - at >= fewest;
      at = kept.indexOf(first, at + 1)
    ) {
      if (text.startsWith(kept.slice(at))) return [view.starts[at] as number, original.length];
    }
  }
  return null;
}

/**
 * The span of an echo cut at the start of `original`: after the rest of an escape (which counts
 * as one more character of the needle), the text read again from there (`viewFrom`) starts with
 * the needle's end.
 */
function cutAtStart(
  viewFrom: (head: number) => View,
  needle: Needle,
  original: string,
): [number, number] | null {
  const { text } = needle;
  for (let head = 0; head <= Math.min(MAX_CUT_FRAGMENT, original.length); head++) {
    if (head > 0 && !CUT_HEAD.test(original.slice(0, head))) continue;
    const view = viewFrom(head);
    const kept = haystackOf(view, needle);
    const fewest = head > 0 ? needle.minCut - 1 : needle.minCut;
    // Candidates end with the needle's last character, the latest (the longest) first.
    const last = text.charAt(text.length - 1);
    const longest = Math.min(text.length - 1, kept.length);
    for (let end = kept.lastIndexOf(last, longest - 1); end >= 0 && end + 1 >= fewest; end--) {
      end = kept.lastIndexOf(last, end);
      if (end < 0 || end + 1 < fewest) break;
      if (text.endsWith(kept.slice(0, end + 1))) return [0, head + (view.ends[end] as number)];
    }
  }
  return null;
}

/**
 * The start of `original` from `head` on, read through `family`, for each `head` asked (kept for
 * the other needles). Only as much is read as the longest needle can take when encoded.
 */
function startViews(family: Family, original: string, reach: number): (head: number) => View {
  const views = new Map<number, View>();
  return (head) => {
    let view = views.get(head);
    if (view === undefined) {
      view = family.view(original.slice(head, head + reach));
      views.set(head, view);
    }
    return view;
  };
}

/** `text` with each of `spans` (merged where they touch) replaced by the placeholder. */
function replaceSpans(text: string, spans: [number, number][]): string {
  if (spans.length === 0) return text;
  spans.sort((a, b) => a[0] - b[0]);
  const parts: string[] = [];
  let done = 0;
  let [start, end] = spans[0] as [number, number];
  for (const [from, to] of spans.slice(1)) {
    if (from <= end) end = Math.max(end, to);
    else {
      parts.push(text.slice(done, start), REDACTED);
      done = end;
      [start, end] = [from, to];
    }
  }
  parts.push(text.slice(done, start), REDACTED, text.slice(end));
  return parts.join('');
}

/**
 * Representative texts of the encodings of `secret` (see the list above): what a test may look
 * for in an output. The redactor finds more than these (mixed and either-case forms).
 */
export function secretForms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8');
  const urlEncoded = encodeURIComponent(secret);
  const jsonEscaped = JSON.stringify(secret).slice(1, -1);
  const everyUnitJson = Array.from(
    { length: secret.length },
    (_, at) => `\\u${secret.charCodeAt(at).toString(16).padStart(4, '0')}`,
  ).join('');
  const base64 = bytes.toString('base64');
  const forms = [
    secret,
    urlEncoded,
    urlEncoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    urlEncoded.replace(/%20/g, '+'),
    encodeURI(secret),
    jsonEscaped,
    jsonEscaped.replace(/\//g, '\\/'),
    jsonEscaped.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
    everyUnitJson,
    everyUnitJson.toUpperCase().replace(/\\U/g, '\\u'),
    secret.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`),
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
    bytes.toString('hex').toUpperCase(),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * A function that replaces every form (see the list above) of each of `secrets` in a text with
 * `[redacted]`, including a cut form at the text's start or end. Empty or very short secrets are
 * ignored.
 */
export function secretRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const wanted = secrets.filter(
    (secret): secret is string => typeof secret === 'string' && secret.length >= MIN_SECRET_LENGTH,
  );
  const needles = [...new Set(wanted)].flatMap(needlesOf);
  if (needles.length === 0) return (text) => text;
  // The longest a needle's cut end can be once encoded (12 characters for one, as `\uD83D\uDE00`).
  const reach = 12 * Math.max(...needles.map((needle) => needle.text.length)) + MAX_CUT_FRAGMENT;
  return (text) => {
    if (text === '') return text;
    const spans: [number, number][] = [];
    FAMILIES.forEach((family, index) => {
      if (!family.applies(text)) return;
      const view = family.view(text);
      const viewFrom = startViews(family, text, reach);
      for (const needle of needles) {
        if (needle.rawOnly && index > 0) continue;
        spans.push(...wholeSpans(view, needle));
        const cuts = [cutAtEnd(view, needle, text), cutAtStart(viewFrom, needle, text)];
        for (const cut of cuts) if (cut !== null) spans.push(cut);
      }
    });
    return replaceSpans(text, spans);
  };
}

/**
 * `text` redacted, then cut to at most `maxLength` characters (never inside a surrogate pair)
 * with `…` where it was cut: redacting first means no cut can leave part of a secret the
 * redactor would no longer recognise. Only the start of a long text is read.
 */
export function redactThenShorten(text: string, redact: (text: string) => string, maxLength: number): string {
  // A window well past the length kept: a secret cut by the window's end is caught as a cut echo.
  const window = text.length > maxLength * 4 + 1024 ? text.slice(0, maxLength * 4 + 1024) : text;
  const redacted = redact(window);
  if (redacted.length <= maxLength) return window.length === text.length ? redacted : `${redacted}…`;
  let end = maxLength;
  if (/[\uD800-\uDBFF]/.test(redacted.charAt(end - 1))) end -= 1;
  return `${redacted.slice(0, end)}…`;
}
