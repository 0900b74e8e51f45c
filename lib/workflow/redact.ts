/** Keeps failure reasons short and free of anything that looks like a credential. */

const NAMED_VALUE =
  /\b(api[_-]?key|api[_-]?secret|secret|password|passwd|token|signature|authorization|credential|x-amz-[a-z-]+)(["']?\s*[:=]\s*["']?)[^\s"'&,;]+/gi;
const LONG_TOKEN = /[A-Za-z0-9_+/=-]{24,}/g;

/**
 * Replaces `name=value` pairs of credential-like names and every long token that mixes letters
 * and digits (keys, secrets, signatures, session tokens) with `[redacted]`.
 */
export function redactSecrets(text: string): string {
  return text
    .replace(NAMED_VALUE, '$1$2[redacted]')
    .replace(LONG_TOKEN, (token) => (/\d/.test(token) && /[A-Za-z]/.test(token) ? '[redacted]' : token));
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
