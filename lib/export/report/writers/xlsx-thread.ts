import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { XlsxWorkerError } from './errors.ts';
import { type RowBatch, transferList } from './xlsx-batch.ts';
import { type BookProps, type SheetStart, XlsxBook } from './xlsx-book.ts';
import { outputClosed, type PacingStats } from './xlsx-pacing.ts';
import type { FromMain, ToMain } from './xlsx-thread-messages.ts';

/** Bytes of text a row batch is sent at, however few its rows: long memos keep the batches small. */
export const MAX_BATCH_BYTES = 256 * 1024;

/**
 * Where a workbook's XML and zip are written (the one seam between the two): on a worker thread
 * while this thread works out the cells ({@link WorkerBook}), or on this thread ({@link SameThreadBook}).
 */
export interface BookWriter {
  /** Rows per {@link RowBatch} this writer wants (fewer once a batch has {@link MAX_BATCH_BYTES} bytes of text). */
  readonly batchRows: number;
  /**
   * Whether a batch's arrays move away with it (to the worker): then each batch needs new ones;
   * otherwise they may be reused once {@link addRows} has resolved.
   */
  readonly transfers: boolean;
  startSheet(sheet: SheetStart): void;
  /** Commits the current sheet: its XML is complete. */
  endSheet(): void;
  /** Resolves once more rows may be sent. */
  addRows(batch: RowBatch): Promise<void>;
  /** Finishes the workbook; resolves once `out` has finished. */
  finish(front: string[]): Promise<PacingStats>;
  /** Gives up after `error`: destroys `out` with it and stops the writer. */
  abort(error: unknown): Promise<void>;
}

/**
 * How long a worker told to end (an abandoned workbook, an unused worker) may take to exit before
 * it is `terminate()`d: ending by itself takes at most the batch or deflate it has under way.
 */
export const WORKER_END_TIMEOUT_MS = 10_000;

/**
 * How {@link openBook} writes: `worker` (default) or `same-thread`; `entry` replaces the worker's
 * module (tests); `started`, a worker started ahead for it ({@link startBookWorker});
 * `endTimeoutMs`, {@link WORKER_END_TIMEOUT_MS} unless given (tests).
 */
export interface BookThread {
  thread: 'worker' | 'same-thread';
  entry?: URL;
  started?: StartedWorker;
  endTimeoutMs?: number;
}

/**
 * Opens a workbook on `out`. On a worker thread unless asked otherwise, or unless this code runs
 * from a bundle shipped without the worker's own bundle (`xlsx-worker.mjs` beside it): the same
 * bytes are written on this thread then.
 */
export async function openBook(out: Writable, props: BookProps, how: BookThread): Promise<BookWriter> {
  if (how.thread !== 'same-thread') {
    const worker = how.started?.take() ?? startBookWorker(how.entry)?.take();
    if (worker !== undefined) {
      return new WorkerBook(out, worker, props, how.endTimeoutMs ?? WORKER_END_TIMEOUT_MS);
    }
  }
  return new SameThreadBook(await XlsxBook.open(out, props));
}

/**
 * A worker thread started before its workbook is opened, so that starting it (its isolate, its
 * modules) overlaps the caller's other work (an export's fetch). It keeps no process alive while unused, and is
 * ended by a message: {@link StartedWorker.end} when it is not wanted after all.
 */
export class StartedWorker {
  private taken = false;
  private ended = false;

  constructor(
    private readonly thread: WorkerThread,
    private readonly endTimeoutMs = WORKER_END_TIMEOUT_MS,
  ) {}

  /** The thread, for one workbook; undefined once taken or ended. */
  take(): WorkerThread | undefined {
    if (this.taken || this.ended) return undefined;
    this.taken = true;
    this.thread.worker.ref();
    return this.thread;
  }

  /**
   * Ends the thread if no workbook took it; resolves once it has exited (`terminate()`d if it did
   * not within its time: it had no workbook, so nothing is lost).
   */
  async end(): Promise<void> {
    if (this.taken || this.ended) return;
    this.ended = true;
    this.thread.worker.postMessage({ type: 'end' } satisfies FromMain);
    await endOrTerminate(this.thread, this.endTimeoutMs);
  }
}

/**
 * Starts the XLSX worker thread ahead of its workbook, or returns undefined when workbooks are
 * written on this thread (a bundle shipped without the worker's own bundle). `entry` replaces the
 * worker's module and `endTimeoutMs` {@link WORKER_END_TIMEOUT_MS} (tests).
 */
export function startBookWorker(entry?: URL, endTimeoutMs?: number): StartedWorker | undefined {
  const module = entry ?? workerEntry();
  return module === undefined ? undefined : new StartedWorker(startWorker(module), endTimeoutMs);
}

/** The workbook written on this thread: rows one at a time. */
class SameThreadBook implements BookWriter {
  readonly batchRows = 1;
  readonly transfers = false;
  constructor(private readonly book: XlsxBook) {}
  startSheet(sheet: SheetStart): void {
    this.book.startSheet(sheet);
  }
  endSheet(): void {
    this.book.endSheet();
  }
  addRows(batch: RowBatch): Promise<void> {
    return this.book.addRows(batch);
  }
  finish(front: string[]): Promise<PacingStats> {
    return this.book.finish(front);
  }
  async abort(error: unknown): Promise<void> {
    this.book.abort(error);
  }
}

/** Row batches in flight to the worker before `addRows` waits for an acknowledgement. */
const MAX_BATCHES_IN_FLIGHT = 4;

/**
 * The worker's heap. Its live data is small (the styles, the paced XML and zip buffers, at most {@link MAX_BATCHES_IN_FLIGHT} batches of at most {@link MAX_BATCH_CHARS}
 * characters); left at V8's default, its garbage would pile up to ~50 MB more of the process's RSS
 * before being collected (100k transactions: 240 MB peak; 217 MB with these, 225 MB with twice).
 * With data rows written as XML directly (no Row and Cell objects per row), its young
 * generation is 2 MB, not 8: at 1M transactions, paired with 8 MB, peak RSS 233 against 240 MB for
 * 2 % more CPU (`npm run bench:cpu -- --transactions 1000000 --rounds 1 --modes export-xlsx`).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 2 };

/**
 * The workbook written on a worker thread. Row batches are acknowledged once written (at most
 * {@link MAX_BATCHES_IN_FLIGHT} wait); zip chunks come back and are acknowledged once `out` can
 * take more; so memory stays bounded at both ends. Any failure (the worker's, `out`'s) rejects
 * every pending call with it, and the worker is told to end (it is never `terminate()`d).
 */
class WorkerBook implements BookWriter {
  readonly batchRows = 256;
  readonly transfers = true;
  private inFlight = 0;
  private readonly acked: (() => void)[] = [];
  private done: ((stats: PacingStats) => void) | undefined;
  private readonly failed: Promise<never>;
  private fail: (error: unknown) => void = () => {};
  private over = false;

  private readonly worker: Worker;
  /** Acknowledgements of chunks waiting for `out` to drain. */
  private undrained = 0;

  constructor(
    private readonly out: Writable,
    private readonly thread: WorkerThread,
    props: BookProps,
    private readonly endTimeoutMs: number,
  ) {
    this.worker = thread.worker;
    this.failed = new Promise<never>((_, reject) => {
      this.fail = (error) => {
        if (this.over) return;
        this.over = true;
        reject(error);
        this.worker.postMessage({ type: 'end' } satisfies FromMain);
      };
    });
    this.failed.catch(() => {});
    out.once('error', (error) => this.fail(error));
    out.once('close', () => {
      if (!out.writableFinished) this.fail(out.errored ?? outputClosed());
    });
    const { worker } = this;
    worker.on('message', (message: ToMain) => this.receive(message));
    thread.failure.then((error) => this.fail(error));
    this.post({ type: 'open', props });
  }

  startSheet(sheet: SheetStart): void {
    this.post({ type: 'sheet', sheet });
  }

  endSheet(): void {
    this.post({ type: 'end-sheet' });
  }

  async addRows(batch: RowBatch): Promise<void> {
    // The batch's arrays move to the worker, not copied (the batch's builder starts new ones).
    this.post({ type: 'rows', batch }, transferList(batch));
    this.inFlight += 1;
    if (this.inFlight >= MAX_BATCHES_IN_FLIGHT) {
      await Promise.race([new Promise<void>((resolve) => this.acked.push(resolve)), this.failed]);
    }
  }

  async finish(front: string[]): Promise<PacingStats> {
    const done = new Promise<PacingStats>((resolve) => {
      this.done = resolve;
    });
    this.post({ type: 'finish', front });
    const stats = await Promise.race([done, this.failed]);
    this.over = true;
    return stats;
  }

  /**
   * Destroys `out` with `error`, tells the worker to end and resolves once it has exited; rejects
   * with an {@link XlsxWorkerError} (its cause: `error`) if the worker had to be `terminate()`d
   * because it did not exit within its time (it stopped answering).
   */
  async abort(error: unknown): Promise<void> {
    this.fail(error);
    this.out.destroy(error instanceof Error ? error : new Error(String(error)));
    if (await endOrTerminate(this.thread, this.endTimeoutMs)) return;
    throw new XlsxWorkerError(
      `did not end within ${this.endTimeoutMs} ms of being told to (the workbook failed: ${messageOf(error)}), and was terminated`,
      { cause: error },
    );
  }

  private post(message: FromMain, transfer?: ArrayBuffer[]): void {
    if (!this.over) this.worker.postMessage(message, transfer);
  }

  private receive(message: ToMain): void {
    switch (message.type) {
      case 'chunk':
        this.write(Buffer.from(message.data.buffer, message.data.byteOffset, message.data.byteLength));
        return;
      case 'end':
        // An ending stream emits no 'drain': chunks waiting for one are acknowledged now, in order,
        // before the end itself (the worker's output matches acknowledgements to what it posted).
        this.acknowledgeUndrained();
        this.out.end((error?: Error | null) => {
          if (error == null) this.post({ type: 'written' });
        });
        return;
      case 'acked':
        this.inFlight -= 1;
        this.acked.shift()?.();
        return;
      case 'done':
        this.over = true;
        this.done?.(message.stats);
        return;
      case 'failed':
        this.fail(new XlsxWorkerError(message.error.message, { cause: message.error }));
        return;
    }
  }

  /** Writes a chunk into `out` and acknowledges it once `out` can take more. */
  private write(chunk: Buffer): void {
    if (this.over || this.out.destroyed) return;
    if (this.out.write(chunk) && this.undrained === 0) {
      this.post({ type: 'written' });
      return;
    }
    // Several chunks may be in flight (see `OUTPUT_WINDOW_BYTES`): one listener acknowledges them all.
    this.undrained += 1;
    if (this.undrained === 1) this.out.once('drain', () => this.acknowledgeUndrained());
  }

  /** Acknowledges the chunks that were waiting for `out` to drain. */
  private acknowledgeUndrained(): void {
    const count = this.undrained;
    this.undrained = 0;
    for (let i = 0; i < count; i += 1) this.post({ type: 'written' });
  }
}

/**
 * Waits up to `timeoutMs` for a thread told to end to exit, and `terminate()`s it past that: the
 * last resort for a thread that stopped answering (stopping an idle one that way once aborted Node
 * in zlib's cleanup). Resolves true if it exited by itself, false if it was terminated.
 */
async function endOrTerminate(thread: WorkerThread, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const byItself = await Promise.race([thread.exited.then(() => true as const), late]);
  clearTimeout(timer);
  if (byItself) return true;
  await thread.worker.terminate();
  await thread.exited;
  return false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The worker's module: from source (tsx, vitest) `xlsx-worker.ts`; from a bundle, the worker's
 * own bundle `xlsx-worker.mjs` beside it, if it was shipped (else undefined).
 */
function workerEntry(): URL | undefined {
  if (import.meta.url.endsWith('.ts')) return new URL('./xlsx-worker.ts', import.meta.url);
  const bundled = new URL('./xlsx-worker.mjs', import.meta.url);
  return existsSync(fileURLToPath(bundled)) ? bundled : undefined;
}

/** A started worker thread, with its end and its failure (an error, or an exit before it was told to end). */
interface WorkerThread {
  worker: Worker;
  /** Resolves once the thread has exited. */
  exited: Promise<void>;
  /** Resolves with the error of a crash, or of an exit the main thread did not ask for. */
  failure: Promise<XlsxWorkerError>;
}

/**
 * Starts the worker, unreferenced until a workbook takes it. A TypeScript entry (running from
 * source) is loaded through tsx, registered in the worker itself: Node 20 neither strips types nor
 * passes a loader given by `--import` to a worker's module graph.
 */
function startWorker(entry: URL): WorkerThread {
  const tsx = entry.pathname.endsWith('.ts') ? tsxEsmApi() : undefined;
  const worker =
    tsx === undefined
      ? new Worker(entry, { resourceLimits: WORKER_LIMITS })
      : new Worker(
          `import(${JSON.stringify(tsx)}).then((tsx) => {
            (tsx.register ?? tsx.default.register)();
            return import(${JSON.stringify(entry.href)});
          });`,
          { eval: true, resourceLimits: WORKER_LIMITS },
        );
  worker.unref();
  let failed: (error: XlsxWorkerError) => void = () => {};
  const failure = new Promise<XlsxWorkerError>((resolve) => {
    failed = resolve;
  });
  worker.on('error', (error) => failed(new XlsxWorkerError(error.message, { cause: error })));
  const exited = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      failed(new XlsxWorkerError(`exited with code ${code} before the workbook was complete`));
      resolve();
    });
  });
  return { worker, exited, failure };
}

/** {@link tsxEsmApi}'s answer, found once per process: every workbook written from source starts a worker. */
let tsxApi: string | undefined;

/** The URL of tsx's ESM API module (its `import` export: the `require` one cannot register ESM hooks). */
function tsxEsmApi(): string {
  tsxApi ??= findTsxEsmApi();
  return tsxApi;
}

function findTsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json');
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as {
    exports: Record<string, { import: { default: string } }>;
  };
  const api = exports['./esm/api']?.import.default;
  if (api === undefined) throw new Error('tsx has no ESM API to load the XLSX worker with');
  return new URL(api, pathToFileURL(manifest)).href;
}
