/**
 * Keeps failure reasons short and free of credentials, and keeps the ids an accountant needs to
 * act on them (transaction ids and hashes, job and run ids, S3 keys).
 *
 * A known secret (the profile's API key and secret) never gets this far: the service client, the
 * one part holding them, redacts every form of them from its errors (`lib/redaction.ts`, in
 * `lib/pbs/transport.ts`). What is redacted here is what looks like a credential whatever its
 * value: the value of a credential-named field, an Authorization scheme's token, a URL's user
 * information, a JSON Web Token, an AWS access key id, a prefixed key (`sk_…`), a private key, and
 * a long base64 text that only a key looks like. A long token of letters and digits alone (an id)
 * is kept: redacting those hid every transaction id as `[redacted]`.
 */

import { REDACTED } from '../redaction.ts';

const NAMED_VALUE =
  /\b(api[_-]?key|api[_-]?secret|secret|password|passwd|token|signature|authorization|credential|x-amz-[a-z-]+)(["']?\s*[:=]\s*["']?)[^\s"'&,;]+/gi;

/** Credential shapes, each with its replacement. */
const CREDENTIAL_SHAPES: readonly [RegExp, string][] = [
  // A private key, to its end (or the text's, when cut).
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$)/g, REDACTED],
  // An Authorization header's scheme and its token or credentials.
  [/\b(Bearer|Basic|Digest|AWS4-HMAC-SHA256)\s+[^\s"',;]+/g, `$1 ${REDACTED}`],
  // The user information of a URL (`https://user:password@host`).
  [/(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@]+@/gi, `$1${REDACTED}@`],
  // A JSON Web Token (header.payload.signature, the header's JSON starting `{"`).
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // An AWS access key id.
  [/\b(?:AKIA|ASIA|ABIA|ACCA|AIDA|AROA)[A-Z0-9]{16}\b/g, REDACTED],
  // A key with a key's prefix (`sk_live_…`, `pk_…`, GitHub's `ghp_…`, Slack's `xoxb-…`).
  [/\b(?:sk|pk|rk|ghp|gho|ghs|xox[abprs])[_-][A-Za-z0-9_-]{12,}/g, REDACTED],
];

/**
 * A base64 text only a key looks like: 32 characters or more with a `+` or `=` padding (no id,
 * word or path has them), or exactly 40 of upper- and lower-case letters, digits and a `/` or
 * `+` (an AWS secret access key).
 */
const BASE64_RUN = /(?<![A-Za-z0-9+/=_.-])[A-Za-z0-9+/]{32,}={0,2}(?![A-Za-z0-9+/=_.-])/g;

function looksLikeBase64Key(run: string): boolean {
  if (run.includes('+') || run.endsWith('=')) return true;
  return run.length === 40 && run.includes('/') && /[a-z]/.test(run) && /[A-Z]/.test(run) && /\d/.test(run);
}

/**
 * `text` with credentials redacted (see the module comment): the value of a credential-named
 * field (`apiSecret=…`, `x-amz-signature=…`) and credential-shaped strings become `[redacted]`;
 * ids, hashes and paths stay.
 */
export function redactSecrets(text: string): string {
  // Shapes first: `Authorization: Bearer x` keeps its scheme for the token to be found after it.
  const shaped = CREDENTIAL_SHAPES.reduce((current, [shape, by]) => current.replace(shape, by), text);
  return shaped
    .replace(NAMED_VALUE, `$1$2${REDACTED}`)
    .replace(BASE64_RUN, (run) => (looksLikeBase64Key(run) ? REDACTED : run));
}

/** Longest failure reason kept in a job record. */
export const MAX_REASON_LENGTH = 300;

/**
 * A short reason from a Step Functions error (`{ Error, Cause }`; a Lambda's Cause is JSON with
 * `errorMessage`): `Name: message`, whitespace collapsed, credentials redacted, no stack trace.
 */
export function failureReason(error: { Error?: string; Cause?: string } | undefined): string {
  const name = error?.Error?.trim() || 'Error';
  let message = error?.Cause?.trim() ?? '';
  try {
    const parsed = JSON.parse(message) as { errorMessage?: unknown };
    if (typeof parsed === 'object' && parsed !== null) {
      message = typeof parsed.errorMessage === 'string' ? parsed.errorMessage : '';
    }
  } catch {
    // Not JSON: a plain cause (States.Timeout and friends), used as it is.
  }
  const text = (message === '' ? name : `${name}: ${message}`).replace(/\s+/g, ' ');
  const safe = redactSecrets(text);
  return safe.length > MAX_REASON_LENGTH ? `${safe.slice(0, MAX_REASON_LENGTH - 1)}…` : safe;
}
