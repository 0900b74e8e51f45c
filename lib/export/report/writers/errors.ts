import { PbsExportError } from '../../../errors.ts';

/**
 * A cell's value does not fit its column's kind (e.g. a non-decimal string in a `decimal` column).
 * Names the table, column and 1-based data row so the bad source record can be found; never echoes
 * the value itself beyond a short, escaped preview.
 */
export class ReportCellError extends PbsExportError {
  readonly table: string;
  readonly column: string;
  readonly row: number;

  constructor(table: string, column: string, row: number, reason: string) {
    super('invalid_cell', `${table}.${column} (data row ${row}): ${reason}`);
    this.table = table;
    this.column = column;
    this.row = row;
  }
}

/**
 * The worker thread that writes the workbook (`xlsx-worker.ts`) failed, or stopped before the
 * workbook was complete; `cause` is its error (or says how it exited).
 */
export class XlsxWorkerError extends PbsExportError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('xlsx_worker_failed', `the XLSX writer thread failed: ${reason}`, options);
  }
}

/**
 * The PDF tax pack's font files are nowhere to be found: not in `fonts/` beside a bundle (a
 * function packaged without them) nor in the `dejavu-fonts-ttf` package; `cause` says why not.
 */
export class TaxPackFontsError extends PbsExportError {
  constructor(options?: { cause?: unknown }) {
    super(
      'tax_pack_fonts_missing',
      'the tax pack needs DejaVuSans.ttf and DejaVuSans-Bold.ttf: no fonts/ folder beside the bundle and no dejavu-fonts-ttf package',
      options,
    );
  }
}
