import {
  CELL_DATE,
  CELL_EMPTY,
  CELL_INLINE_KEPT,
  CELL_NUMBER,
  CELL_TEXT,
  KIND_BITS,
  KIND_MASK,
  layoutInts,
  type RowBatch,
} from './xlsx-batch.ts';
import { ascii, type XmlBytes } from './xlsx-bytes.ts';
import type { SheetXml } from './xlsx-sheet.ts';
import type { CellKind } from './xlsx-styles.ts';

/** The workbook's style index of wire style `id` for a cell holding a `kind` of value. */
export type StyleIndexOf = (id: number, kind: CellKind) => number;

/**
 * Writes the rows of one {@link RowBatch} as sheet XML bytes, one row per {@link next}: the
 * elements, attributes and escapes of `SheetXml.row` (exceljs 4.4's), read from the batch's
 * typed arrays with no object per row or cell.
 */
export class BatchRows {
  private at = 0;
  private numberAt = 0;
  private textAt = 0;
  private readonly step: number;

  constructor(
    private readonly batch: RowBatch,
    /** Scratch: one style index per cell. */
    private readonly indexes: Int32Array,
  ) {
    this.step = layoutInts(batch.width);
  }

  /** Whether every row was written. */
  get done(): boolean {
    return this.at >= this.batch.layout.length;
  }

  /**
   * Writes the next row as the sheet's next row into `out`. A row without values or height takes
   * its number but is left out, and the styles of its cells are not registered (`indexOf`).
   */
  next(out: XmlBytes, sheet: SheetXml, indexOf: StyleIndexOf): void {
    const { layout, width } = this.batch;
    const start = this.at;
    this.at += this.step;
    const number = sheet.takeRowNumber();
    const height = layout[start] as number;
    let hasValues = false;
    for (let i = 0, at = start + 1; i < width; i += 1, at += 2) {
      if (((layout[at] as number) & KIND_MASK) !== CELL_EMPTY) hasValues = true;
    }
    if (!hasValues && height === 0) return;
    const { indexes } = this;
    let cells = false;
    for (let i = 0, at = start + 1; i < width; i += 1, at += 2) {
      const entry = layout[at] as number;
      const kind = entry & KIND_MASK;
      const index = indexOf(
        entry >> KIND_BITS,
        kind === CELL_NUMBER ? 'number' : kind === CELL_DATE ? 'date' : 'other',
      );
      indexes[i] = index;
      if (kind !== CELL_EMPTY || index !== 0) cells = true;
    }
    out.put(ROW_OPEN);
    out.int(number);
    if (height !== 0) {
      out.put(HEIGHT_OPEN);
      out.int(height);
      out.put(HEIGHT_CLOSE);
    } else out.put(QUOTE);
    out.put(SPANS_OPEN);
    out.int(width);
    out.put(SPANS_CLOSE);
    if (!cells) {
      out.put(EMPTY_CLOSE);
      return;
    }
    out.put(GT);
    for (let i = 0, at = start + 1; i < width; i += 1, at += 2) {
      this.cell(
        out,
        sheet.cellOpen(i),
        number,
        layout[at] as number,
        layout[at + 1] as number,
        indexes[i] as number,
      );
    }
    out.put(ROW_CLOSE);
  }

  private cell(
    out: XmlBytes,
    open: Uint8Array,
    row: number,
    entry: number,
    bytes: number,
    style: number,
  ): void {
    const kind = entry & KIND_MASK;
    if (kind === CELL_EMPTY && style === 0) return;
    out.put(open);
    out.int(row);
    if (style !== 0) {
      out.put(STYLE_OPEN);
      out.int(style);
    }
    out.put(QUOTE);
    switch (kind) {
      case CELL_EMPTY:
        out.put(EMPTY_CLOSE);
        return;
      case CELL_NUMBER:
      case CELL_DATE:
        out.put(VALUE_OPEN);
        out.number(this.batch.numbers[this.numberAt] as number);
        this.numberAt += 1;
        out.put(VALUE_CLOSE);
        return;
      case CELL_TEXT:
        out.put(STRING_OPEN);
        this.text(out, bytes);
        out.put(VALUE_CLOSE);
        return;
      default: // CELL_INLINE, CELL_INLINE_KEPT
        out.put(kind === CELL_INLINE_KEPT ? INLINE_KEPT_OPEN : INLINE_OPEN);
        this.text(out, bytes);
        out.put(INLINE_CLOSE);
    }
  }

  private text(out: XmlBytes, bytes: number): void {
    out.text(this.batch.text, this.textAt, this.textAt + bytes);
    this.textAt += bytes;
  }
}

const ROW_OPEN = ascii('<row r="');
const HEIGHT_OPEN = ascii('" ht="');
const HEIGHT_CLOSE = ascii('" customHeight="1"');
const QUOTE = ascii('"');
const SPANS_OPEN = ascii(' spans="1:');
const SPANS_CLOSE = ascii('" x14ac:dyDescent="0.25"');
const GT = ascii('>');
const EMPTY_CLOSE = ascii('/>');
const ROW_CLOSE = ascii('</row>');
const STYLE_OPEN = ascii('" s="');
const VALUE_OPEN = ascii('><v>');
const VALUE_CLOSE = ascii('</v></c>');
const STRING_OPEN = ascii(' t="str"><v>');
const INLINE_OPEN = ascii(' t="inlineStr"><is><r><t>');
const INLINE_KEPT_OPEN = ascii(' t="inlineStr"><is><r><t xml:space="preserve">');
const INLINE_CLOSE = ascii('</t></r></is></c>');
