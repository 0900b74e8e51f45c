/** Signed client of the Portfolio Balance Service API V2. */

export {
  type ExactNumber,
  isExactNumber,
  numberText,
  type ParsedJson,
  parseJson,
  parseJsonValue,
  stringifyJson,
} from '../domain/index.ts';
export { type ReportedBalance, readReportedBalances } from './balances.ts';
export { createPbsClient, type PbsClient, type PbsClientStats } from './client.ts';
export {
  PBS_CLIENT_DEFAULTS,
  type PbsClientConfig,
  type PbsCredentials,
  type PbsLogger,
  type PbsRetryOptions,
  resolveConfig,
  SERVICE_RATE_LIMIT_PER_KEY,
} from './config.ts';
export { DEMO_DATA_HEADER, DEMO_DATA_VALUE, isDemoDataAnswer } from './demo-data.ts';
export {
  PbsHttpError,
  PbsListingError,
  PbsNetworkError,
  PbsRedirectError,
  PbsRequestError,
  PbsResponseError,
  PbsResponseTooLargeError,
  PbsTimeoutError,
} from './errors.ts';
export type { InstantReading } from './instant.ts';
export { readInstant } from './instant.ts';
export type * from './model.ts';
export type { PageRequestOptions, RequestScheduler } from './pagination.ts';
export { createReadAheadBudget } from './pagination.ts';
export { getPath, setPath } from './path.ts';
export {
  formatInstant,
  formatWindow,
  timelineParams,
  transactionParams,
  validateTransactionQuery,
} from './query.ts';
export { parseRetryAfter } from './retry.ts';
export * from './shape.ts';
export { signRequest } from './signing.ts';
export { endpointTarget, signedUrl } from './transport.ts';
export { decodeUtf8 } from './utf8.ts';
