/**
 * The HTTP API: routes (`POST /reports`, `GET /reports/{jobId}`, `GET /reports`), request
 * validation, authorization by the caller's JWT claims, and the mapping of errors to answers.
 */
export {
  type ApiDeps,
  type ApiErrorBody,
  type ApiIssue,
  apiError,
  canonicalJson,
  createApi,
  DEFAULT_LINK_EXPIRY_SECONDS,
  LIST_LIMIT,
  MAX_BODY_BYTES,
} from './api.ts';
export {
  ALL_PROFILES,
  CLAIM_NAME,
  DEFAULT_PROFILES_CLAIM,
  mayUse,
  type ProfileAccess,
  parseProfilesClaim,
  profileAccess,
} from './authorization.ts';
export { ApiAnswer, type ApiEvent, type ApiResult } from './errors.ts';
export { type LocalApiServer, startLocalApiServer, toApiEvent, writeApiResult } from './local-server.ts';
