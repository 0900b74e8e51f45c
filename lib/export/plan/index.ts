/**
 * Stage 1, plan: the export request (parsed and checked), its period, and what to fetch: the
 * windows of the period within the portfolio's date-bounds, and window × protocol shards.
 */
export { type DayEdge, instantWords } from '../../domain/index.ts';
export {
  isDayOrInstant,
  openPeriodCutOff,
  type Period,
  periodLabel,
  periodProblem,
  periodRange,
  resolveChangesSince,
} from './period.ts';
export {
  type ExportPlan,
  keptRange,
  type PlanJson,
  type PlanSource,
  planExport,
  planFromJson,
  planShards,
  planToJson,
  planWindows,
  resolveProtocols,
  type Shard,
  type Window,
} from './plan.ts';
export {
  DEFAULT_REPORTS,
  type ExportRequest,
  type ExportRequestInput,
  ExportRequestSchema,
  FORMATS,
  type FormatName,
  formatPath,
  GainsOptionsSchema,
  type GainsRequestOptions,
  hashFilterConflicts,
  LOT_METHODS,
  MAX_FILTER_TEXT,
  PROFILE_NAME,
  type ProtocolSelection,
  parseExportRequest,
  parseGainsOptions,
  REPORTS,
  type ReportName,
  type RequestIssue,
  RequestValidationError,
  requestWarnings,
  WINDOW_SIZES,
  type WindowSize,
} from './request.ts';
