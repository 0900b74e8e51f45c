/** Signed client of the Portfolio Balance Service API V2. */
export { type ReportedBalance, readReportedBalances } from './balances.ts';
export { createPbsClient, type PbsClient, type PbsClientStats } from './client.ts';
export {
  PBS_CLIENT_DEFAULTS,
  type PbsClientConfig,
  type PbsCredentials,
  type PbsLogger,
  type PbsRetryOptions,
  resolveConfig,
} from './config.ts';
export { DEMO_DATA_HEADER, DEMO_DATA_VALUE, isDemoDataAnswer } from './demo-data.ts';
export {
  PbsHttpError,
  PbsNetworkError,
  PbsRedirectError,
  PbsRequestError,
  PbsResponseError,
  PbsResponseTooLargeError,
  PbsTimeoutError,
} from './errors.ts';
export {
  type ExactNumber,
  isExactNumber,
  numberText,
  type ParsedJson,
  parseJson,
  parseJsonValue,
  stringifyJson,
} from './exact-json.ts';
export type * from './model.ts';
export type { PageRequestOptions, RequestScheduler } from './pagination.ts';
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
