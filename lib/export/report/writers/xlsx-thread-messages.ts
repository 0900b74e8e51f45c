import type { RowBatch, SheetStart } from './xlsx-book.ts';
import type { PacingStats } from './xlsx-pacing.ts';

/** Messages from the main thread to the XLSX worker. */
export type FromMain =
  | { type: 'sheet'; sheet: SheetStart }
  | { type: 'rows'; batch: RowBatch }
  | { type: 'end-sheet' }
  | { type: 'finish'; front: string[] }
  /** The oldest unacknowledged chunk (or the end) is written into the output. */
  | { type: 'written' };

/** Messages from the XLSX worker to the main thread. */
export type ToMain =
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'end' }
  /** The oldest unacknowledged row batch is written. */
  | { type: 'acked' }
  | { type: 'done'; stats: PacingStats }
  | { type: 'failed'; error: Error };
