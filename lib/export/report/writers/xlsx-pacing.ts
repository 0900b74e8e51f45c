import type { Writable } from 'node:stream';
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import type { Worksheet } from 'exceljs';
import { PbsExportError } from '../../../errors.ts';

/**
 * exceljs 4.4 internals the pacer reads (lib/stream/xlsx/, archiver 5): each worksheet writes its
 * XML into a `StreamBuf` (`worksheet.stream`, 64 KiB batches) whose `write` ignores backpressure;
 * `zip.append` wraps it at once in a readable-stream `PassThrough` (`stream.pipes[0]`), which the
 * zip reads with real backpressure when it reaches that entry and pipes through deflate and
 * archiver into the caller's `out`. So rows pile up in that PassThrough's write buffer whenever
 * `out` is slow or an earlier sheet is still being zipped: its `needDrain` is the signal to wait.
 * readable-stream 2/3 lack `writableNeedDrain`, hence the `_writableState` reads.
 */
interface SheetStreamInternals {
  pipes?: StreamInternals[];
  buffers?: { length: number }[];
}

/** A Node or readable-stream stream's buffer state. */
export interface StreamInternals extends NodeJS.EventEmitter {
  _writableState?: { length: number; needDrain: boolean };
  _readableState?: { length: number };
}

/** Pacing statistics, returned for logs/metrics and asserted by tests. */
export interface PacingStats {
  /** How many times the writer waited for a stream to drain before writing more rows. */
  waits: number;
  /** Largest number of bytes seen buffered between the worksheet and `out` (inclusive). */
  peakBufferedBytes: number;
}

/**
 * Sheet bytes that may wait in the zip's entry for deflate: a few of exceljs's 64 KiB batches, so
 * the XML of the next rows is worked out while the last batch is being compressed. Waiting as soon
 * as the entry's 16 KiB buffer was full (after every batch) made the two take turns.
 */
const MAX_ENTRY_BYTES = 128 * 1024;

/** Adds the backpressure exceljs's streaming writer lacks: call `afterRow` after each `row.commit()`. */
export class XlsxPacer {
  readonly stats: PacingStats = { waits: 0, peakBufferedBytes: 0 };
  /** The entry's buffered bytes when this thread last let the zip run (see `afterRow`). */
  private handedOver = 0;

  constructor(
    private readonly zip: StreamInternals,
    private readonly out: Writable,
    /** Sheet bytes allowed to wait for the zip to reach the entry. */
    private readonly maxUnzippedBytes: number,
  ) {}

  /** Resolves once the pipeline can take more; rejects if `out` or the entry fails or closes. */
  async afterRow(worksheet: Worksheet): Promise<void> {
    const sheet = (worksheet as unknown as { stream: SheetStreamInternals }).stream;
    for (;;) {
      // exceljs keeps writing into a dead pipe without complaint: stop at the next row instead.
      if (this.out.destroyed) throw this.out.errored ?? outputClosed();
      const entry = sheet.pipes?.[0];
      const sheetBytes = (sheet.buffers ?? []).reduce((sum, b) => sum + b.length, 0);
      this.record(sheetBytes, entry);
      const entryBytes = entry?._writableState?.length ?? 0;
      if (this.out.writableNeedDrain) {
        await this.wait(this.out);
      } else if (entry?._writableState?.needDrain && entryBytes > MAX_ENTRY_BYTES) {
        await this.wait(entry);
      } else if (entry === undefined && sheetBytes > this.maxUnzippedBytes) {
        // The zip is still finishing earlier entries and `out` is keeping up: nothing to listen
        // to but archiver's own scheduling, which runs on macrotasks.
        this.stats.waits += 1;
        await nextMacrotask();
      } else {
        if (entryBytes > this.handedOver) {
          // A new batch of XML reached the entry: one turn of the event loop hands it to deflate
          // (on libuv's pool) and takes in what deflate finished, which rows written back to back
          // (microtasks only) would hold up until the next wait.
          await nextMacrotask();
        }
        this.handedOver = entryBytes;
        return;
      }
    }
  }

  private record(sheetBytes: number, entry: StreamInternals | undefined): void {
    const bytes =
      sheetBytes +
      (entry?._writableState?.length ?? 0) +
      (entry?._readableState?.length ?? 0) +
      (this.zip._writableState?.length ?? 0) +
      (this.zip._readableState?.length ?? 0) +
      this.out.writableLength +
      // A worker's output (`PostedOutput`): the chunks posted to the main thread, not yet written.
      ((this.out as { unacknowledgedBytes?: number }).unacknowledgedBytes ?? 0);
    if (bytes > this.stats.peakBufferedBytes) this.stats.peakBufferedBytes = bytes;
  }

  private async wait(stream: NodeJS.EventEmitter): Promise<void> {
    this.stats.waits += 1;
    await drained(stream);
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
