import type { Writable } from 'node:stream';
import type ExcelJS from 'exceljs';
import type { Style, Worksheet } from 'exceljs';
import { outputClosed, type PacingStats, type StreamInternals, XlsxPacer } from './xlsx-pacing.ts';
import { type ExcelHelpers, loadHelpers, RowXml } from './xlsx-rows.ts';

/**
 * The exceljs half of the XLSX writer: takes sheets and rows whose cells are already worked out
 * (values, style ids, row heights: `writeXlsx` does that) and streams them into a workbook. It runs
 * on a worker thread (`xlsx-worker.ts`) or on the caller's thread; what it is told, in the wire
 * format below (primitives only, so it crosses a thread by structured clone), is the same either way.
 */

/** A cell value as it crosses threads: dates are epoch milliseconds (their style says `date`). */
export type WireValue = string | number | null | { richText: { text: string }[] };

/** A cell style, by id: `date` marks the style of date cells, whose values are milliseconds. */
export interface WireStyle {
  id: number;
  style: Partial<Style>;
  date: boolean;
}

/** What a new sheet needs: its name and the exceljs options, header and column widths. */
export interface SheetStart {
  name: string;
  widths: number[];
  pageSetup: Partial<ExcelJS.PageSetup>;
  headerFooter: Partial<ExcelJS.HeaderFooter>;
  autoFilterColumns: number;
  header: WireValue[];
  headerAlignments: Partial<ExcelJS.Alignment>[];
  /** Height of the header row in points, or 0 for the default. */
  headerHeight: number;
}

/**
 * Rows of the current sheet, flat: `width` values a row, and in `layout` each row's height (0:
 * the default) followed by its `width` style ids. New styles come first, before the rows that use them.
 */
export interface RowBatch {
  width: number;
  styles: WireStyle[];
  values: WireValue[];
  layout: Int32Array;
}

/** Document properties of the workbook. */
export interface BookProps {
  creator: string;
  /** Epoch milliseconds. */
  created: number;
}

/** How {@link XlsxBook.open} loads exceljs: its writer class, and the helpers of the row writer (`RowXml`). */
export interface BookLoaders {
  writer?: () => Promise<WorkbookWriterClass>;
  /** null: exceljs writes every row itself. */
  helpers?: (() => Promise<ExcelHelpers>) | null;
}

/** exceljs's streaming workbook writer (`ExcelJS.stream.xlsx.WorkbookWriter`). */
export type WorkbookWriterClass = typeof ExcelJS.stream.xlsx.WorkbookWriter;

/** The streaming writer through exceljs's package entry (which loads all of exceljs). */
async function loadFromPackage(): Promise<WorkbookWriterClass> {
  return (await import('exceljs')).default.stream.xlsx.WorkbookWriter;
}

/** Sheet bytes allowed to wait in memory for the zip to reach a new sheet's entry. */
const MAX_UNZIPPED_SHEET_BYTES = 1 << 20;

/** One workbook being streamed into `out` by exceljs, paced on `out`'s and the zip's drain. */
export class XlsxBook {
  private readonly workbook: ExcelJS.stream.xlsx.WorkbookWriter;
  private readonly zip: StreamInternals;
  private readonly pacer: XlsxPacer;
  private readonly outFailed: Promise<never>;
  private readonly styles: { style: Partial<Style>; date: boolean }[] = [];
  private worksheet: Worksheet | undefined;

  private readonly rowXml: RowXml | undefined;

  /**
   * Opens a workbook on `out`. exceljs is loaded here, not with this module: a main thread whose
   * workbooks the worker writes never loads it (about 30 MB of RSS). `load.helpers` null has
   * exceljs write every row itself (tests: the data rows' XML is the same).
   */
  static async open(out: Writable, props: BookProps, load: BookLoaders = {}): Promise<XlsxBook> {
    const [Writer, helpers] = await Promise.all([
      (load.writer ?? loadFromPackage)(),
      load.helpers === null ? undefined : (load.helpers ?? loadHelpers)(),
    ]);
    return new XlsxBook(Writer, out, props, helpers);
  }

  private constructor(
    Writer: WorkbookWriterClass,
    private readonly out: Writable,
    props: BookProps,
    helpers: ExcelHelpers | undefined,
  ) {
    this.rowXml = helpers === undefined ? undefined : new RowXml(helpers);
    this.workbook = new Writer({
      stream: out,
      useSharedStrings: false,
      useStyles: true,
    });
    this.workbook.creator = props.creator;
    this.workbook.created = new Date(props.created);
    this.workbook.modified = this.workbook.created;
    this.zip = (this.workbook as unknown as { zip: StreamInternals }).zip;
    this.pacer = new XlsxPacer(this.zip, out, MAX_UNZIPPED_SHEET_BYTES);
    this.outFailed = failure(out);
  }

  /** Pacing statistics so far. */
  get stats(): PacingStats {
    return this.pacer.stats;
  }

  /** Commits the current sheet (if any) and starts `sheet` with its header row. */
  startSheet(sheet: SheetStart): void {
    this.endSheet();
    const worksheet = this.workbook.addWorksheet(sheet.name, {
      views: [{ state: 'frozen', ySplit: 1 }],
      pageSetup: sheet.pageSetup,
      headerFooter: sheet.headerFooter,
    });
    worksheet.columns = sheet.widths.map((width) => ({ width }));
    worksheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: 1, column: sheet.autoFilterColumns } };
    const header = worksheet.addRow(sheet.header);
    header.font = { bold: true };
    sheet.headerAlignments.forEach((alignment, i) => {
      header.getCell(i + 1).alignment = alignment;
    });
    if (sheet.headerHeight > 0) header.height = sheet.headerHeight;
    header.commit();
    this.rowXml?.reset();
    this.worksheet = worksheet;
  }

  /** Commits the current sheet, if any: its XML is complete. */
  endSheet(): void {
    this.worksheet?.commit();
    this.worksheet = undefined;
  }

  /** Writes a batch of rows into the current sheet; resolves once the pipeline can take more. */
  async addRows(batch: RowBatch): Promise<void> {
    for (const { id, style, date } of batch.styles) this.styles[id] = { style, date };
    const worksheet = this.worksheet;
    if (worksheet === undefined) throw new Error('rows before a sheet');
    const { width, layout } = batch;
    for (let at = 0, row = 0; at < layout.length; at += 1 + width, row += width) {
      const values: (WireValue | Date)[] = new Array(width);
      const styles: Partial<Style>[] = new Array(width);
      for (let i = 0; i < width; i += 1) {
        const value = batch.values[row + i] as WireValue;
        const style = this.styles[layout[at + 1 + i] as number];
        values[i] = style?.date === true && typeof value === 'number' ? new Date(value) : value;
        // Empty cells too: exceljs gives each new cell a style object of its own, which it cannot
        // recognise and works out again.
        styles[i] = style?.style ?? {};
      }
      const height = layout[at] as number;
      if (this.rowXml?.write(worksheet, { values, styles, height }) !== true) {
        this.addRow(worksheet, values, styles, height);
      }
      await this.pacer.afterRow(worksheet);
    }
  }

  /** One row written by exceljs itself. */
  private addRow(
    worksheet: Worksheet,
    values: readonly (WireValue | Date)[],
    styles: readonly Partial<Style>[],
    height: number,
  ): void {
    const added = worksheet.addRow(values as unknown[]);
    styles.forEach((style, i) => {
      added.getCell(i + 1).style = style;
    });
    if (height > 0) added.height = height;
    added.commit();
  }

  /**
   * Commits the last sheet, lists the sheets named in `front` first (tab order only) and finishes
   * the workbook; resolves once `out` has finished.
   */
  async finish(front: readonly string[]): Promise<PacingStats> {
    this.endSheet();
    if (front.length > 0) listFirst(this.workbook, new Set(front));
    await Promise.race([this.workbook.commit(), this.outFailed]);
    return this.pacer.stats;
  }

  /** Gives up: archiver may still emit into the dead pipe; the caller reports `error`. */
  abort(error: unknown): void {
    this.zip.on('error', () => {});
    this.out.destroy(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * Moves the sheets named in `front` to the front of the workbook's sheet list (its tab order):
 * exceljs lists sheets in the order of its internal array, and names each sheet's file and
 * relationship by the sheet's id, so reordering the array before `commit()` moves the tab only.
 */
function listFirst(workbook: ExcelJS.stream.xlsx.WorkbookWriter, front: ReadonlySet<string>): void {
  const internals = workbook as unknown as { _worksheets: ({ name: string } | undefined)[] };
  const sheets = internals._worksheets.filter((sheet) => sheet !== undefined);
  internals._worksheets = [
    ...sheets.filter((sheet) => front.has(sheet.name)),
    ...sheets.filter((sheet) => !front.has(sheet.name)),
  ];
}

/** A promise that rejects once `out` errors or closes early (exceljs would otherwise hang). */
function failure(out: Writable): Promise<never> {
  const failed = new Promise<never>((_, reject) => {
    out.once('error', reject);
    out.once('close', () => {
      if (!out.writableFinished) reject(outputClosed());
    });
  });
  failed.catch(() => {});
  return failed;
}
