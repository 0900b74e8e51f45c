import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { signRequest } from '../pbs/index.ts';
import { HttpError } from './errors.ts';
import type { SimulatedProfile } from './types.ts';

/** What authentication needs from one request. */
export interface AuthInput {
  headers: IncomingHttpHeaders;
  params: URLSearchParams;
  /** The path from `/v2` on, without query string or base path: the signed message's path. */
  signedPath: string;
}

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function unauthorized(code: string, message: string): HttpError {
  return new HttpError(401, code, message);
}

/**
 * Checks the spec's authentication: a known `x-api-key`, a decimal `timestamp` within
 * `maxSkewMs` of `nowMs`, and `signature` = lowercase hex HMAC-SHA256(secret, path + timestamp).
 * Then the optional `x-service-profile` must be the key's profile GUID (403 otherwise).
 * Returns the key's profile; throws an `HttpError` (401/403) otherwise.
 */
export function authenticate(
  input: AuthInput,
  profilesByKey: ReadonlyMap<string, SimulatedProfile>,
  nowMs: number,
  maxSkewMs: number,
): SimulatedProfile {
  const apiKey = header(input.headers, 'x-api-key');
  if (apiKey === undefined || apiKey === '')
    throw unauthorized('missing_api_key', 'x-api-key header is required');
  const profile = profilesByKey.get(apiKey);
  if (!profile) throw unauthorized('invalid_api_key', 'x-api-key is not a known API key');
  const timestamps = input.params.getAll('timestamp');
  const timestampText = timestamps[0];
  if (timestamps.length !== 1 || timestampText === undefined || !/^(0|[1-9]\d{0,15})$/.test(timestampText)) {
    throw unauthorized(
      'invalid_timestamp',
      'timestamp query parameter must be one decimal integer of milliseconds',
    );
  }
  const timestamp = Number(timestampText);
  if (!Number.isSafeInteger(timestamp)) {
    throw unauthorized('invalid_timestamp', 'timestamp query parameter is out of range');
  }
  if (Math.abs(timestamp - nowMs) > maxSkewMs) {
    throw unauthorized(
      'timestamp_out_of_range',
      `timestamp is off from the server time by more than ${Math.round(maxSkewMs / 1000)} seconds`,
    );
  }
  const signatures = input.params.getAll('signature');
  const signature = signatures[0];
  if (signatures.length !== 1 || signature === undefined || signature === '') {
    throw unauthorized('missing_signature', 'signature query parameter is required');
  }
  const expected = Buffer.from(signRequest(input.signedPath, timestamp, profile.apiSecret), 'utf8');
  const given = Buffer.from(signature, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw unauthorized('invalid_signature', 'signature does not match the request path and timestamp');
  }
  const requested = header(input.headers, 'x-service-profile');
  if (requested !== undefined && requested.toLowerCase() !== profile.profileGuid.toLowerCase()) {
    throw new HttpError(403, 'profile_not_allowed', 'x-service-profile is not a profile of this API key');
  }
  return profile;
}
