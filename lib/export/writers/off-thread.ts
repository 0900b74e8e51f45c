import { createWriteStream, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { PbsExportError } from '../../errors.ts';
import type { Row, TableSource } from '../table.ts';
import { type CsvOptions, writeCsv } from './csv.ts';
import type { FromRenderWorker, RenderJob, ToRenderWorker } from './render-worker.ts';
import { writeXlsx } from './xlsx.ts';

/** Rows per message to the worker. */
const BATCH_ROWS = 512;
/** Batches sent and not yet taken by the worker's writer before the sender waits. */
const MAX_BATCHES_IN_FLIGHT = 4;

/** The render worker failed; the file it was writing is incomplete. */
export class RenderWorkerError extends PbsExportError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('render_worker', message, options);
  }
}

/**
 * The worker's script beside this module: the TypeScript source when running from source (with
 * tsx's loader in the worker), or `render-worker.mjs` beside a bundle. Null when there is none,
 * as in a bundle built without it.
 */
export function renderWorkerScript(): { url: URL; execArgv: string[] } | null {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    return { url: new URL('./render-worker-source.mjs', here), execArgv: [] };
  }
  const bundled = new URL('./render-worker.mjs', here);
  return existsSync(fileURLToPath(bundled)) ? { url: bundled, execArgv: [] } : null;
}

/**
 * Writes `tables` as one `format` file at `file` in a worker thread, so CSV formatting or the
 * workbook's XML and zip work run beside this thread's fetching and assembling. Rows are read
 * here and sent in batches; at most a few batches wait for the worker, so a slow writer slows the
 * reading of rows, not memory. A CSV file takes the first table only. Resolves with the data
 * rows written; rejects with {@link RenderWorkerError} when the worker fails or cannot start.
 */
export async function writeOffThread(
  format: 'csv' | 'xlsx',
  tables: Iterable<TableSource> | AsyncIterable<TableSource>,
  file: string,
  options: { csv?: CsvOptions; script?: { url: URL; execArgv: string[] } } = {},
): Promise<number> {
  const script = options.script ?? renderWorkerScript();
  if (script === null) throw new RenderWorkerError('the render worker script is not beside this module');
  const job: RenderJob = { format, file, ...(options.csv ? { csv: options.csv } : {}) };
  const worker = new Worker(script.url, { workerData: job, execArgv: script.execArgv });
  let inFlight = 0;
  let taken: (() => void) | null = null;
  const finished = new Promise<number>((resolve, reject) => {
    worker.on('message', (message: FromRenderWorker) => {
      if (message.type === 'ack') {
        inFlight -= 1;
        taken?.();
        taken = null;
      } else if (message.type === 'done') {
        resolve(message.rows);
      } else {
        reject(new RenderWorkerError(`render worker failed: ${message.name}: ${message.message}`));
      }
    });
    worker.once('error', (error) => reject(new RenderWorkerError('render worker crashed', { cause: error })));
    worker.once('exit', (code) => reject(new RenderWorkerError(`render worker exited with code ${code}`)));
  });
  finished.catch(() => {});
  const post = (message: ToRenderWorker) => worker.postMessage(message);
  const send = async (rows: Row[]) => {
    post({ type: 'rows', rows });
    inFlight += 1;
    while (inFlight >= MAX_BATCHES_IN_FLIGHT) {
      await Promise.race([
        new Promise<void>((resolve) => {
          taken = resolve;
        }),
        finished,
      ]);
    }
  };
  try {
    for await (const table of tables) {
      post({ type: 'table', spec: table.spec });
      let batch: Row[] = [];
      for await (const row of table.rows()) {
        batch.push(row);
        if (batch.length === BATCH_ROWS) {
          await send(batch);
          batch = [];
        }
      }
      if (batch.length > 0) await send(batch);
      post({ type: 'end-table' });
      if (format === 'csv') break;
    }
    post({ type: 'end' });
    return await finished;
  } finally {
    await worker.terminate();
  }
}

/**
 * Writes `tables` as one `format` file at `file`: in a worker thread when the render worker's
 * script is there ({@link writeOffThread}), else on this thread. Resolves with the data rows.
 */
export async function writeReportFile(
  format: 'csv' | 'xlsx',
  tables: AsyncIterable<TableSource>,
  file: string,
  options: { csv?: CsvOptions } = {},
): Promise<number> {
  const script = renderWorkerScript();
  if (script !== null) return await writeOffThread(format, tables, file, { ...options, script });
  if (format === 'xlsx') {
    const result = await writeXlsx(tables, createWriteStream(file));
    return result.sheets.reduce((sum, sheet) => sum + sheet.rows, 0);
  }
  for await (const table of tables) return (await writeCsv(table, createWriteStream(file), options.csv)).rows;
  throw new RenderWorkerError('no table to write');
}
