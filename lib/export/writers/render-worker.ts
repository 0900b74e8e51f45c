/**
 * Worker thread entry of {@link ../writers/off-thread.ts}: receives tables and their rows as
 * messages, writes them as one CSV or XLSX file with the in-process writers, and acknowledges
 * each batch of rows once the writer has taken it (the sender's backpressure).
 */
import { createWriteStream } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import type { Row, TableSource, TableSpec } from '../table.ts';
import { type CsvOptions, writeCsv } from './csv.ts';
import { writeXlsx } from './xlsx.ts';

/** What the worker is started with. */
export interface RenderJob {
  format: 'csv' | 'xlsx';
  /** File the report is written to (created or truncated). */
  file: string;
  csv?: CsvOptions;
}

/** Messages to the worker, in order: per table, `table`, its `rows` batches, `end-table`; then `end`. */
export type ToRenderWorker =
  | { type: 'table'; spec: TableSpec }
  | { type: 'rows'; rows: Row[] }
  | { type: 'end-table' }
  | { type: 'end' };

/** Messages from the worker. */
export type FromRenderWorker =
  | { type: 'ack' }
  | { type: 'done'; rows: number }
  | { type: 'error'; name: string; message: string };

const port = parentPort;
if (port === null) throw new Error('render-worker runs in a worker thread only');
const job = workerData as RenderJob;

const inbox: ToRenderWorker[] = [];
let wake: (() => void) | null = null;
port.on('message', (message: ToRenderWorker) => {
  inbox.push(message);
  wake?.();
  wake = null;
});

async function next(): Promise<ToRenderWorker> {
  for (;;) {
    const message = inbox.shift();
    if (message !== undefined) return message;
    await new Promise<void>((resolve) => {
      wake = resolve;
    });
  }
}

async function* rowsOfTable(): AsyncGenerator<Row> {
  for (;;) {
    const message = await next();
    if (message.type === 'end-table') return;
    if (message.type !== 'rows') throw new Error(`render worker: unexpected ${message.type} inside a table`);
    yield* message.rows;
    port?.postMessage({ type: 'ack' } satisfies FromRenderWorker);
  }
}

async function* tables(): AsyncGenerator<TableSource> {
  for (;;) {
    const message = await next();
    if (message.type === 'end') return;
    if (message.type !== 'table') throw new Error(`render worker: unexpected ${message.type} between tables`);
    let read = false;
    yield {
      spec: message.spec,
      rows: () => {
        if (read) throw new Error('render worker: a table is read once');
        read = true;
        return rowsOfTable();
      },
    };
  }
}

async function render(): Promise<number> {
  const out = createWriteStream(job.file);
  if (job.format === 'xlsx') {
    const result = await writeXlsx(tables(), out);
    return result.sheets.reduce((sum, sheet) => sum + sheet.rows, 0);
  }
  const all = tables();
  const first = await all.next();
  if (first.done) throw new Error('render worker: no table to write');
  const { rows } = await writeCsv(first.value, out, job.csv);
  return rows;
}

render().then(
  (rows) => port.postMessage({ type: 'done', rows } satisfies FromRenderWorker),
  (error: unknown) => {
    const failure = error instanceof Error ? error : new Error(String(error));
    port.postMessage({
      type: 'error',
      name: failure.name,
      message: failure.message,
    } satisfies FromRenderWorker);
  },
);
