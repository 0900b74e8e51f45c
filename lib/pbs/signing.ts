import { createHmac } from 'node:crypto';

/**
 * Computes the request signature of the specification: HMAC-SHA256 keyed with the API secret as
 * text, over the endpoint path (starting with `/v2`, no query string, no base-URL prefix)
 * immediately followed by the timestamp in decimal, hex-encoded in lowercase.
 */
export function signRequest(path: string, timestamp: number, apiSecret: string): string {
  return createHmac('sha256', apiSecret)
    .update(`${path}${timestampText(timestamp)}`, 'utf8')
    .digest('hex');
}

/** The timestamp as the decimal integer text used both in the message and in the query. */
export function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) {
    throw new RangeError('timestamp must be a non-negative integer number of milliseconds');
  }
  return timestamp.toString(10);
}
