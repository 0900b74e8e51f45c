/**
 * Properties of the redactor over its closed list of encodings: generated secrets, each encoding
 * of `redaction.ts`'s list, embedded in text, whole or cut at any point. The check is independent
 * of the redactor: what is left is decoded as the encoding would be read, piece by piece between
 * the placeholders, and must hold no run of {@link PARTIAL_UNITS} characters (or bytes) of the
 * secret. The text around the secret uses characters no secret holds, so any run found is a leak.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PARTIAL_UNITS, REDACTED, redactThenShorten, secretForms, secretRedactor } from './redaction.ts';

/** Characters of generated secrets: every one the encodings treat specially, and none of FILLER's. */
const SECRET_CHARS = [...'ABCXYZabcxyz0189', ...` /+=&"'<>%\\:-_.?#@;,`, 'é', 'ß', '€', '😀', '\n', '\t'];
/** Characters of the text around a secret. */
const FILLER_CHARS = [...'~|^!$*()[]{}'];

const secretArb = fc
  .array(fc.constantFrom(...SECRET_CHARS), { minLength: 8, maxLength: 40 })
  .map((chars) => chars.join(''));
const fillerArb = fc
  .array(fc.constantFrom(...FILLER_CHARS), { maxLength: 12 })
  .map((chars) => chars.join(''));

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
const utf16Escapes = (text: string) =>
  Array.from({ length: text.length }, (_, at) => `\\u${hex(text.charCodeAt(at), 4)}`).join('');

/** How one encoding writes text, and how a reader decodes what is left of it. */
interface Encoding {
  name: string;
  /** The whole message: the secret between `before` and `after`, as a server would echo it. */
  message(before: string, secret: string, after: string): string;
  /** Decodes a piece: text for text encodings, bytes (at every alignment) for byte encodings. */
  decode: { text: (piece: string) => string } | { bytes: (piece: string) => Buffer[] };
}

const decodeJson = (piece: string) =>
  piece.replace(/\\u([0-9a-fA-F]{4})|\\(["\\/bfnrt])/g, (_, code: string | undefined, short: string) =>
    code !== undefined
      ? String.fromCharCode(Number.parseInt(code, 16))
      : (({ b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' } as Record<string, string>)[short] ?? short),
  );
const decodePercent = (piece: string) =>
  piece
    .replace(/\+/g, ' ')
    .replace(/(?:%[0-9a-fA-F]{2})+/g, (run) => Buffer.from(run.replace(/%/g, ''), 'hex').toString('utf8'));
const decodeHtml = (piece: string) =>
  piece
    .replace(/&#[xX]([0-9a-fA-F]+);/g, (_, code: string) => String.fromCodePoint(Number.parseInt(code, 16)))
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code)))
    .replace(
      /&(amp|lt|gt|quot|apos);/g,
      (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name] as string,
    );
const allAlignments = (piece: string, width: number, read: (text: string) => Buffer) =>
  Array.from({ length: width }, (_, at) => read(piece.slice(at)));

const ENCODINGS: Encoding[] = [
  { name: 'raw', message: (b, s, a) => b + s + a, decode: { text: (p) => p } },
  {
    name: 'JSON string',
    message: (b, s, a) => b + JSON.stringify(s).slice(1, -1) + a,
    decode: { text: decodeJson },
  },
  {
    name: 'JSON with \\/',
    message: (b, s, a) => b + JSON.stringify(s).slice(1, -1).replace(/\//g, '\\/') + a,
    decode: { text: decodeJson },
  },
  {
    name: 'JSON, HTML-safe (\\u0026 \\u003c \\u003e)',
    message: (b, s, a) =>
      b +
      JSON.stringify(s)
        .slice(1, -1)
        .replace(/[&<>]/g, (c) => utf16Escapes(c)) +
      a,
    decode: { text: decodeJson },
  },
  {
    name: 'JSON, every character \\uXXXX upper case',
    message: (b, s, a) => b + utf16Escapes(s).toUpperCase().replace(/\\U/g, '\\u') + a,
    decode: { text: decodeJson },
  },
  {
    name: 'encodeURIComponent',
    message: (b, s, a) => b + encodeURIComponent(s) + a,
    decode: { text: decodePercent },
  },
  {
    name: 'percent-encoding, lower-case hex, + for space',
    message: (b, s, a) =>
      b +
      encodeURIComponent(s)
        .replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase())
        .replace(/%20/g, '+') +
      a,
    decode: { text: decodePercent },
  },
  {
    name: 'percent-encoding of every byte, upper-case hex',
    message: (b, s, a) =>
      b + [...Buffer.from(s, 'utf8')].map((byte) => `%${hex(byte, 2).toUpperCase()}`).join('') + a,
    decode: { text: decodePercent },
  },
  {
    name: 'HTML references',
    message: (b, s, a) =>
      b +
      s.replace(
        /[&<>"']/g,
        (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string,
      ) +
      a,
    decode: { text: decodeHtml },
  },
  {
    name: 'HTML references of every character, hex',
    message: (b, s, a) =>
      b + [...s].map((c) => `&#x${(c.codePointAt(0) as number).toString(16)};`).join('') + a,
    decode: { text: decodeHtml },
  },
  {
    name: 'hex, lower case',
    message: (b, s, a) => b + Buffer.from(s, 'utf8').toString('hex') + a,
    decode: { bytes: (p) => allAlignments(p, 2, (t) => Buffer.from(t.replace(/[^0-9a-fA-F]/g, ''), 'hex')) },
  },
  {
    name: 'hex, upper case',
    message: (b, s, a) => b + Buffer.from(s, 'utf8').toString('hex').toUpperCase() + a,
    decode: { bytes: (p) => allAlignments(p, 2, (t) => Buffer.from(t.replace(/[^0-9a-fA-F]/g, ''), 'hex')) },
  },
  {
    name: 'base64 of key:secret and its surroundings',
    message: (b, s, a) => Buffer.from(`${b}key:${s}${a}`, 'utf8').toString('base64'),
    decode: {
      bytes: (p) => allAlignments(p, 4, (t) => Buffer.from(t.replace(/[^A-Za-z0-9+/]/g, ''), 'base64')),
    },
  },
  {
    name: 'base64url of key:secret and its surroundings',
    message: (b, s, a) => Buffer.from(`${b}key:${s}${a}`, 'utf8').toString('base64url'),
    decode: {
      bytes: (p) => allAlignments(p, 4, (t) => Buffer.from(t.replace(/[^A-Za-z0-9_-]/g, ''), 'base64url')),
    },
  },
  {
    name: 'base64 of the secret alone',
    message: (b, s, a) => b + Buffer.from(s, 'utf8').toString('base64') + a,
    decode: {
      bytes: (p) => allAlignments(p, 4, (t) => Buffer.from(t.replace(/[^A-Za-z0-9+/]/g, ''), 'base64')),
    },
  },
];

/** Runs of `PARTIAL_UNITS` characters, or UTF-8 bytes, of the secret found in what is left. */
function leaks(encoding: Encoding, secret: string, redacted: string): string[] {
  const pieces = redacted.split(REDACTED);
  if ('text' in encoding.decode) {
    const decode = encoding.decode.text;
    const decoded = pieces.map(decode);
    const runs = Array.from({ length: secret.length - PARTIAL_UNITS + 1 }, (_, at) =>
      secret.slice(at, at + PARTIAL_UNITS),
    );
    return runs.filter((run) => decoded.some((text) => text.includes(run)));
  }
  const bytes = Buffer.from(secret, 'utf8');
  const decodeBytes = encoding.decode.bytes;
  const decoded = pieces.flatMap(decodeBytes);
  const runs = Array.from({ length: bytes.length - PARTIAL_UNITS + 1 }, (_, at) =>
    bytes.subarray(at, at + PARTIAL_UNITS),
  );
  return runs.filter((run) => decoded.some((piece) => piece.includes(run))).map((run) => run.toString('hex'));
}

const encodingArb = fc.constantFrom(...ENCODINGS);

describe('secretRedactor', () => {
  it('leaves nothing of a secret in any encoding of the list, inside any text', () => {
    fc.assert(
      fc.property(secretArb, encodingArb, fillerArb, fillerArb, (secret, encoding, before, after) => {
        const redacted = secretRedactor([secret])(encoding.message(before, secret, after));
        expect({ encoding: encoding.name, leaks: leaks(encoding, secret, redacted) }).toEqual({
          encoding: encoding.name,
          leaks: [],
        });
      }),
      { numRuns: 600, seed: 20261126 },
    );
  });

  it('leaves fewer than PARTIAL_UNITS of a secret in an echo cut at any point, at its end or its start', () => {
    fc.assert(
      fc.property(
        secretArb,
        encodingArb,
        fillerArb,
        fc.nat(),
        fc.boolean(),
        (secret, encoding, before, cutAt, fromStart) => {
          const message = encoding.message(before, secret, '');
          const at = cutAt % (message.length + 1);
          const cut = fromStart ? message.slice(at) : message.slice(0, at);
          const redacted = secretRedactor([secret])(cut);
          expect({ encoding: encoding.name, leaks: leaks(encoding, secret, redacted) }).toEqual({
            encoding: encoding.name,
            leaks: [],
          });
        },
      ),
      { numRuns: 1000, seed: 20261126 },
    );
  });

  it('redacts every representative form secretForms lists', () => {
    fc.assert(
      fc.property(secretArb, (secret) => {
        const redact = secretRedactor([secret]);
        const left = secretForms(secret).filter((form) => redact(`<${form}>`) !== `<${REDACTED}>`);
        expect(left).toEqual([]);
      }),
      { numRuns: 300, seed: 20261126 },
    );
  });

  it('returns ordinary text unchanged', () => {
    const redact = secretRedactor(['sk_live_9f8e7d6c5b4a', 'pk_live_0a1b2c3d']);
    const text = 'GET /v2/transactions?page=2 failed: HTTP 503 (service unavailable), retrying in 250 ms\n';
    expect(redact(text)).toBe(text);
  });

  it('ignores secrets shorter than four characters', () => {
    expect(secretRedactor(['abc', ''])('abc abc')).toBe('abc abc');
  });
});

describe('redactThenShorten', () => {
  it('returns no part of a secret that the cut would have split', () => {
    const secret = 'Zq8vLr2Xw9KpT4mN7bHc3JdF6';
    const body = `${'x'.repeat(178)}${secret} trailing text`;
    expect(redactThenShorten(body, secretRedactor([secret]), 200)).toBe(
      `${'x'.repeat(178)}[redacted] trailing te…`,
    );
  });

  it('returns a short text whole, redacted', () => {
    expect(redactThenShorten('key=abcd1234', secretRedactor(['abcd1234']), 200)).toBe('key=[redacted]');
  });
});
