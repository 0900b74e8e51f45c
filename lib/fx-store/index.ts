/**
 * The published rates files kept in the reports bucket (`rates/{source}/{sha256}/{name}`): the
 * scheduled fetch that keeps them (`fetch.ts`) and the reading the export jobs convert with
 * (`kept.ts`). `lib/fx` parses them; this folder moves them.
 */
export { keepDemoRates } from './demo.ts';
export { RatesFetchError } from './errors.ts';
export {
  type Downloaded,
  downloadPublished,
  ECB_HIST_URL,
  ecbHistoryFile,
  type FetchOutcome,
  fetchPublishedRates,
  HMRC_MONTHLY_URL,
  hmrcMonthlyFiles,
  type PublishedFile,
  publishedFiles,
  type RatesFetchDeps,
  type RatesUrls,
} from './fetch.ts';
export {
  hasKeptRates,
  type KeptFile,
  type KeptRates,
  type KeptRatesStore,
  type KeptSourceSummary,
  keptKey,
  keptSummary,
  listKept,
  newestKept,
  noKeptRates,
  RATES_PREFIX,
  readKeptRates,
  sourcePrefix,
} from './kept.ts';
