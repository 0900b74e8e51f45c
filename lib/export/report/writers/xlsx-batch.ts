import type { CellStyle } from './xlsx-styles.ts';

/**
 * The rows the main thread hands the XLSX writer, finished: every cell's value in its final form
 * (a number, a date's serial day number, or the UTF-8 bytes of the text its cell shows), its kind
 * and its style id, in three typed arrays that cross to the worker thread without being copied
 * (transferred) and are read there without an object per row or cell. New styles come first,
 * before the rows that use them.
 *
 * `layout` holds, per row, its height in points (0: the default) and then, per cell, two ints:
 * `styleId << 3 | kind` and the byte length of its text (0 unless a text kind). Number and date
 * cells take the next entry of `numbers`, text cells the next bytes of `text`, in cell order.
 */
export interface RowBatch {
  width: number;
  styles: WireStyle[];
  layout: Int32Array;
  numbers: Float64Array;
  text: Uint8Array;
}

/** A cell style, by id. */
export interface WireStyle {
  id: number;
  style: CellStyle;
}

/** A cell without value (written only if its style is not the default). */
export const CELL_EMPTY = 0;
/** A number (`<v>`, as JavaScript prints it). */
export const CELL_NUMBER = 1;
/** A date-time as its serial day number (1900 date system). */
export const CELL_DATE = 2;
/** Text written as a string cell (`t="str"`). */
export const CELL_TEXT = 3;
/** Text written as a one-run inline string (`t="inlineStr"`, `<is><r><t>`). */
export const CELL_INLINE = 4;
/** An inline string whose space must be kept (`<t xml:space="preserve">`). */
export const CELL_INLINE_KEPT = 5;
/** The bits of a layout entry that hold the kind. */
export const KIND_BITS = 3;
export const KIND_MASK = (1 << KIND_BITS) - 1;

/** Ints of `layout` per row of `width` cells. */
export function layoutInts(width: number): number {
  return 1 + 2 * width;
}

/** Bytes of text a batch starts with room for (it grows for long texts). */
const TEXT_BYTES = 128 * 1024;

/**
 * Builds the {@link RowBatch}es of one sheet, a row at a time: {@link beginRow}, one call per
 * cell ({@link empty}, {@link number}, {@link text}), {@link endRow}. `transfers`: each batch
 * taken gets new arrays (the taken ones move to the worker); otherwise the same arrays are reused
 * once the batch has been written (same thread).
 */
export class BatchBuilder {
  private layout: Int32Array;
  private numbers: Float64Array;
  private textBuffer: Buffer;
  private styleList: WireStyle[] = [];
  private used = 0;
  private numberCount = 0;
  private textBytes = 0;
  private rows = 0;
  private rowStart = 0;

  constructor(
    private readonly width: number,
    /** Rows a batch holds at most. */
    private readonly maxRows: number,
    private readonly transfers = true,
  ) {
    this.layout = new Int32Array(maxRows * layoutInts(width));
    this.numbers = new Float64Array(maxRows * width);
    this.textBuffer = newTextBuffer(TEXT_BYTES);
  }

  /** Rows in the batch being built. */
  get size(): number {
    return this.rows;
  }

  /** Bytes of text in the batch being built. */
  get bytes(): number {
    return this.textBytes;
  }

  /** Styles the book learns with this batch, before its rows. */
  get styles(): WireStyle[] {
    return this.styleList;
  }

  /** Starts a row. */
  beginRow(): void {
    this.rowStart = this.used;
    this.used += 1;
  }

  /** A cell without value, in style `styleId`. */
  empty(styleId: number): void {
    this.cell(styleId, CELL_EMPTY, 0);
  }

  /** A number or date cell (`kind`: {@link CELL_NUMBER} or {@link CELL_DATE}). */
  number(value: number, kind: number, styleId: number): void {
    this.numbers[this.numberCount] = value;
    this.numberCount += 1;
    this.cell(styleId, kind, 0);
  }

  /** A text cell (`kind`: {@link CELL_TEXT}, {@link CELL_INLINE} or {@link CELL_INLINE_KEPT}): its UTF-8 bytes. */
  text(value: string, kind: number, styleId: number): void {
    // A UTF-16 code unit takes at most 3 bytes of UTF-8 (a pair takes 4 for 2 units).
    const most = this.textBytes + value.length * 3;
    if (most > this.textBuffer.length) {
      const grown = newTextBuffer(Math.max(most, this.textBuffer.length * 2));
      this.textBuffer.copy(grown, 0, 0, this.textBytes);
      this.textBuffer = grown;
    }
    const written = value.length === 0 ? 0 : utf8Write(this.textBuffer, value, this.textBytes);
    this.textBytes += written;
    this.cell(styleId, kind, written);
  }

  /** Ends the row begun last: its height in points (0: the default). */
  endRow(height: number): void {
    this.layout[this.rowStart] = height;
    this.rows += 1;
  }

  /** The batch built so far (undefined when it has no row); a new one is started. */
  take(): RowBatch | undefined {
    if (this.rows === 0) return undefined;
    const full: RowBatch = {
      width: this.width,
      styles: this.styleList,
      layout: this.layout.subarray(0, this.used),
      numbers: this.numbers.subarray(0, this.numberCount),
      text: this.textBuffer.subarray(0, this.textBytes),
    };
    if (this.transfers) {
      this.layout = new Int32Array(this.maxRows * layoutInts(this.width));
      this.numbers = new Float64Array(this.maxRows * this.width);
      this.textBuffer = newTextBuffer(TEXT_BYTES);
    }
    this.styleList = [];
    this.used = 0;
    this.numberCount = 0;
    this.textBytes = 0;
    this.rows = 0;
    return full;
  }

  private cell(styleId: number, kind: number, bytes: number): void {
    this.layout[this.used] = (styleId << KIND_BITS) | kind;
    this.layout[this.used + 1] = bytes;
    this.used += 2;
  }
}

/**
 * Writes `text` as UTF-8 into `buffer` at `offset` (which has room); returns the bytes written.
 * Node's `Buffer#utf8Write` where it has one (what `Buffer#write(…, 'utf8')` calls once it has
 * sorted out its optional arguments, which took a tenth of the main thread's cell work; not
 * documented, so `write` stands in where it is missing).
 */
const utf8Write: (buffer: Buffer, text: string, offset: number) => number =
  typeof (Buffer.prototype as Partial<Utf8Writing>).utf8Write === 'function'
    ? (buffer, text, offset) => (buffer as unknown as Utf8Writing).utf8Write(text, offset)
    : (buffer, text, offset) => buffer.write(text, offset, 'utf8');

interface Utf8Writing {
  utf8Write(text: string, offset: number): number;
}

/** A buffer of its own (not a slice of Node's pool), so that it can be transferred. */
function newTextBuffer(bytes: number): Buffer {
  return Buffer.from(new ArrayBuffer(bytes));
}

/** The buffers of `batch` to transfer with it. */
export function transferList(batch: RowBatch): ArrayBuffer[] {
  return [batch.layout.buffer, batch.numbers.buffer, batch.text.buffer] as ArrayBuffer[];
}
