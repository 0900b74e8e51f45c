/** Report writers: one table to CSV, many tables to one XLSX workbook, the PDF tax pack's fonts. */
export { type CsvOptions, writeCsv } from './csv.ts';
export { ReportCellError } from './errors.ts';
export { BUNDLED_FONTS } from './pdf-layout.ts';
export {
  EXCEL_MAX_DATA_ROWS,
  writeXlsx,
  type XlsxOptions,
  type XlsxResult,
  type XlsxSheetResult,
} from './xlsx.ts';
export type { PacingStats } from './xlsx-pacing.ts';
export { StartedWorker, startBookWorker } from './xlsx-thread.ts';
