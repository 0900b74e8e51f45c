/**
 * The HTTP API on Hono: routes (`POST /reports`, `GET /reports/{jobId}`, `GET /reports`,
 * `GET /openapi.json`), request validation with zod schemas, authorization by the caller's JWT
 * claims, and the one mapping of errors to answers.
 */

export { LIST_LIMIT } from '../api-schemas/index.ts';
export {
  API_VERSION,
  type ApiDeps,
  type ApiErrorBody,
  apiError,
  canonicalJson,
  createApi,
  DEFAULT_LINK_EXPIRY_SECONDS,
  type ErrorAnswer,
  errorAnswer,
} from './app.ts';
export {
  ALL_PROFILES,
  CLAIM_NAME,
  callerEvent,
  DEFAULT_PROFILES_CLAIM,
  mayUse,
  type ProfileAccess,
  parseProfilesClaim,
  profileAccess,
} from './authorization.ts';
export { MAX_BODY_BYTES } from './body.ts';
export {
  type ApiEvent,
  type ApiIssue,
  ApiRequestError,
  type ApiResult,
  ForbiddenProfileError,
  InvalidRequestError,
  PayloadTooLargeError,
  RouteNotFoundError,
  UnsupportedMediaTypeError,
} from './errors.ts';
export {
  type FetchHandler,
  type LocalApiServer,
  type LocalApiServerOptions,
  startLocalApiServer,
} from './local-server.ts';
