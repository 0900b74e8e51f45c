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
const PART_BUDGET_HEAP_SHARE = 1 / 8;

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
 * A part's writer (see {@link createPartWriter}): an {@link NdjsonWriter} that can also keep, with
 * a line it holds in memory, the item the line holds already parsed, and be told early how large
 * the part will be.
 */
export interface PartWriter extends NdjsonWriter {
  /**
   * `writeJson(json, prefix)`, keeping `value` (what `JSON.parse(json)` gives, parsed by the
   * caller already) with the line while the part is held: the assembly then takes it instead of
   * parsing the line again ({@link readPartLines}). Counted against the budget as well.
   */
  writeLine(json: string, prefix: string, value: unknown): Promise<void> | undefined;
  /**
   * The part will hold `lines` lines in all (a listing's reported total): when lines of the size
   * written so far, with their values, cannot be held whole beside what the store holds now, the
   * part goes to its file at once, instead of holding its first chunks until the budget runs out.
   */
  expectLines(lines: number): void;
}

/**
 * Heap a parsed item is counted as, per character of its JSON text: `JSON.parse`'s objects for the
 * simulator's transactions take about 1.13 bytes of V8's heap per byte of their text (measured).
 */
const VALUE_BYTES_PER_CHAR = 1.125;

/** The store's own view of a part: its chunks in order, or its file once spilled. */
interface HeldPart {
  chunks: Buffer[];
  /** The parsed item of each line of `chunks` in order (empty lines included), where kept. */
  values: unknown[];
  /** Bytes of `chunks`, with its values' share (see {@link VALUE_BYTES_PER_CHAR}). */
  bytes: number;
  /** True once its writer closed: readers may take it from memory. */
  complete: boolean;
}

interface StoreState extends PartStore {
  parts: Map<string, HeldPart>;
  /** Parts the assembly has released (see {@link waitForRoom}). */
  released: Set<string>;
  /** Waiting for room: told whenever the store holds less, or opens. */
  wakers: (() => void)[];
  /** True once {@link openStore} was called: nothing waits for room any more. */
  opened: boolean;
  /** What the last part completed took, held or not: lines and values (see {@link waitForRoom}). */
  lastPartBytes: number;
  /** Room promised to parts let through by {@link waitForRoom} and not complete yet, by part file. */
  promised: Map<string, number>;
  /** Forgets a part without marking it released (a listing written again, or destroyed). */
  drop(partFile: string): void;
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
    released: new Set(),
    wakers: [],
    opened: false,
    lastPartBytes: 0,
    promised: new Map(),
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
      part.values = [];
      if (state.wakers.length > 0) openWaiters(state);
    },
    countSpill() {
      spills += 1;
    },
    drop(partFile) {
      const part = parts.get(partFile);
      if (part === undefined) return;
      state.free(part);
      parts.delete(partFile);
    },
    release(partFile) {
      state.released.add(partFile);
      state.drop(partFile);
      if (state.wakers.length > 0) openWaiters(state);
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
export function createPartWriter(partFile: string, store: PartStore): PartWriter {
  const state = store as StoreState;
  state.drop(partFile);
  const part: HeldPart = { chunks: [], values: [], bytes: 0, complete: false };
  state.parts.set(partFile, part);
  let file: WriteStream | undefined;
  let failure: Error | undefined;
  let chunk = Buffer.allocUnsafe(PART_CHUNK);
  let used = 0;
  // The values of the lines in `chunk` (one per line), and their share of the budget.
  let values: unknown[] = [];
  let valueBytes = 0;
  // What the part has taken so far, held or not: lines, their bytes sent on, their values' share.
  let lines = 0;
  let bytesSent = 0;
  let valueBytesSoFar = 0;

  /** From now on the part goes to its file: what it held first, in order. */
  const spill = (): WriteStream => {
    const stream = createWriteStream(partFile, { highWaterMark: PART_CHUNK });
    stream.on('error', (error) => {
      failure ??= error;
    });
    for (const held of part.chunks) stream.write(held);
    state.free(part);
    state.parts.delete(partFile);
    state.promised.delete(partFile);
    state.countSpill();
    return stream;
  };
  const send = (): Promise<void> | undefined => {
    if (used === 0) return undefined;
    const full = chunk.subarray(0, used);
    const held = values;
    const cost = full.length + valueBytes;
    chunk = Buffer.allocUnsafe(PART_CHUNK);
    used = 0;
    values = [];
    valueBytes = 0;
    bytesSent += full.length;
    if (file === undefined && state.reserve(cost)) {
      part.chunks.push(full);
      for (const value of held) part.values.push(value);
      part.bytes += cost;
      return undefined;
    }
    file ??= spill();
    return file.write(full) ? undefined : once(file, 'drain').then(() => undefined);
  };
  const append = (json: string | Uint8Array, prefix: string, suffix: string, value: unknown) => {
    if (failure) return Promise.reject(failure);
    const most = mostLineBytes(json, prefix, suffix);
    let wait: Promise<void> | undefined;
    if (used + most > chunk.length) {
      wait = send();
      if (most > chunk.length) chunk = Buffer.allocUnsafe(most);
    }
    used = appendLine(chunk, used, json, prefix, suffix);
    lines += 1;
    // A part on its way to its file keeps no values; one still held keeps one per line.
    const share = value === undefined ? 0 : Math.ceil(json.length * VALUE_BYTES_PER_CHAR);
    valueBytesSoFar += share;
    if (file === undefined) {
      values.push(value);
      valueBytes += share;
    }
    return wait;
  };
  return {
    // A part is plain NDJSON, not gzip: there is no member to end.
    async member() {},
    async write(record) {
      // As `createNdjsonWriter` writes a record: number tokens kept as text written as they came.
      await this.writeJson(stringifyJson(record));
    },
    writeJson(json, prefix = '', suffix = '') {
      return append(json, prefix, suffix, undefined);
    },
    writeLine(json, prefix, value) {
      return append(json, prefix, '', value);
    },
    expectLines(total) {
      if (file !== undefined || lines === 0 || total <= lines) return;
      const perLine = (bytesSent + used + valueBytesSoFar) / lines;
      if (state.heldBytes() - part.bytes + perLine * total > state.budgetBytes) file = spill();
    },
    async close() {
      if (failure) throw failure;
      await send();
      state.lastPartBytes = bytesSent + valueBytesSoFar;
      if (state.promised.delete(partFile) && state.wakers.length > 0) openWaiters(state);
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
      state.promised.delete(partFile);
      if (state.parts.get(partFile) === part) state.drop(partFile);
    },
  };
}

/**
 * Resolves once `store` has room for a part like the last one completed (its lines and values
 * beside what the store holds), or once every one of `releasedFirst` has been released (the
 * assembly has passed them: waiting longer could wait for a part it needs), or once the store is
 * opened ({@link openStore}). The fetch waits here before starting a shard, so that it runs ahead
 * of the assembly only as far as the budget holds its parts, instead of spilling them.
 */
export async function waitForRoom(
  store: PartStore,
  partFile: string,
  releasedFirst: readonly string[],
): Promise<void> {
  const state = store as StoreState;
  const ready = () =>
    state.opened ||
    state.heldBytes() + stillPromised(state) + state.lastPartBytes <= state.budgetBytes ||
    releasedFirst.every((file) => state.released.has(file));
  while (!ready()) await new Promise<void>((resolve) => state.wakers.push(resolve));
  // Promised until the part is complete: the parts let through before it count as they grow.
  state.promised.set(partFile, state.lastPartBytes);
}

/** Room promised to parts still being written beyond what they hold already. */
function stillPromised(state: StoreState): number {
  let total = 0;
  for (const [partFile, bytes] of state.promised) {
    total += Math.max(0, bytes - (state.parts.get(partFile)?.bytes ?? 0));
  }
  return total;
}

/** Wakes every {@link waitForRoom} waiting, to look again. */
function openWaiters(state: StoreState): void {
  for (const waker of state.wakers.splice(0)) waker();
}

/** Lets every {@link waitForRoom} of `store` through, now and from now on (a run that stops or fails). */
export function openStore(store: PartStore): void {
  const state = store as StoreState;
  state.opened = true;
  openWaiters(state);
}

/**
 * The lines of a part as `readNdjsonLineBytes` reads them from its file (views of the chunks, not
 * copies): from `store` when it holds the part whole, else from the file.
 */
export function readPartLineBytes(partFile: string, store?: PartStore): AsyncGenerator<Buffer> {
  return readPartLines(partFile, store).lines;
}

/** A part's lines, and the parsed item of the line last read where the store kept one. */
export interface PartLines {
  lines: AsyncGenerator<Buffer>;
  /**
   * The item of the line `lines` gave last, as its writer's `writeLine` was handed it: only for a
   * part held whole, and once (the store lets go of it: a second call, or a second reading of the
   * part, gives undefined and the caller parses the line).
   */
  takeValue(): unknown;
}

/** {@link readPartLineBytes}, with the items parsed at the fetch of a part the store holds whole. */
export function readPartLines(partFile: string, store?: PartStore): PartLines {
  const part = (store as StoreState | undefined)?.parts.get(partFile);
  if (part?.complete !== true) return { lines: readNdjsonLineBytes(partFile), takeValue: () => undefined };
  const reading = { line: -1 };
  const { values } = part;
  return {
    lines: heldLines(part.chunks, reading),
    takeValue() {
      const value = values[reading.line];
      if (value !== undefined) values[reading.line] = undefined;
      return value;
    },
  };
}

/** The non-empty lines of `chunks`; `reading.line` counts every line up to the one given (from 0). */
async function* heldLines(chunks: readonly Buffer[], reading: { line: number }): AsyncGenerator<Buffer> {
  let line = -1;
  for (const chunk of chunks) {
    let start = 0;
    let end = chunk.indexOf(NEWLINE);
    while (end !== -1) {
      line += 1;
      if (end > start) {
        reading.line = line;
        yield chunk.subarray(start, end);
      }
      start = end + 1;
      end = chunk.indexOf(NEWLINE, start);
    }
  }
}

const NEWLINE = 0x0a;
/** Bytes gathered before a chunk is kept or written: as the part files' writer gathers them. */
const PART_CHUNK = 256 * 1024;
