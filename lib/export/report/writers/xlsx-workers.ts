/**
 * The XLSX writer's worker threads (see `xlsx-thread.ts`): started early and reused. A worker takes
 * ~0.4 s to start from source (tsx) and loads exceljs before its first workbook, so an export that
 * will write one starts it while it fetches ({@link warmXlsxWriter}), and a worker whose workbook
 * is complete waits, idle, for the next workbook of the process. One idle worker at most; an idle
 * worker never keeps the process alive (unref'd); a worker whose workbook failed is ended, never
 * lent again.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/** A worker lent to one workbook: given back once the workbook is complete, else ended. */
export interface WorkerLease {
  readonly worker: Worker;
  /** The workbook is complete: the worker waits, unref'd, for the next one (or is ended if one waits already). */
  release(): void;
  /** The workbook failed or was given up: the worker is terminated. Does nothing once released. */
  discard(): Promise<void>;
}

/**
 * The worker's heap. Its live data is small (exceljs's streaming state, the paced XML and zip
 * buffers, a few row batches: ~8 MB after a full collection); left at V8's default, its garbage
 * would pile up to ~50 MB more of the process's RSS before being collected (100k transactions:
 * 240 MB peak; 217 MB with an old space of 32 MB, 225 MB with twice). Its young generation: what
 * exceljs allocates per row dies young, so a small one only means more, cheap, scavenges (a
 * 300k-row workbook: ~5100 of ~0.2 ms against ~1300 with 8 MB, the same CPU in all) and ~8 MB
 * less of the heap committed (peak RSS 126 MB against 134, median of five).
 */
const WORKER_LIMITS = { maxOldGenerationSizeMb: 32, maxYoungGenerationSizeMb: 2 };

interface Idle {
  /** The module the worker runs (workers of another module are not interchangeable). */
  entry: string;
  worker: Worker;
}

/** The process's idle worker, if any. */
let idle: Idle | undefined;

/**
 * Starts the XLSX writer's worker thread (it loads exceljs) if `formats` include `xlsx` and no
 * worker waits already, so that its start overlaps what comes before the first workbook (planning,
 * the fetch). Does nothing where workbooks are written on the calling thread (a bundle shipped
 * without the worker's). Never keeps the process alive.
 */
export function warmXlsxWriter(formats: readonly string[]): void {
  if (!formats.includes('xlsx')) return;
  const entry = defaultEntry();
  if (entry === undefined || idle !== undefined) return;
  const worker = startWorker(entry);
  worker.unref();
  idle = { entry: entry.href, worker };
}

/** Lends the idle worker running `entry`, or a new one. */
export function leaseWorker(entry: URL): WorkerLease {
  let worker: Worker;
  if (idle?.entry === entry.href) {
    worker = idle.worker;
    idle = undefined;
    worker.ref();
  } else {
    worker = startWorker(entry);
  }
  let state: 'lent' | 'released' | 'discarded' = 'lent';
  return {
    worker,
    release() {
      if (state !== 'lent') return;
      state = 'released';
      if (idle === undefined) {
        worker.unref();
        idle = { entry: entry.href, worker };
      } else {
        void worker.terminate();
      }
    },
    async discard() {
      if (state !== 'lent') return;
      state = 'discarded';
      await worker.terminate();
    },
  };
}

/** The thread id of the idle worker, if one waits (diagnostics, tests). */
export function idleXlsxWorker(): number | undefined {
  return idle?.worker.threadId;
}

/** Ends the idle worker, if one waits: the next workbook starts a new one. */
export async function endIdleXlsxWorker(): Promise<void> {
  const ending = idle;
  idle = undefined;
  await ending?.worker.terminate();
}

/**
 * The worker's module: from source (tsx, vitest) `xlsx-worker.ts`; from a bundle, the worker's
 * own bundle `xlsx-worker.mjs` beside it, if it was shipped (else undefined).
 */
export function defaultEntry(): URL | undefined {
  if (import.meta.url.endsWith('.ts')) return new URL('./xlsx-worker.ts', import.meta.url);
  const bundled = new URL('./xlsx-worker.mjs', import.meta.url);
  return existsSync(fileURLToPath(bundled)) ? bundled : undefined;
}

/**
 * Starts a worker. A TypeScript entry (running from source) is loaded through tsx, registered in
 * the worker itself: Node 20 neither strips types nor passes a loader given by `--import` to a
 * worker's module graph. Its failures while idle (or after its workbook gave it up) end it; while
 * it is lent, the workbook's listeners report them too.
 */
function startWorker(entry: URL): Worker {
  const worker = entry.pathname.endsWith('.ts')
    ? new Worker(tsxBootstrap(entry), { eval: true, resourceLimits: WORKER_LIMITS })
    : new Worker(entry, { resourceLimits: WORKER_LIMITS });
  // Always a listener: an 'error' event without one would throw on this thread.
  worker.on('error', () => forget(worker));
  worker.on('exit', () => forget(worker));
  return worker;
}

function forget(worker: Worker): void {
  if (idle?.worker !== worker) return;
  idle = undefined;
  void worker.terminate();
}

function tsxBootstrap(entry: URL): string {
  return `import(${JSON.stringify(tsxEsmApi())}).then((tsx) => {
    (tsx.register ?? tsx.default.register)();
    return import(${JSON.stringify(entry.href)});
  });`;
}

/** {@link tsxEsmApi}'s answer, found once per process. */
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
