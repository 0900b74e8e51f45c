import type { RowBatch } from './xlsx-batch.ts';
import type { BookProps, SheetStart } from './xlsx-book.ts';
import type { PacingStats } from './xlsx-pacing.ts';

/** Messages from the main thread to the XLSX worker. */
export type FromMain =
  /** Start the workbook (the worker may have been started, and its modules loaded, well before). */
  | { type: 'open'; props: BookProps }
  | { type: 'sheet'; sheet: SheetStart }
  | { type: 'rows'; batch: RowBatch }
  | { type: 'end-sheet' }
  | { type: 'finish'; front: string[] }
  /** The oldest unacknowledged chunk (or the end) is written into the output. */
  | { type: 'written' }
  /**
   * Give up: drop the workbook (if any) and end the thread by letting its event loop drain.
   * Workers are never `terminate()`d: Node can abort in zlib's cleanup when one is stopped that way.
   */
  | { type: 'end' };

/** Messages from the XLSX worker to the main thread. */
export type ToMain =
  | { type: 'chunk'; data: Uint8Array }
  | { type: 'end' }
  /** The oldest unacknowledged row batch is written. */
  | { type: 'acked' }
  | { type: 'done'; stats: PacingStats }
  | { type: 'failed'; error: Error };
