import { PbsExportError } from '../errors.ts';

/**
 * Base of the errors of one service request. `path` is the URL path only (never the query
 * string, which carries the signature). `attempts` is set when the retries end.
 */
export class PbsRequestError extends PbsExportError {
  readonly path: string;
  /** Whether another attempt may succeed (network, timeout, 429, 5xx, unreadable body). */
  readonly retryable: boolean;
  /** Attempts made before this error was thrown; 1 until the retry loop sets it. */
  attempts = 1;

  constructor(
    code: string,
    message: string,
    path: string,
    retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
    this.path = path;
    this.retryable = retryable;
  }

  /** Records the attempt count on the error and in its message. */
  withAttempts(attempts: number): this {
    this.attempts = attempts;
    this.message = `${this.message} (after ${attempts} attempt${attempts === 1 ? '' : 's'})`;
    return this;
  }
}

export interface PbsHttpErrorDetails {
  status: number;
  path: string;
  /** `error.code` of a `{"error":{code,message}}` body, else null. */
  serviceCode: string | null;
  serviceMessage: string | null;
  /** Start (about 200 characters) of a body that is not the documented error shape. */
  bodyStart: string | null;
  /** Wait asked for by `Retry-After`, in ms, when present. */
  retryAfterMs: number | null;
  /** Server time from the `Date` header, in ms, when present. */
  serverDateMs: number | null;
}

/** The service answered with a non-2xx status. 429 and 5xx are retryable. */
export class PbsHttpError extends PbsRequestError {
  readonly status: number;
  readonly serviceCode: string | null;
  readonly serviceMessage: string | null;
  readonly bodyStart: string | null;
  readonly retryAfterMs: number | null;
  readonly serverDateMs: number | null;

  constructor(details: PbsHttpErrorDetails, options?: { cause?: unknown }) {
    const what =
      details.serviceCode !== null
        ? `${details.serviceCode}: ${details.serviceMessage ?? ''}`
        : details.bodyStart
          ? `unexpected error body: ${JSON.stringify(details.bodyStart)}`
          : 'empty error body';
    super(
      'pbs_http_error',
      `PBS GET ${details.path} failed with HTTP ${details.status}: ${what}`,
      details.path,
      details.status === 429 || details.status >= 500,
      options,
    );
    this.status = details.status;
    this.serviceCode = details.serviceCode;
    this.serviceMessage = details.serviceMessage;
    this.bodyStart = details.bodyStart;
    this.retryAfterMs = details.retryAfterMs;
    this.serverDateMs = details.serverDateMs;
  }
}

/** The connection failed or was reset before a full response was read. Retryable. */
export class PbsNetworkError extends PbsRequestError {
  constructor(path: string, detail: string, options?: { cause?: unknown }) {
    super('pbs_network_error', `PBS GET ${path} failed: network error (${detail})`, path, true, options);
  }
}

/** No full response (headers and body) within `timeoutMs`. Retryable. */
export class PbsTimeoutError extends PbsRequestError {
  readonly timeoutMs: number;

  constructor(path: string, timeoutMs: number, options?: { cause?: unknown }) {
    super('pbs_timeout', `PBS GET ${path} timed out after ${timeoutMs} ms`, path, true, options);
    this.timeoutMs = timeoutMs;
  }
}

/**
 * A 2xx response the client cannot use: a body that is not JSON (retryable, e.g. truncated) or
 * one that fails validation (not retryable). `field` names the offending field path.
 */
export class PbsResponseError extends PbsRequestError {
  readonly field: string;

  constructor(
    path: string,
    field: string,
    reason: string,
    retryable: boolean,
    options?: { cause?: unknown },
  ) {
    super(
      'pbs_invalid_response',
      `PBS GET ${path} returned an invalid response: ${field}: ${reason}`,
      path,
      retryable,
      options,
    );
    this.field = field;
  }
}

/**
 * A listing that contradicts itself while being paged: the same page or cursor twice. Not retried
 * request by request (the same request would page the same way), but a whole new listing may
 * succeed, so callers that page a listing again (a shard refetch) treat it as transient.
 */
export class PbsListingError extends PbsResponseError {
  constructor(path: string, field: string, reason: string, options?: { cause?: unknown }) {
    super(path, field, reason, false, options);
  }
}

/**
 * The service answered with a redirect. Redirects are never followed: the request carries the API
 * key and a signed URL, which must not reach another host or leave TLS. Not retryable.
 */
export class PbsRedirectError extends PbsRequestError {
  readonly status: number;
  /** Origin of the `Location` target (never its path or query), or null when there was none. */
  readonly targetOrigin: string | null;

  constructor(path: string, status: number, targetOrigin: string | null, options?: { cause?: unknown }) {
    super(
      'pbs_redirect',
      `PBS GET ${path} answered with a redirect (HTTP ${status}) to ${targetOrigin ?? 'no valid Location'}; ` +
        'redirects are not followed (the request carries credentials): check the base URL',
      path,
      false,
      options,
    );
    this.status = status;
    this.targetOrigin = targetOrigin;
  }
}

/** A response body longer than the client's `maxResponseBytes`. Not retryable. */
export class PbsResponseTooLargeError extends PbsRequestError {
  readonly maxBytes: number;

  constructor(path: string, maxBytes: number, options?: { cause?: unknown }) {
    super(
      'pbs_response_too_large',
      `PBS GET ${path} returned a body over ${maxBytes} bytes (maxResponseBytes); reading stopped there`,
      path,
      false,
      options,
    );
    this.maxBytes = maxBytes;
  }
}
