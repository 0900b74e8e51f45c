/**
 * Entry of the worker thread that writes a workbook (see `xlsx-thread.ts`): an {@link XlsxBook}
 * whose output is a stream of zip chunks posted back to the main thread, which writes them into the
 * real output and acknowledges each once that output can take more (its backpressure, carried here).
 * The thread ends by itself: after the workbook, or when told to (`end`), it closes its port and lets
 * its event loop drain.
 */
import { parentPort } from 'node:worker_threads';
import { XlsxBook } from './xlsx-book.ts';
import { PostedOutput } from './xlsx-output.ts';
import type { FromMain, ToMain } from './xlsx-thread-messages.ts';

const port = parentPort;
if (port === null) throw new Error('xlsx-worker.ts runs as a worker thread only');

const post = (message: ToMain, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

const output = new PostedOutput((message) =>
  message.type === 'chunk' ? post(message, [message.data.buffer as ArrayBuffer]) : post(message),
);

let book: XlsxBook | undefined;

// Sheets, rows and the finish are handled one after another; acknowledgements and the end at once
// (a batch may be waiting for them).
let chain: Promise<void> = Promise.resolve();

port.on('message', (message: FromMain) => {
  if (message.type === 'written') output.written();
  else if (message.type === 'end') end();
  else chain = chain.then(() => handle(message)).catch(fail);
});

async function handle(message: Exclude<FromMain, { type: 'written' | 'end' }>): Promise<void> {
  if (message.type === 'open') {
    book = await XlsxBook.open(output, message.props);
    return;
  }
  if (book === undefined) throw new Error(`${message.type} before the workbook was opened`);
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

/** Reports the first failure; later messages are dropped (the main thread then sends `end`). */
function fail(error: unknown): void {
  chain = new Promise(() => {});
  post({ type: 'failed', error: error instanceof Error ? error : new Error(String(error)) });
}

/**
 * Drops the workbook, if one was opened (its output is destroyed: a row being written stops at the
 * next one), and closes the port: the thread exits once what it has under way (a deflate) settles.
 */
function end(): void {
  chain = new Promise(() => {});
  book?.abort(new Error('the XLSX workbook was abandoned'));
  port?.close();
}
