import type { RowBatch, WireStyle, WireValue } from './xlsx-book.ts';

/**
 * Builds the {@link RowBatch}es of one sheet: cell values in a plain array, row heights and style
 * ids in an `Int32Array` that crosses to the worker thread without being copied (transferred): a
 * structured clone costs per element, and the ids were half the elements of a batch.
 */
export class BatchBuilder {
  private batch: RowBatch;
  private used = 0;
  private rows = 0;

  constructor(
    private readonly width: number,
    /** Rows a batch holds at most. */
    private readonly maxRows: number,
  ) {
    this.batch = this.empty();
  }

  /** Rows in the batch being built. */
  get size(): number {
    return this.rows;
  }

  /** Styles the book learns with this batch, before its rows. */
  get styles(): WireStyle[] {
    return this.batch.styles;
  }

  /** Adds a row: its height (0: the default), its `width` values and their style ids. */
  add(height: number, values: readonly WireValue[], styleIds: readonly number[]): void {
    const { layout } = this.batch;
    layout[this.used] = height;
    for (let i = 0; i < this.width; i += 1) {
      this.batch.values.push(values[i] ?? null);
      layout[this.used + 1 + i] = styleIds[i] ?? 0;
    }
    this.used += 1 + this.width;
    this.rows += 1;
  }

  /** The batch built so far (undefined when it has no row); a new one is started. */
  take(): RowBatch | undefined {
    if (this.rows === 0) return undefined;
    const full = { ...this.batch, layout: this.batch.layout.subarray(0, this.used) };
    this.batch = this.empty();
    this.used = 0;
    this.rows = 0;
    return full;
  }

  private empty(): RowBatch {
    return {
      width: this.width,
      styles: [],
      values: [],
      layout: new Int32Array(this.maxRows * (1 + this.width)),
    };
  }
}
