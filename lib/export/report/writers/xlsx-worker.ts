/**
 * Entry of the worker thread that writes a workbook (see `xlsx-thread.ts`): an {@link XlsxBook}
 * whose output is a stream of zip chunks posted back to the main thread, which writes them into the
 * real output and acknowledges each once that output can take more (its backpressure, carried here).
 */
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { type BookProps, XlsxBook } from './xlsx-book.ts';
import type { FromMain, ToMain } from './xlsx-thread-messages.ts';

const port = parentPort;
if (port === null) throw new Error('xlsx-worker.ts runs as a worker thread only');

const post = (message: ToMain, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

/** Callbacks of chunks (then of the end) waiting for the main thread's acknowledgement, in order. */
const waiting: ((error?: Error | null) => void)[] = [];

const output = new Writable({
  highWaterMark: 64 * 1024,
  write(chunk: Buffer, _encoding, callback) {
    // A copy: the chunk may be a view of a buffer other chunks share, which must not be moved away.
    const data = new Uint8Array(chunk);
    waiting.push(callback);
    post({ type: 'chunk', data }, [data.buffer]);
  },
  final(callback) {
    waiting.push(callback);
    post({ type: 'end' });
  },
});

// The streaming writer's own module, the very class `ExcelJS.stream.xlsx.WorkbookWriter` is: the
// package entry would also load exceljs's readers, CSV and browser parts (about 11 MB more RSS).
const book = await XlsxBook.open(
  output,
  (workerData as { props: BookProps }).props,
  async () => (await import('exceljs/lib/stream/xlsx/workbook-writer.js')).default,
);

// Sheets, rows and the finish are handled one after another; acknowledgements at once (a batch
// may be waiting for them).
let chain: Promise<void> = Promise.resolve();

port.on('message', (message: FromMain) => {
  if (message.type === 'written') {
    waiting.shift()?.();
    return;
  }
  chain = chain.then(() => handle(message)).catch(fail);
});

async function handle(message: Exclude<FromMain, { type: 'written' }>): Promise<void> {
  switch (message.type) {
    case 'sheet':
      book.startSheet(message.sheet);
      return;
    case 'end-sheet':
      book.endSheet();
      return;
    case 'rows':
      await book.addRows(message.batch);
      post({ type: 'acked' });
      return;
    case 'finish': {
      const stats = await book.finish(message.front);
      post({ type: 'done', stats });
      port?.close();
      return;
    }
  }
}

/** Reports the first failure; later messages are dropped (the main thread terminates the worker). */
function fail(error: unknown): void {
  chain = new Promise(() => {});
  post({ type: 'failed', error: error instanceof Error ? error : new Error(String(error)) });
}
