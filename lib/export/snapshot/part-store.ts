import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { stringifyJson } from '../../pbs/index.ts';
import { appendLine, mostLineBytes } from './line-chunk.ts';
import { type NdjsonWriter, readNdjsonLineBytes } from './snapshot.ts';

/**
 * Part files kept in memory while they fit a budget (the CLI path, which reads its parts back in
 * the same process): a part's lines stay as the chunks of bytes its writer gathered, and only a
 * part whose next chunk would pass the budget is spilled to its file (what it held first, then
 * the rest). The bytes are the same either way: the file a spilled part leaves is what
 * {@link createNdjsonWriter} writes with `compress: false`, and the assembly reads the same lines
 * from memory or from the file ({@link readPartLineBytes}).
 */
export interface PartStore {
  /** Bytes of part lines this store may hold at once. */
  readonly budgetBytes: number;
  /** Bytes held now. */
  heldBytes(): number;
  /** Parts spilled to their files so far (a figure for the benchmark and the tests). */
  spilled(): number;
  /** Forgets a part once its window is written (its chunks are left to whatever still holds a line). */
  release(partFile: string): void;
}

/**
 * Most a run's part lines may hold in memory by default: 16 MiB. The CLI's CSV export of 1M
 * transactions peaked at 206 MB with every part on disk (docs/developer/performance.md), so lines
 * held on top of that must stay within the 24 MB left of 230; the lines fetched ahead of the
 * assembly beyond the budget go to files.
 */
export const DEFAULT_PART_BUDGET_BYTES = 16 * 1024 * 1024;

/**
 * Share of the V8 heap limit a run's part lines may hold by default: a process given a small heap
 * (the benchmark's 128 MB old space, a function sized for the job) is one sized to stay small, and
 * its part lines are memory outside that heap, on top of it. At 1M transactions 16 MiB of held
 * lines cost about 12 MB of peak RSS (docs/developer/performance.md, "memory at 1M").
 */
const PART_BUDGET_HEAP_SHARE = 1 / 32;

/**
 * The default part budget for a process whose V8 heap may grow to `heapLimitBytes` (by default
 * this process's, `v8.getHeapStatistics().heap_size_limit`): 1/32 of it, at most
 * {@link DEFAULT_PART_BUDGET_BYTES}, in whole bytes.
 */
export function defaultPartBudgetBytes(heapLimitBytes: number = getHeapStatistics().heap_size_limit): number {
  if (!Number.isFinite(heapLimitBytes) || heapLimitBytes < 0) {
    throw new RangeError(`heap limit: expected a number of bytes ≥ 0, got ${heapLimitBytes}`);
  }
  return Math.min(DEFAULT_PART_BUDGET_BYTES, Math.floor(heapLimitBytes * PART_BUDGET_HEAP_SHARE));
}

/**
 * Memory a workbook's worker thread takes outside the main thread's heap while a run writes XLSX:
 * its isolate, its heap and its buffers, about 13 MB at 1M transactions, measured on 2026-12-08
 * (docs/developer/performance.md). The part budget leaves it to the worker.
 */
export const WORKBOOK_WORKER_BYTES = 16 * 1024 * 1024;

/**
 * The default part budget of a run that writes `formats`: {@link defaultPartBudgetBytes} less
 * what a workbook's worker takes when one of them is `xlsx` ({@link WORKBOOK_WORKER_BYTES}), never
 * below 0. Both are memory on top of the heap, so the run's peak stays where a CSV run's is; with
 * either heap the benchmark or the CLI uses, that leaves nothing to hold, and an XLSX run writes
 * every part to its file (at 1M: peak RSS 238 → 226 MB at the same CPU; at 100k, see the section).
 */
export function partBudgetFor(formats: readonly string[], heapLimitBytes?: number): number {
  const budget = defaultPartBudgetBytes(heapLimitBytes);
  return formats.includes('xlsx') ? Math.max(0, budget - WORKBOOK_WORKER_BYTES) : budget;
}

/** The store's own view of a part: its chunks in order, or its file once spilled. */
interface HeldPart {
  chunks: Buffer[];
  bytes: number;
  /** True once its writer closed: readers may take it from memory. */
  complete: boolean;
}

interface StoreState extends PartStore {
  parts: Map<string, HeldPart>;
  /** Room for `bytes` more: reserved and true, or false (the caller spills). */
  reserve(bytes: number): boolean;
  /** Gives back what `part` held (spilled or released). */
  free(part: HeldPart): void;
  countSpill(): void;
}

/** A store of part lines within `budgetBytes` (default {@link defaultPartBudgetBytes} of this process). */
export function createPartStore(budgetBytes: number = defaultPartBudgetBytes()): PartStore {
  if (!Number.isFinite(budgetBytes) || budgetBytes < 0) {
    throw new RangeError(`part memory budget: expected a number of bytes ≥ 0, got ${budgetBytes}`);
  }
  let held = 0;
  let spills = 0;
  const parts = new Map<string, HeldPart>();
  const state: StoreState = {
    budgetBytes,
    parts,
    heldBytes: () => held,
    spilled: () => spills,
    reserve(bytes) {
      if (held + bytes > budgetBytes) return false;
      held += bytes;
      return true;
    },
    free(part) {
      held -= part.bytes;
      part.bytes = 0;
      part.chunks = [];
    },
    countSpill() {
      spills += 1;
    },
    release(partFile) {
      const part = parts.get(partFile);
      if (part === undefined) return;
      state.free(part);
      parts.delete(partFile);
    },
  };
  return state;
}

/**
 * A writer of `partFile` into `store` (see {@link PartStore}): lines are gathered into chunks as
 * {@link createNdjsonWriter} gathers them (a line never spans two chunks); each full chunk is kept
 * while the budget allows, else the part goes to its file from then on. A writer of a part the
 * store holds already (a shard listed again) starts it afresh.
 */
export function createPartWriter(partFile: string, store: PartStore): NdjsonWriter {
  const state = store as StoreState;
  state.release(partFile);
  const part: HeldPart = { chunks: [], bytes: 0, complete: false };
  state.parts.set(partFile, part);
  let file: WriteStream | undefined;
  let failure: Error | undefined;
  let chunk = Buffer.allocUnsafe(PART_CHUNK);
  let used = 0;

  /** From now on the part goes to its file: what it held first, in order. */
  const spill = (): WriteStream => {
    const stream = createWriteStream(partFile, { highWaterMark: PART_CHUNK });
    stream.on('error', (error) => {
      failure ??= error;
    });
    for (const held of part.chunks) stream.write(held);
    state.free(part);
    state.parts.delete(partFile);
    state.countSpill();
    return stream;
  };
  const send = (): Promise<void> | undefined => {
    if (used === 0) return undefined;
    const full = chunk.subarray(0, used);
    chunk = Buffer.allocUnsafe(PART_CHUNK);
    used = 0;
    if (file === undefined && state.reserve(full.length)) {
      part.chunks.push(full);
      part.bytes += full.length;
      return undefined;
    }
    file ??= spill();
    return file.write(full) ? undefined : once(file, 'drain').then(() => undefined);
  };
  return {
    // A part is plain NDJSON, not gzip: there is no member to end.
    async member() {},
    async write(record) {
      // As `createNdjsonWriter` writes a record: number tokens kept as text written as they came.
      await this.writeJson(stringifyJson(record));
    },
    writeJson(json, prefix = '', suffix = '') {
      if (failure) return Promise.reject(failure);
      const most = mostLineBytes(json, prefix, suffix);
      let wait: Promise<void> | undefined;
      if (used + most > chunk.length) {
        wait = send();
        if (most > chunk.length) chunk = Buffer.allocUnsafe(most);
      }
      used = appendLine(chunk, used, json, prefix, suffix);
      return wait;
    },
    async close() {
      if (failure) throw failure;
      await send();
      if (file === undefined) {
        part.complete = true;
        return;
      }
      file.end();
      await once(file, 'close');
      if (failure) throw failure;
    },
    destroy() {
      file?.destroy();
      if (state.parts.get(partFile) === part) state.release(partFile);
    },
  };
}

/**
 * The lines of a part as `readNdjsonLineBytes` reads them from its file (views of the chunks, not
 * copies): from `store` when it holds the part whole, else from the file.
 */
export function readPartLineBytes(partFile: string, store?: PartStore): AsyncGenerator<Buffer> {
  const part = (store as StoreState | undefined)?.parts.get(partFile);
  if (part?.complete === true) return heldLines(part.chunks);
  return readNdjsonLineBytes(partFile);
}

async function* heldLines(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  for (const chunk of chunks) {
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    while (end !== -1) {
      if (end > start) yield chunk.subarray(start, end);
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
  }
}

const NEWLINE = 0x0a;
/** Bytes gathered before a chunk is kept or written: as the part files' writer gathers them. */
const PART_CHUNK = 256 * 1024;
