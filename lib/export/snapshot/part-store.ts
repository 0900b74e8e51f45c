import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { stringifyJson } from '../../pbs/index.ts';
import { appendLine, mostLineBytes } from './line-chunk.ts';
import { decodePartLineBytes, type PartEntry, type PartLineFields, partLinePrefix } from './part-line.ts';
import { type NdjsonWriter, readNdjsonLineBytes } from './snapshot.ts';

/**
 * Parts kept in memory while they fit a budget (the CLI path, which reads its parts back in the
 * same process): a part's transactions stay as the fetch gave them (each one's JSON text as sent
 * and the item parsed from it), so the assembly neither encodes, decodes nor parses them again;
 * only a part whose next transaction would pass the budget is spilled to its file (what it held
 * first, then the rest). The bytes are the same either way: the file a spilled part leaves is
 * what {@link createNdjsonWriter} writes with `compress: false`, and the assembly reads the same
 * transactions from memory or from the file ({@link readPartEntries}).
 */
export interface PartStore {
  /** Bytes of memory (as {@link heldCost} reckons them) this store may hold at once. */
  readonly budgetBytes: number;
  /** Bytes held now, as {@link heldCost} reckons them. */
  heldBytes(): number;
  /** Parts spilled to their files so far (a figure for the benchmark and the tests). */
  spilled(): number;
  /** Forgets a part once its window is written (its transactions are left to whatever still holds one). */
  release(partFile: string): void;
}

/**
 * Default budget of a run's parts in memory: 48 MiB as {@link heldCost} reckons them, about the
 * transactions 16 MiB of part lines held before parsed items were kept with their texts. The
 * CLI's CSV export of 1M transactions peaked at 206 MB with every part on disk
 * (docs/developer/performance.md); the transactions fetched ahead of the assembly beyond this go
 * to files.
 */
export const DEFAULT_PART_BUDGET_BYTES = 16 * 1024 * 1024;

/**
 * What holding one transaction costs, reckoned from its JSON text: the text (a slice of its page's
 * body, which it keeps, stored two bytes a character when the page holds any character beyond
 * Latin-1) and the parsed item, whose objects and strings take about twice the text again.
 */
export function heldCost(json: string): number {
  return HELD_COST_PER_CHARACTER * json.length + HELD_COST_PER_ITEM;
}

const HELD_COST_PER_CHARACTER = 4;
/**
 * How far past the budget the first part being written may go (× the budget) before it spills:
 * the other parts, waiting behind it, may hold the rest of the budget with what they had taken.
 */
const FIRST_PART_OVERDRAFT = 2;
const HELD_COST_PER_ITEM = 64;

/** The store's own view of a part while it is held: its transactions in order. */
interface HeldPart {
  entries: HeldEntry[];
  bytes: number;
  /** True once its writer closed: readers may take it from memory. */
  complete: boolean;
}

interface StoreState extends PartStore {
  parts: Map<string, HeldPart>;
  /**
   * Room for `bytes` more within the budget (`first`: within twice the budget, see
   * `createPartWriter`): reserved and true, or false (the caller waits or spills).
   */
  reserve(bytes: number, first?: boolean): boolean;
  /** Gives back what `part` held (spilled or released). */
  free(part: HeldPart): void;
  countSpill(): void;
  /** Parts being written, by their place in the run's order (see `createPartWriter`'s `order`). */
  open: Set<number>;
  /** True when the part at `order` is the first of the parts being written: it never waits. */
  isFirst(order: number): boolean;
  /** Resolves once memory is given back or a part is no longer written: room to try again. */
  room(): Promise<void>;
  /** Wakes every writer waiting in {@link room}. */
  wake(): void;
}

/** A store of part lines within `budgetBytes` (default {@link DEFAULT_PART_BUDGET_BYTES}). */
export function createPartStore(budgetBytes: number = DEFAULT_PART_BUDGET_BYTES): PartStore {
  if (!Number.isFinite(budgetBytes) || budgetBytes < 0) {
    throw new RangeError(`part memory budget: expected a number of bytes ≥ 0, got ${budgetBytes}`);
  }
  let held = 0;
  let spills = 0;
  const parts = new Map<string, HeldPart>();
  let waiting: (() => void)[] = [];
  const open = new Set<number>();
  const state: StoreState = {
    open,
    isFirst(order) {
      for (const other of open) if (other < order) return false;
      return true;
    },
    room: () => new Promise<void>((resolve) => waiting.push(resolve)),
    wake() {
      const woken = waiting;
      waiting = [];
      for (const resolve of woken) resolve();
    },
    budgetBytes,
    parts,
    heldBytes: () => held,
    spilled: () => spills,
    reserve(bytes, first = false) {
      if (held + bytes > (first ? FIRST_PART_OVERDRAFT : 1) * budgetBytes) return false;
      held += bytes;
      return true;
    },
    free(part) {
      held -= part.bytes;
      part.bytes = 0;
      part.entries = [];
      state.wake();
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

/** A transaction given to a part: its JSON text as a string, and its parsed item when the text was parsed. */
export type HeldEntry = PartEntry & { json: string };

/** A writer of a part held in a {@link PartStore}: {@link NdjsonWriter}, and transactions one by one. */
export interface PartWriter extends NdjsonWriter {
  /**
   * Writes one transaction: held as it is while the budget allows, else written to the part's
   * file as its part line (`encodePartLine`'s bytes). A promise only when the caller must wait.
   */
  writeEntry(entry: HeldEntry): Promise<void> | undefined;
}

/**
 * Writes a transaction to a part: held by a {@link PartWriter}, or as its part line (the instant
 * and id ahead of the JSON text, `encodePartLine`) by any other writer of part files.
 */
export function writePartEntry(
  writer: NdjsonWriter | PartWriter,
  entry: HeldEntry,
): Promise<void> | undefined {
  if ('writeEntry' in writer) return writer.writeEntry(entry);
  return writer.writeJson(entry.json, partLinePrefix(entry, !entry.plain));
}

/**
 * A writer of `partFile` into `store` (see {@link PartStore}): each transaction is kept while the
 * budget allows. Past it, a writer given an `order` (the part's place in the run, e.g. its shard's
 * index) waits for room while a part of a lower order is still being written: the fetch then keeps
 * pace with the assembly, which reads and releases parts in that order, instead of writing what
 * it fetched ahead to files and parsing it again. The first part being written never waits (so
 * the assembly always gets the part it waits for): it may hold up to twice the budget with the
 * others, and past that goes to its file from then on, its lines gathered into chunks as {@link createNdjsonWriter} gathers them, as does a part without an
 * `order`. Records and lines given as text (`write`, `writeJson`) send the part to its file at
 * once. A writer of a part the store holds already (a shard listed again) starts it afresh.
 */
export function createPartWriter(partFile: string, store: PartStore, order?: number): PartWriter {
  const state = store as StoreState;
  state.release(partFile);
  const part: HeldPart = { entries: [], bytes: 0, complete: false };
  state.parts.set(partFile, part);
  if (order !== undefined) state.open.add(order);
  /** This part is no longer written: a writer waiting behind it may go on. */
  const done = () => {
    if (order === undefined || !state.open.delete(order)) return;
    state.wake();
  };
  let file: WriteStream | undefined;
  let failure: Error | undefined;
  let chunk = Buffer.allocUnsafe(PART_CHUNK);
  let used = 0;

  const send = (): Promise<void> | undefined => {
    if (used === 0 || file === undefined) return undefined;
    const full = chunk.subarray(0, used);
    chunk = Buffer.allocUnsafe(PART_CHUNK);
    used = 0;
    return file.write(full) ? undefined : once(file, 'drain').then(() => undefined);
  };
  /** Gathers one line into the chunk, sending the chunk first when the line might not fit. */
  const line = (json: string | Uint8Array, prefix: string, suffix = ''): Promise<void> | undefined => {
    const most = mostLineBytes(json, prefix, suffix);
    let wait: Promise<void> | undefined;
    if (used + most > chunk.length) {
      wait = send();
      if (most > chunk.length) chunk = Buffer.allocUnsafe(most);
    }
    used = appendLine(chunk, used, json, prefix, suffix);
    return wait;
  };
  /** From now on the part goes to its file: what it held first, in order. */
  const spill = (): void => {
    const stream = createWriteStream(partFile, { highWaterMark: PART_CHUNK });
    stream.on('error', (error) => {
      failure ??= error;
    });
    file = stream;
    // The held transactions go out without waiting: the stream buffers what the store held.
    for (const held of part.entries) line(held.json, partLinePrefix(held, !held.plain));
    state.free(part);
    state.parts.delete(partFile);
    state.countSpill();
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
      if (file === undefined) spill();
      return line(json, prefix, suffix);
    },
    writeEntry(entry) {
      if (failure) return Promise.reject(failure);
      if (file === undefined) {
        const cost = heldCost(entry.json);
        const first = order === undefined || state.isFirst(order);
        if (state.reserve(cost) || (order !== undefined && first && state.reserve(cost, true))) {
          part.entries.push(entry);
          part.bytes += cost;
          return undefined;
        }
        if (!first) return state.room().then(() => this.writeEntry(entry));
        spill();
      }
      return line(entry.json, partLinePrefix(entry, !entry.plain));
    },
    async close() {
      if (failure) throw failure;
      done();
      if (file === undefined) {
        part.complete = true;
        return;
      }
      await send();
      file.end();
      await once(file, 'close');
      if (failure) throw failure;
    },
    destroy() {
      file?.destroy();
      done();
      if (state.parts.get(partFile) === part) state.release(partFile);
    },
  };
}

/**
 * The transactions of a part: from `store` when it holds the part whole (as the fetch gave them),
 * else read from its file (`decodePartLineBytes`: views of the chunks read, not copies).
 */
export async function* readPartEntries(
  partFile: string,
  store: PartStore | undefined,
  fields: PartLineFields,
): AsyncGenerator<PartEntry> {
  const part = (store as StoreState | undefined)?.parts.get(partFile);
  if (part?.complete === true) {
    yield* part.entries;
    return;
  }
  for await (const bytes of readNdjsonLineBytes(partFile)) yield decodePartLineBytes(bytes, fields);
}

/** Bytes gathered before a chunk is written: as the part files' writer gathers them. */
const PART_CHUNK = 256 * 1024;
