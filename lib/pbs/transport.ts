import type { PbsCredentials } from './config.ts';
import { PbsHttpError, PbsNetworkError, PbsResponseError, PbsTimeoutError } from './errors.ts';
import { parseRetryAfter } from './retry.ts';
import { signRequest, timestampText } from './signing.ts';

/** One request before signing. */
export interface RequestTarget {
  /** Origin and path of the URL, no query string. */
  endpoint: string;
  /** Encoded query string of the endpoint's own parameters (no timestamp/signature); may be ''. */
  query: string;
  /** The path that is signed: from `/v2`, without the base-URL prefix and without the query. */
  signedPath: string;
  /** URL path (prefix included) used in errors and logs. */
  path: string;
}

/** A successful (2xx) response with a JSON body. */
export interface JsonResponse {
  body: unknown;
  headers: Headers;
  /** The request URL without timestamp and signature, for resolving relative links. */
  unsignedUrl: string;
}

export interface SendOptions {
  fetch: typeof fetch;
  credentials: PbsCredentials;
  timeoutMs: number;
  /** Signing time in ms since the epoch. */
  timestamp: number;
  /** Clock used to read `Retry-After` dates. */
  nowMs: number;
}

const BODY_START_LENGTH = 200;

/** Encodes query parameters in order, repeated names kept, with `%20` for spaces. */
export function encodeQuery(params: readonly (readonly [string, string])[]): string {
  return params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).join('&');
}

/** Builds the target of an endpoint path (starting with `/v2`) under the configured base URL. */
export function endpointTarget(
  baseUrl: string,
  signedPath: string,
  params: readonly (readonly [string, string])[],
): RequestTarget {
  const endpoint = `${baseUrl}${signedPath}`;
  return { endpoint, query: encodeQuery(params), signedPath, path: new URL(endpoint).pathname };
}

/** The full URL of one signed attempt: the endpoint's parameters, then `timestamp`, then `signature`. */
export function signedUrl(target: RequestTarget, timestamp: number, signature: string): string {
  const auth = `timestamp=${timestampText(timestamp)}&signature=${signature}`;
  return `${target.endpoint}?${target.query === '' ? auth : `${target.query}&${auth}`}`;
}

/**
 * Sends one signed GET and reads its whole body within `timeoutMs`. Returns the parsed JSON of a
 * 2xx response; throws `PbsHttpError`, `PbsNetworkError`, `PbsTimeoutError` or (body not JSON)
 * a retryable `PbsResponseError`. Nothing thrown contains the key, the secret or the signature.
 */
export async function sendSigned(target: RequestTarget, options: SendOptions): Promise<JsonResponse> {
  const { credentials } = options;
  const signature = signRequest(target.signedPath, options.timestamp, credentials.apiSecret);
  const url = signedUrl(target, options.timestamp, signature);
  const redact = redactor([credentials.apiKey, credentials.apiSecret, signature]);
  const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': credentials.apiKey };
  if (credentials.profileGuid !== undefined) headers['x-service-profile'] = credentials.profileGuid;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let response: Response;
  let text: string;
  try {
    response = await untilAborted(
      options.fetch(url, { method: 'GET', headers, signal: controller.signal }),
      controller.signal,
    );
    text = await untilAborted(response.text(), controller.signal);
  } catch (error) {
    if (controller.signal.aborted)
      throw new PbsTimeoutError(target.path, options.timeoutMs, { cause: error });
    throw new PbsNetworkError(target.path, redact(describeNetworkError(error)), { cause: error });
  } finally {
    clearTimeout(timer);
  }

  const unsignedUrl = target.query === '' ? target.endpoint : `${target.endpoint}?${target.query}`;
  if (response.status < 200 || response.status > 299) {
    throw httpError(target.path, response, text, redact, options.nowMs);
  }
  try {
    return { body: JSON.parse(text), headers: response.headers, unsignedUrl };
  } catch (error) {
    const reason = text.trim() === '' ? 'empty body' : 'body is not valid JSON (truncated or malformed)';
    throw new PbsResponseError(target.path, '(body)', reason, true, { cause: error });
  }
}

/**
 * Settles with `work`, or rejects as soon as the signal aborts, even when an injected fetch or its
 * body stream ignores the signal (the timeout must cover a stalled body too).
 */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  work.catch(() => {});
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(new Error('aborted by the request timeout'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function httpError(
  path: string,
  response: Response,
  text: string,
  redact: (text: string) => string,
  nowMs: number,
): PbsHttpError {
  let serviceCode: string | null = null;
  let serviceMessage: string | null = null;
  try {
    const parsed: unknown = JSON.parse(text);
    const error = (parsed as { error?: unknown } | null)?.error as
      | { code?: unknown; message?: unknown }
      | undefined;
    if (error && typeof error === 'object' && typeof error.code === 'string') {
      serviceCode = redact(error.code);
      serviceMessage = typeof error.message === 'string' ? redact(error.message) : null;
    }
  } catch {
    // Not JSON: reported through bodyStart below.
  }
  const dateHeader = response.headers.get('date');
  const serverDate = dateHeader === null ? Number.NaN : Date.parse(dateHeader);
  return new PbsHttpError({
    status: response.status,
    path,
    serviceCode,
    serviceMessage,
    bodyStart: serviceCode === null && text !== '' ? redact(text.slice(0, BODY_START_LENGTH)) : null,
    retryAfterMs: parseRetryAfter(response.headers.get('retry-after'), nowMs),
    serverDateMs: Number.isNaN(serverDate) ? null : serverDate,
  });
}

function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown; message?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return error instanceof Error ? error.message : String(error);
}

function redactor(secrets: readonly string[]): (text: string) => string {
  const present = secrets.filter((secret) => secret.length > 0);
  return (text) => present.reduce((result, secret) => result.split(secret).join('[redacted]'), text);
}
