import { PassThrough, type Writable } from 'node:stream';
import type { RowBatch } from './xlsx-batch.ts';
import { XmlBytes } from './xlsx-bytes.ts';
import { EntryPacer, outputClosed, type PacingStats } from './xlsx-pacing.ts';
import { BatchRows } from './xlsx-rows.ts';
import { type SheetLayout, SheetXml } from './xlsx-sheet.ts';
import { type CellKind, type CellStyle, StyleSheet } from './xlsx-styles.ts';
import { THEME_XML } from './xlsx-theme.ts';
import {
  appXml,
  contentTypesXml,
  coreXml,
  type PackageSheet,
  rootRelsXml,
  workbookRelsXml,
  workbookXml,
} from './xlsx-xml.ts';
import { ZipWriter } from './xlsx-zip.ts';

/**
 * The XML-and-zip half of the XLSX writer: takes sheets and finished rows (`RowBatch`: every cell's
 * value in its final form, its kind and style id, and each row's height, in typed arrays; `writeXlsx`
 * works them out) and streams them into a workbook, writing each data row's XML as bytes straight
 * from those arrays (`BatchRows`). It runs on a worker thread (`xlsx-worker.ts`, the arrays
 * transferred, not copied) or on the caller's thread; what it is told is the same either way.
 *
 * The workbook's parts are written here, not by exceljs, for three reasons, each of which needed
 * exceljs's private internals (an upgrade could break them silently, issue #38):
 * - **Memory.** exceljs's streaming writer applies no backpressure and shows no public sign of how
 *   much XML waits for its zip (591 MB of RSS at 600k rows unpaced): pacing it meant reading its
 *   sheets' streams and its zip's buffers. Here each sheet is a zip entry of this writer's own, a
 *   stream whose `write` says when to wait (`EntryPacer`).
 * - **Speed.** exceljs builds a Row and a Cell object per cell and works out each cell's style;
 *   writing a data row's XML directly took the writer from 4.4–5.4 to 2.9–3.0 CPU-s per 100k
 *   rows, and needed its row counter, pending rows and style registry to do it.
 * - **Tab order.** A sheet written last may be listed first (the Read me): exceljs lists sheets in
 *   the order of a private array.
 * The parts are exceljs 4.4's, byte for byte (`xlsx-book.test.ts` compares every part with what
 * exceljs's own streaming writer writes through its public API), but for `lastModifiedBy`, which
 * names the creator rather than ExcelJS, and apostrophes in a sheet name, which the print titles'
 * reference doubles (`'Bob''s'!$1:$1`; exceljs writes an invalid reference). The zip is written by
 * `ZipWriter` (`xlsx-zip.ts`): archiver 5.3.2's bytes, without its modules.
 */

/** What a new sheet needs: its name, page setup, header and column widths. */
export type SheetStart = SheetLayout;

/** Document properties of the workbook. */
export interface BookProps {
  creator: string;
  /** Epoch milliseconds. */
  created: number;
}

/** Bytes of sheet XML gathered before they are written into the sheet's zip entry at once. */
const CHUNK_BYTES = 64 * 1024;

/**
 * Bytes each side of a sheet's zip entry (a PassThrough) buffers before the writer waits: a chunk
 * each, so the XML of the next rows is worked out while the last chunk is being compressed. The
 * zip reads an entry only once it has finished the earlier ones: a new sheet's first rows wait for
 * that too.
 */
const ENTRY_BYTES = 64 * 1024;

/** A sheet being written: its XML writer, its zip entry, and the XML not yet written into it. */
interface OpenSheet {
  xml: SheetXml;
  entry: PassThrough;
  pending: XmlBytes;
}

/** A style the book was told of, and its index in the workbook once a cell used it. */
interface KnownStyle {
  style: CellStyle;
  index: number | undefined;
}

/** One workbook being streamed into `out`, paced on the zip's and `out`'s drain. */
export class XlsxBook {
  private readonly pacer: EntryPacer;
  private readonly failed: Promise<never>;
  private readonly styleSheet = new StyleSheet();
  private readonly styles: KnownStyle[] = [];
  private readonly sheets: PackageSheet[] = [];
  private readonly created: Date;
  private current: OpenSheet | undefined;
  /** One row's style indexes, filled anew for each row. */
  private indexes = new Int32Array(0);
  private readonly indexOf = (id: number, kind: CellKind): number => this.styleIndex(id, kind);

  /** Opens a workbook on `out`. */
  static async open(out: Writable, props: BookProps): Promise<XlsxBook> {
    return new XlsxBook(out, props);
  }

  private readonly zip: ZipWriter;

  private constructor(
    private readonly out: Writable,
    private readonly props: BookProps,
  ) {
    this.created = new Date(props.created);
    this.zip = new ZipWriter(out, this.created);
    this.failed = failure(out, this.zip);
    // A failure also ends the wait of a sheet's full entry (its drain would never come).
    this.failed.catch((error: unknown) => this.current?.entry.destroy(error as Error));
    this.pacer = new EntryPacer(this.zip, out);
    this.append(THEME_XML, 'xl/theme/theme1.xml');
    this.append(rootRelsXml(), '_rels/.rels');
  }

  /** Pacing statistics so far. */
  get stats(): PacingStats {
    return this.pacer.stats;
  }

  /** Ends the current sheet (if any) and starts `sheet` with its header row. */
  startSheet(sheet: SheetStart): void {
    this.endSheet();
    const id = this.sheets.length + 1;
    const xml = new SheetXml(sheet, this.styleSheet);
    this.sheets.push(xml.packageSheet(id));
    const entry = new PassThrough({ highWaterMark: ENTRY_BYTES });
    // Destroyed with the workbook's failure, which `failed` reports: a wait for its drain ends then.
    entry.on('error', () => {});
    this.append(entry, `xl/worksheets/sheet${id}.xml`);
    const pending = new XmlBytes(CHUNK_BYTES);
    pending.xml(xml.open());
    this.current = { xml, entry, pending };
  }

  /** Ends the current sheet, if any: its XML is complete. */
  endSheet(): void {
    const sheet = this.current;
    if (sheet === undefined) return;
    this.current = undefined;
    sheet.pending.xml(sheet.xml.close());
    sheet.entry.end(sheet.pending.take());
  }

  /** Writes a batch of rows into the current sheet; resolves once the pipeline can take more. */
  async addRows(batch: RowBatch): Promise<void> {
    for (const { id, style } of batch.styles) this.styles[id] = { style, index: undefined };
    const sheet = this.current;
    if (sheet === undefined) throw new Error('rows before a sheet');
    if (this.indexes.length < batch.width) this.indexes = new Int32Array(batch.width);
    const rows = new BatchRows(batch, this.indexes);
    const { pending } = sheet;
    while (!rows.done) {
      rows.next(pending, sheet.xml, this.indexOf);
      if (pending.length >= CHUNK_BYTES) await this.pacer.write(sheet.entry, pending.take());
    }
  }

  /**
   * Ends the last sheet, lists the sheets named in `front` first (tab order only: each keeps its
   * part and `sheetId`) and finishes the workbook; resolves once `out` has finished.
   */
  async finish(front: readonly string[]): Promise<PacingStats> {
    this.endSheet();
    const first = new Set(front);
    const sheets = [
      ...this.sheets.filter((sheet) => first.has(sheet.name)),
      ...this.sheets.filter((sheet) => !first.has(sheet.name)),
    ];
    this.append(contentTypesXml(sheets), '[Content_Types].xml');
    this.append(appXml(sheets), 'docProps/app.xml');
    this.append(coreXml(this.props.creator, this.created), 'docProps/core.xml');
    this.append(this.styleSheet.xml(), 'xl/styles.xml');
    this.append(workbookRelsXml(sheets), 'xl/_rels/workbook.xml.rels');
    this.append(workbookXml(sheets), 'xl/workbook.xml');
    const finished = new Promise<void>((resolve) => this.out.once('finish', resolve));
    await Promise.race([this.zip.finalize().then(() => finished), this.failed]);
    return this.pacer.stats;
  }

  /** Gives up: the zip stops at its next write into the dead output; the caller reports `error`. */
  abort(error: unknown): void {
    const reason = error instanceof Error ? error : new Error(String(error));
    this.current?.entry.destroy(reason);
    this.out.destroy(reason);
  }

  /**
   * The workbook's index of the style with wire id `id`, registered when a cell first uses it
   * (holding a `kind` of value: a style without number format is a date's on a date).
   */
  private styleIndex(id: number, kind: CellKind): number {
    const known = this.styles[id];
    if (known === undefined) return 0;
    known.index ??= this.styleSheet.id(known.style, kind);
    return known.index;
  }

  /** Adds a part to the zip, dated as the workbook was created (the same bytes each time). */
  private append(content: string | PassThrough, name: string): void {
    this.zip.append(content, name);
  }
}

/** A promise that rejects once `out` errors or closes early, or the zip fails. */
function failure(out: Writable, zip: ZipWriter): Promise<never> {
  const failed = new Promise<never>((_, reject) => {
    out.once('error', reject);
    out.once('close', () => {
      if (!out.writableFinished) reject(outputClosed());
    });
    zip.failed.catch(reject);
  });
  failed.catch(() => {});
  return failed;
}
