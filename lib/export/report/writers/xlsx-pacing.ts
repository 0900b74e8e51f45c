import type { Writable } from 'node:stream';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import { PbsExportError } from '../../../errors.ts';

/** Pacing statistics, returned for logs/metrics and asserted by tests. */
export interface PacingStats {
  /** How many times the writer waited for a stream to drain before writing more rows. */
  waits: number;
  /** Largest number of bytes seen buffered between the sheet's XML and `out` (inclusive). */
  peakBufferedBytes: number;
}

/** What the pacer reads of a stream: the public buffer lengths of Node's (and readable-stream's) streams. */
interface Buffered {
  readonly writableLength?: number;
  readonly readableLength?: number;
}

/**
 * Writes a sheet's XML into its zip entry with backpressure. The entry is a stream of this
 * writer's own that the zip (archiver) pipes through deflate into `out` once it reaches that
 * entry, so a full entry (`write` returns false) is the signal to wait: for deflate, for `out`
 * (which the zip's pipe waits for), or for the zip to finish an earlier entry. Only public
 * stream state is read.
 */
export class EntryPacer {
  readonly stats: PacingStats = { waits: 0, peakBufferedBytes: 0 };

  constructor(
    private readonly zip: Buffered,
    private readonly out: Writable,
  ) {}

  /**
   * Writes `xml` into `entry`; resolves once it can take more; rejects if `out` is gone, or if
   * the entry errors or closes meanwhile (the workbook destroys it when `out` or the zip fails).
   */
  async write(entry: Writable, xml: string | Uint8Array): Promise<void> {
    // Rows are worked out faster than a dead pipe complains: stop at the next chunk instead.
    if (this.out.destroyed) throw this.out.errored ?? outputClosed();
    const more = entry.write(xml);
    this.record(entry);
    if (!more) {
      this.stats.waits += 1;
      await drained(entry);
    } else {
      // One turn of the event loop hands the chunk to deflate (on libuv's pool) and takes in what
      // deflate finished, which rows written back to back would hold up until the next wait.
      await nextMacrotask();
    }
  }

  private record(entry: Buffered): void {
    const length = (stream: Buffered) => (stream.writableLength ?? 0) + (stream.readableLength ?? 0);
    const bytes =
      length(entry) +
      length(this.zip) +
      this.out.writableLength +
      // A worker's output (`PostedOutput`): the chunks posted to the main thread, not yet written.
      ((this.out as { unacknowledgedBytes?: number }).unacknowledgedBytes ?? 0);
    if (bytes > this.stats.peakBufferedBytes) this.stats.peakBufferedBytes = bytes;
  }
}

/** Resolves on `drain`; rejects on `error`, or on `close` before draining (would wait forever). */
function drained(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      stream.off('drain', onDrain);
      stream.off('error', onError);
      stream.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => done(outputClosed());
    stream.on('drain', onDrain);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** The error for an output stream that closed before the workbook was complete. */
export function outputClosed(): PbsExportError {
  return new PbsExportError('output_closed', 'output stream closed before the XLSX workbook was complete');
}
