/**
 * Where each transaction of a run belongs: the slot of the window its date falls in. The windows
 * are contiguous; the first slot reaches back to the start of the kept range and the last one on
 * to its end, so every instant of the range (the period, or the gains history) has exactly one
 * window, whichever window's search the service returned it in.
 */
import { PbsExportError } from '../../errors.ts';

/** The instants a run keeps: `[start, end)`. */
export interface KeptRange {
  start: Date;
  end: Date;
}

/** Slot positions outside every window. */
export const BEFORE_RANGE = -1;

/** The slots of a run's windows. */
export interface Slots {
  /** Number of windows. */
  readonly count: number;
  /**
   * The index of the window whose slot holds `at`: {@link BEFORE_RANGE} before the range,
   * `count` from its end on.
   */
  slotOf(at: number): number;
  /** The first instant of slot `index`. */
  startOf(index: number): number;
}

/**
 * The slots of `windows` (contiguous, in order) within `range`; without a range, the windows'
 * own span. A range narrower than the windows is widened to them.
 */
export function createSlots(windows: readonly { start: Date; end: Date }[], range?: KeptRange): Slots {
  const count = windows.length;
  const first = windows[0]?.start.getTime() ?? 0;
  const last = windows[count - 1]?.end.getTime() ?? 0;
  const rangeStart = Math.min(range?.start.getTime() ?? first, first);
  const rangeEnd = Math.max(range?.end.getTime() ?? last, last);
  // Slot i starts at starts[i]: the range's start for the first, the window's own start after.
  const starts = windows.map((window, index) => (index === 0 ? rangeStart : window.start.getTime()));
  return {
    count,
    slotOf(at) {
      if (count === 0 || at < rangeStart) return BEFORE_RANGE;
      if (at >= rangeEnd) return count;
      let low = 0;
      let high = count - 1;
      while (low < high) {
        const middle = Math.ceil((low + high) / 2);
        if ((starts[middle] as number) <= at) low = middle;
        else high = middle - 1;
      }
      return low;
    },
    startOf: (index) => (index >= count ? rangeEnd : (starts[index] as number)),
  };
}

/**
 * The service returned a transaction of the kept range in the search of a window more than one
 * window away from the window of its date, after that window was written: the snapshot is written
 * window by window in date order, so the export cannot place it and stops instead of dropping it.
 */
export class StrayTransactionError extends PbsExportError {
  constructor(id: string, at: number, shard: string) {
    super(
      'stray_transaction',
      `transaction ${JSON.stringify(id)} dated ${new Date(at).toISOString()} came in the search of shard ${shard}, ` +
        'more than one window away from the window of its date (already written); the service does not filter by the window asked for. ' +
        'Export with a larger window (--window month or year) so that its date and the search it came in share a window or neighbour',
    );
  }
}
