/**
 * An independent check of SigV4 presigned S3 URLs, as S3 performs it (AWS docs, "Authenticating
 * requests: using query parameters"): canonical request → string to sign → HMAC chain of the
 * secret access key. s3rver does not verify V4 signatures at all (its authentication middleware
 * accepts any), so tests that a tampered link is refused recompute the signature here; the check
 * is first shown to reproduce the signature of a genuine link exactly.
 */
import { createHash, createHmac } from 'node:crypto';

/** What S3 would decide about a presigned GET at `now`. */
export interface PresignVerdict {
  valid: boolean;
  /** `signature` (does not match the request), `expired`, `not yet valid` or `malformed`. */
  reason?: 'signature' | 'expired' | 'not yet valid' | 'malformed';
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();
const sha256Hex = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');

/** RFC 3986 encoding, as SigV4 wants it (`~` kept, everything else outside unreserved escaped). */
function encode(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** The signature S3 expects for `url` (its own `X-Amz-Signature` ignored), for `method`. */
export function expectedSignature(url: string, secretAccessKey: string, method = 'GET'): string {
  const parsed = new URL(url);
  const params = [...parsed.searchParams].filter(([name]) => name !== 'X-Amz-Signature');
  const query = params
    .map(([name, value]) => [encode(name), encode(value)] as const)
    .sort(([a, x], [b, y]) => (a === b ? (x < y ? -1 : 1) : a < b ? -1 : 1))
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
  // S3 signs the path as sent, each segment encoded once.
  const path = parsed.pathname
    .split('/')
    .map((segment) => encode(decodeURIComponent(segment)))
    .join('/');
  const signedHeaders = parsed.searchParams.get('X-Amz-SignedHeaders') ?? '';
  const headers: Record<string, string> = { host: parsed.host };
  const canonicalHeaders = signedHeaders
    .split(';')
    .map((name) => `${name}:${headers[name] ?? ''}\n`)
    .join('');
  const payload = parsed.searchParams.get('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD';
  const canonical = [method, path, query, canonicalHeaders, signedHeaders, payload].join('\n');
  const date = parsed.searchParams.get('X-Amz-Date') ?? '';
  const [, day = '', region = '', service = '', terminator = ''] = (
    parsed.searchParams.get('X-Amz-Credential') ?? ''
  ).split('/');
  const scope = [day, region, service, terminator].join('/');
  const toSign = ['AWS4-HMAC-SHA256', date, scope, sha256Hex(canonical)].join('\n');
  const key = [day, region, service, terminator].reduce<Buffer | string>(
    (current, part) => hmac(current, part),
    `AWS4${secretAccessKey}`,
  );
  return createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
}

/** S3's decision on a presigned GET of `url` at `now`: signature first, then the validity window. */
export function verifyPresignedUrl(
  url: string,
  secretAccessKey: string,
  now: Date,
  method = 'GET',
): PresignVerdict {
  const parsed = new URL(url);
  const date = parsed.searchParams.get('X-Amz-Date') ?? '';
  const expires = Number(parsed.searchParams.get('X-Amz-Expires'));
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
  if (match === null || !Number.isInteger(expires)) return { valid: false, reason: 'malformed' };
  if (expectedSignature(url, secretAccessKey, method) !== parsed.searchParams.get('X-Amz-Signature')) {
    return { valid: false, reason: 'signature' };
  }
  const signedAt = Date.parse(`${match[1]}-${match[2]}-${match[3]}T${match[4]}:${match[5]}:${match[6]}Z`);
  if (now.getTime() < signedAt) return { valid: false, reason: 'not yet valid' };
  if (now.getTime() > signedAt + expires * 1000) return { valid: false, reason: 'expired' };
  return { valid: true };
}
