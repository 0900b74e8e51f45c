/**
 * Stage 4, report: transactions normalised, the report model (summaries, gains, live rows), the
 * writers (CSV, XLSX), money to the minor unit, the Read me, and `renderReports`, which turns a
 * snapshot into the files of a run in the scratch folder.
 */

export { minorUnit, moneyCell, moneyHeader, toMinorUnit } from '../../domain/index.ts';
export { createGainsFeed, FEE_TREATMENT, type GainsFeed, type GainsFeedOptions } from './gains-feed.ts';
export type { Headline, HeadlineYear } from './headline.ts';
export { createLiveOutputs, type LiveFile, type LiveOutputs } from './live-outputs.ts';
export {
  changeColumns,
  createNormalizer,
  extraPath,
  type MoneyUnits,
  movementColumns,
  type Normalizer,
  type NormalizerOptions,
  parseInstant,
  TransactionDataError,
  transactionColumns,
} from './normalize.ts';
export {
  DEMO_BANNER,
  README_FILE,
  type ReadmeInput,
  readmeLines,
  readmeTable,
  readmeText,
} from './readme.ts';
export {
  ABOUT_MAX_LISTED,
  README_TABLE,
  type RenderedFile,
  type RenderedReports,
  type RenderInput,
  type ReportSetDescription,
  renderReports,
  workbookOptions,
} from './render.ts';
export {
  createReportModel,
  LiveAbandonedError,
  type LiveListener,
  type LiveTables,
  namedTotals,
  observeSnapshot,
  type ReportModel,
} from './report-model.ts';
export type { RowChannel } from './row-channel.ts';
export { type CurrencyTotal, createSummary, mergeTotals, type Summary, TOTAL } from './summary.ts';
export {
  BUNDLED_FONTS,
  type CsvOptions,
  EXCEL_MAX_DATA_ROWS,
  type PacingStats,
  ReportCellError,
  writeCsv,
  writeXlsx,
  type XlsxOptions,
  type XlsxResult,
  type XlsxSheetResult,
} from './writers/index.ts';
