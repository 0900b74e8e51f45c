/**
 * Redaction of known secrets (the API key, the API secret, a signature) from text that leaves the
 * process. A server that echoes a secret rarely echoes it raw: a query string carries it
 * URL-encoded, a JSON error body JSON-escaped, a header dump in base64. Each secret is therefore
 * replaced in every form it could take on its way out.
 */

/** Placeholder written where a secret was. */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not redacted: they would match ordinary text everywhere. */
const MIN_SECRET_LENGTH = 4;

/**
 * The forms of `secret` that text may carry: raw; URL-encoded (`encodeURIComponent`, with upper
 * and lower case hex digits, and `+` for spaces as forms do); JSON-escaped (as `JSON.stringify`
 * writes it inside a string, and with every non-ASCII character as `\uXXXX`); base64, base64url
 * and hex of its UTF-8 bytes.
 */
export function secretForms(secret: string): string[] {
  const urlEncoded = encodeURIComponent(secret);
  const lowerHexUrl = urlEncoded.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase());
  const jsonEscaped = JSON.stringify(secret).slice(1, -1);
  const asciiJson = jsonEscaped.replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  const bytes = Buffer.from(secret, 'utf8');
  const base64 = bytes.toString('base64');
  const forms = [
    secret,
    urlEncoded,
    lowerHexUrl,
    urlEncoded.replace(/%20/g, '+'),
    encodeURI(secret),
    jsonEscaped,
    asciiJson,
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
    bytes.toString('hex'),
  ];
  return [...new Set(forms)].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/**
 * A function that replaces every form (see {@link secretForms}) of each of `secrets` in a text
 * with `[redacted]`, longest forms first so no part of a longer one survives a shorter one.
 * Empty or very short secrets are ignored.
 */
export function secretRedactor(secrets: readonly (string | undefined)[]): (text: string) => string {
  const forms = [
    ...new Set(secrets.filter((secret): secret is string => typeof secret === 'string').flatMap(secretForms)),
  ].sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const pattern = new RegExp(forms.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, REDACTED);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}
