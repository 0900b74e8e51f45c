import { untilAborted } from '../abort.ts';
import { type ParsedJson, parseJson } from '../domain/index.ts';
import { redactThenShorten, secretRedactor } from '../redaction.ts';
import type { PbsCredentials } from './config.ts';
import {
  PbsHttpError,
  PbsNetworkError,
  PbsRedirectError,
  PbsResponseError,
  PbsResponseTooLargeError,
  PbsTimeoutError,
} from './errors.ts';
import { parseRetryAfter } from './retry.ts';
import { signRequest, timestampText } from './signing.ts';
import { decodeUtf8 } from './utf8.ts';

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
  /** The parsed body; number tokens a double cannot hold are `ExactNumber`s (see `domain/json/exact-json.ts`). */
  body: unknown;
  /** True when the body may hold `ExactNumber`s: write it back with `stringifyJson`. */
  exactNumbers?: boolean;
  /** Each item's JSON text as sent, when the body was parsed as a list (see `item-texts.ts`). */
  itemTexts?: readonly string[];
  headers: Headers;
  /** The request URL without timestamp and signature, for resolving relative links. */
  unsignedUrl: string;
}

export interface SendOptions {
  fetch: typeof fetch;
  credentials: PbsCredentials;
  timeoutMs: number;
  /** Largest body read; a longer one throws `PbsResponseTooLargeError`. */
  maxResponseBytes: number;
  /** Signing time in ms since the epoch. */
  timestamp: number;
  /** Clock used to read `Retry-After` dates. */
  nowMs: number;
  /** How the body is parsed (throws `SyntaxError` when it is not JSON). Default `parseJson`. */
  parse?: BodyParser;
}

/** Parses a response body: its value, whether it may hold `ExactNumber`s, and its items' texts. */
export type BodyParser = (text: string) => ParsedJson & { itemTexts?: readonly string[] };

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
 * Sends one signed GET and reads its whole body within `timeoutMs` and `maxResponseBytes`.
 * Returns the losslessly parsed JSON of a 2xx response; throws `PbsHttpError`, `PbsNetworkError`,
 * `PbsTimeoutError`, `PbsRedirectError` (redirects are never followed), `PbsResponseTooLargeError`
 * or (body not JSON) a retryable `PbsResponseError`. Nothing thrown contains the key, the secret
 * or the signature, in any encoding.
 */
export async function sendSigned(target: RequestTarget, options: SendOptions): Promise<JsonResponse> {
  const { credentials } = options;
  const signature = signRequest(target.signedPath, options.timestamp, credentials.apiSecret);
  const url = signedUrl(target, options.timestamp, signature);
  // Built on the first error only: a successful request has nothing to redact.
  let redactor: ((text: string) => string) | undefined;
  const redact = (text: string) => {
    redactor ??= secretRedactor([credentials.apiKey, credentials.apiSecret, signature]);
    return redactor(text);
  };
  const headers: Record<string, string> = { accept: 'application/json', 'x-api-key': credentials.apiKey };
  if (credentials.profileGuid !== undefined) headers['x-service-profile'] = credentials.profileGuid;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs);
  let response: Response;
  let text: string;
  try {
    // Never follow a redirect: it would carry the key and the signed URL to wherever it points.
    // `untilAborted`: the timeout covers an injected fetch or body stream that ignores the signal.
    response = await untilAborted(
      () => options.fetch(url, { method: 'GET', headers, signal: controller.signal, redirect: 'manual' }),
      controller.signal,
    );
    if (isRedirect(response.status)) {
      await response.body?.cancel().catch(() => {});
      throw new PbsRedirectError(target.path, response.status, redirectOrigin(response, target.endpoint));
    }
    text = await untilAborted(
      () => readBodyText(response, options.maxResponseBytes, target.path),
      controller.signal,
    );
  } catch (error) {
    if (error instanceof PbsRedirectError || error instanceof PbsResponseTooLargeError) throw error;
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
    const parse: BodyParser = options.parse ?? parseJson;
    const { value, exactNumbers, itemTexts } = parse(text);
    return {
      body: value,
      exactNumbers,
      ...(itemTexts === undefined ? {} : { itemTexts }),
      headers: response.headers,
      unsignedUrl,
    };
  } catch (error) {
    const reason = text.trim() === '' ? 'empty body' : 'body is not valid JSON (truncated or malformed)';
    throw new PbsResponseError(target.path, '(body)', reason, true, { cause: error });
  }
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
    // Redacted before it is cut: a secret cut in two would no longer be recognised.
    bodyStart:
      serviceCode === null && text !== '' ? redactThenShorten(text, redact, BODY_START_LENGTH) : null,
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

function isRedirect(status: number): boolean {
  return status >= 300 && status <= 399 && status !== 304;
}

/** Origin of a redirect's `Location` (resolved against the request), or null when unusable. */
function redirectOrigin(response: Response, requestUrl: string): string | null {
  const location = response.headers.get('location');
  if (location === null) return null;
  try {
    const origin = new URL(location, requestUrl).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * Reads a body as UTF-8 text, failing as soon as it exceeds `maxBytes` (a declared
 * `Content-Length` over the limit fails before reading), so an endless body cannot grow the
 * process without bound.
 */
async function readBodyText(response: Response, maxBytes: number, path: string): Promise<string> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    throw new PbsResponseTooLargeError(path, maxBytes);
  }
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    length += value.byteLength;
    if (length > maxBytes) {
      await reader.cancel().catch(() => {});
      throw new PbsResponseTooLargeError(path, maxBytes);
    }
    chunks.push(value);
  }
  return decodeUtf8(Buffer.concat(chunks, length));
}
