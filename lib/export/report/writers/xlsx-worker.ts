/**
 * Entry of the worker thread that writes workbooks (see `xlsx-thread.ts`), one after another: each
 * an {@link XlsxBook} whose output is a stream of zip chunks posted back to the main thread, which
 * writes them into the real output and acknowledges each once that output can take more (its
 * backpressure, carried here). exceljs is loaded as the worker starts, before its first workbook
 * is asked for (`xlsx-workers.ts` starts it early).
 */
import { Writable } from 'node:stream';
import { parentPort } from 'node:worker_threads';
import { type BookProps, type WorkbookWriterClass, XlsxBook } from './xlsx-book.ts';
import type { FromMain, ToMain } from './xlsx-thread-messages.ts';

const port = parentPort;
if (port === null) throw new Error('xlsx-worker.ts runs as a worker thread only');

const post = (message: ToMain, transfer?: ArrayBuffer[]) => port.postMessage(message, transfer);

// The streaming writer's own module, the very class `ExcelJS.stream.xlsx.WorkbookWriter` is: the
// package entry would also load exceljs's readers, CSV and browser parts (about 11 MB more RSS).
const Writer: WorkbookWriterClass = (await import('exceljs/lib/stream/xlsx/workbook-writer.js')).default;

/** The workbook being written, and the callbacks of its chunks (then of its end) waiting for acknowledgement. */
let current: { book: XlsxBook; waiting: ((error?: Error | null) => void)[] } | undefined;

/** A new workbook whose output posts its chunks to the main thread. */
async function open(props: BookProps): Promise<void> {
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
  current = { book: await XlsxBook.open(output, props, async () => Writer), waiting };
}

// Workbooks, sheets, rows and finishes are handled one after another; acknowledgements at once (a
// batch may be waiting for them).
let chain: Promise<void> = Promise.resolve();

port.on('message', (message: FromMain) => {
  if (message.type === 'written') {
    current?.waiting.shift()?.();
    return;
  }
  chain = chain.then(() => handle(message)).catch(fail);
});

async function handle(message: Exclude<FromMain, { type: 'written' }>): Promise<void> {
  if (message.type === 'open') return await open(message.props);
  const book = current?.book;
  if (book === undefined) throw new Error(`'${message.type}' before a workbook was opened`);
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
      current = undefined;
      post({ type: 'done', stats });
      return;
    }
  }
}

/** Reports the first failure; later messages are dropped (the main thread terminates the worker). */
function fail(error: unknown): void {
  chain = new Promise(() => {});
  post({ type: 'failed', error: error instanceof Error ? error : new Error(String(error)) });
}
