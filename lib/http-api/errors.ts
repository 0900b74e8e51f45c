/**
 * Typed errors of the HTTP API: each is answered by the one error handler (`app.ts`) with its
 * status and `{ error: { code, message, field, issues } }`.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { PbsExportError } from '../errors.ts';

/** The event and result types of the Lambda handler (API Gateway HTTP API, payload format 2.0). */
export type ApiEvent = APIGatewayProxyEventV2;
export type ApiResult = APIGatewayProxyStructuredResultV2;

/** One problem of a request, as the API reports it. */
export interface ApiIssue {
  field: string;
  reason: string;
}

/** A request the API refuses with a 4xx status, naming the field and the reason. */
export class ApiRequestError extends PbsExportError {
  constructor(
    readonly status: 400 | 403 | 404 | 413 | 415,
    code: string,
    readonly field: string,
    readonly reason: string,
    options?: { cause?: unknown; message?: string },
  ) {
    super(code, options?.message ?? `${field}: ${reason}`, options);
  }
}

/** 400: a field of the request (path, query, header or body) is invalid. */
export class InvalidRequestError extends ApiRequestError {
  constructor(field: string, reason: string, options?: { cause?: unknown }) {
    super(400, 'invalid_request', field, reason, options);
  }
}

/** 415: the body is not declared `application/json` (with a UTF-8 charset at most). */
export class UnsupportedMediaTypeError extends ApiRequestError {
  constructor(reason: string) {
    super(415, 'unsupported_media_type', 'Content-Type', reason);
  }
}

/** 413: the body is larger than the API reads. */
export class PayloadTooLargeError extends ApiRequestError {
  constructor(maxBytes: number) {
    super(413, 'payload_too_large', 'body', `larger than ${maxBytes} bytes`);
  }
}

/** 403: the caller's authorization does not list the profile (checked before the registry). */
export class ForbiddenProfileError extends ApiRequestError {
  constructor() {
    super(403, 'forbidden_profile', 'profile', 'not allowed for this caller');
  }
}

/** 404: no route matches the method and path. */
export class RouteNotFoundError extends ApiRequestError {
  constructor() {
    super(404, 'not_found', 'route', 'no such route', { message: 'no such route' });
  }
}

/**
 * A set's zip could not be built: a stored file differs from the manifest (size or SHA-256), the
 * manifest is missing or unreadable, or the store failed. No zip is offered; `file` names the
 * file concerned (never a link or a credential).
 */
export class ArchiveError extends PbsExportError {
  constructor(
    readonly file: string,
    reason: string,
    options?: { cause?: unknown },
  ) {
    super('archive_failed', `${file}: ${reason}`, options);
  }
}
