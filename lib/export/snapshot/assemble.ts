import { createReadStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { setImmediate as giveWay } from 'node:timers/promises';
import { isExactNumber, parseJsonValue, stringifyJson } from '../../domain/index.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTimelineItem, RawTransaction, TransactionFieldMap } from '../../pbs/index.ts';
import { type Digest, hashedFile } from '../../storage/index.ts';
import { checkWindowCoverage, type FetchedShard, type FetchShard } from '../fetch/fetch.ts';
import { decodePartLineBytes } from './part-line.ts';
import { readPartLineBytes } from './part-store.ts';
import { BEFORE_RANGE, createSlots, type KeptRange, type Slots, StrayTransactionError } from './slots.ts';
import {
  createNdjsonWriter,
  gzipMember,
  type NdjsonWriter,
  type SnapshotHeader,
  type SnapshotRecord,
} from './snapshot.ts';

/** Shards still being fetched: each one's part file as soon as it is complete. */
export interface ShardsInFlight {
  shards: readonly FetchShard[];
  /** Resolves once shard `index` is fetched in full; rejects when the fetch fails. */
  shard(index: number): Promise<FetchedShard>;
}

export interface AssembleInput {
  /**
   * The snapshot's first line. A function is called once every window is assembled (when the
   * shards' row counts are known): the header is then written as a gzip member of its own before
   * the records, which were compressed meanwhile (a reader of gzip sees one stream).
   */
  header: SnapshotHeader | (() => Promise<SnapshotHeader>);
  /**
   * Windows in order, contiguous. Each transaction goes to the window of its date, whichever
   * window's search returned it (see `slots.ts`); one dated outside `range` is dropped and counted.
   */
  windows: readonly { index: number; start: Date; end: Date }[];
  /** The instants kept (the period, or the gains history); default: the windows' own span. */
  range?: KeptRange;
  /** Fetched shards, or shards still being fetched: a window is assembled once its own are done. */
  fetched: readonly FetchedShard[] | ShardsInFlight;
  fields: Pick<TransactionFieldMap, 'id' | 'date' | 'instants'>;
  /** Timeline items for the changes report, when requested. */
  changes?: AsyncIterable<RawTimelineItem>;
  snapshotFile: string;
  /**
   * Sees each window's records (parsed anew on each pass) before `onRecord` sees them one by one;
   * for a window streamed in batches (see `FetchedShard.inOrder`), its first batch's records.
   */
  onWindow?: (records: Iterable<SnapshotRecord>) => void;
  /**
   * Sees every record as it is written (so the reports' first pass needs no extra read); a
   * promise it returns is awaited before the next record.
   */
  onRecord?: (record: SnapshotRecord) => Promise<void> | undefined | void;
  /** Which copy of an id sent twice with different content the reports use; default `fail`. */
  conflictingCopies?: ConflictingCopiesRule;
  /** Told of each id sent twice with different content. */
  warn?: (message: string) => void;
}

/** See `ExportRequest.conflictingCopies`. */
export type ConflictingCopiesRule = 'fail' | 'first' | 'last';

/** The service sent transaction ids twice with different content, and no rule picks a copy. */
export class ConflictingCopiesError extends PbsExportError {
  readonly ids: readonly string[];

  constructor(ids: readonly string[]) {
    const shown = ids.slice(0, 10).map((id) => JSON.stringify(id));
    super(
      'conflicting_copies',
      `the service sent ${ids.length} transaction id(s) twice with different content (${shown.join(', ')}` +
        `${ids.length > shown.length ? ', …' : ''}); choose the copy the reports keep with ` +
        'conflictingCopies "first" or "last" (CLI: --conflicting-copies), or fix the data at the source',
    );
    this.ids = ids;
  }
}

/** A part file the fetch marked in order (`FetchedShard.inOrder`) holds a line that goes back in time. */
export class PartOrderError extends PbsExportError {
  readonly partFile: string;

  constructor(partFile: string, id: string) {
    super('invalid_part', `part ${partFile}: transaction ${id} is out of date order`);
    this.partFile = partFile;
  }
}

export interface AssembleResult {
  transactions: number;
  /** Identical copies of a transaction seen in more than one shard or page and kept once. */
  duplicates: number;
  /** Copies of an id with different content, kept in the snapshot but not in the reports. */
  conflictingCopies: number;
  /** Transactions the service returned dated outside the kept range (the period), dropped. */
  outsideWindow: number;
  /**
   * Transactions kept in the window of their date although another window's search returned them
   * (and their own did not); the snapshot record's `shard` names the search they came in.
   */
  otherWindow: number;
  changes: number;
}

/** What {@link assembleSnapshot} returns: the counts, and the snapshot's digest when it was taken. */
export type AssembledSnapshot = AssembleResult & {
  /**
   * Size and SHA-256 of the snapshot, taken while it was written when the header was deferred
   * (the header member and the records go through one hashing stream). Absent otherwise.
   */
  digest?: Digest;
};

/**
 * Writes the run's snapshot: the header, then each window's transactions deduplicated by id and
 * ordered by date then id, then the timeline items. Only one window is held in memory at a time;
 * with shards in flight, each window is assembled as soon as its shards are fetched.
 */
export async function assembleSnapshot(input: AssembleInput): Promise<AssembledSnapshot> {
  const deferredHeader = typeof input.header === 'function' ? input.header : null;
  const bodyFile = deferredHeader === null ? input.snapshotFile : `${input.snapshotFile}.body`;
  const writer = createNdjsonWriter(bodyFile);
  const result: AssembleResult = {
    transactions: 0,
    duplicates: 0,
    conflictingCopies: 0,
    outsideWindow: 0,
    otherWindow: 0,
    changes: 0,
  };
  const partsOf = windowParts(input.fetched);
  const routing: Routing = { slots: createSlots(input.windows, input.range), held: new Map(), taken: 0 };
  try {
    if (deferredHeader === null) await writer.write(input.header);
    for (const [position, window] of input.windows.entries()) {
      // One gzip member per window (see `assembleWindow`): the header's, if any, is its own.
      if (position > 0 || deferredHeader === null) await writer.member();
      const parts = await partsOf(window.index);
      checkWindowCoverage(parts);
      // The next window's searches may hold transactions of this one: they are taken now, while
      // this window is still to be written (the next window then leaves them out).
      const next = input.windows[position + 1];
      const pulled =
        next === undefined ? [] : await pullInto(position, await partsOf(next.index), routing, input.fields);
      const incoming = [...(routing.held.get(position) ?? []), ...pulled];
      routing.held.delete(position);
      let first = true;
      for await (const batch of windowBatches(parts, position, incoming, routing, input, result)) {
        // The model learns the live columns from a window's first batch (a window streamed in
        // batches shows it its first {@link STREAM_BATCH} transactions).
        if (first) input.onWindow?.(recordsOf(batch));
        first = false;
        await writeEntries(batch, input, writer);
        result.transactions += batch.length;
      }
      // The window is written: its parts' lines held in memory are not read again.
      for (const part of parts) part.partStore?.release(part.partFile);
    }
    if (input.changes) {
      await writer.member();
      for await (const change of input.changes) {
        const record: SnapshotRecord = { kind: 'change', data: change };
        const pending = input.onRecord?.(record);
        if (pending) await pending;
        await writer.write(record);
        result.changes += 1;
      }
    }
    await writer.close();
    if (deferredHeader !== null) {
      const digest = await prependHeader(await deferredHeader(), bodyFile, input.snapshotFile);
      return { ...result, digest };
    }
  } catch (error) {
    writer.destroy();
    throw error;
  }
  return result;
}

/** What {@link assembleWindow} is given: one window's one shard, and every window of the run. */
export interface WindowInput {
  windows: AssembleInput['windows'];
  range?: KeptRange;
  /** The window's position in `windows`. */
  position: number;
  /** The window's only shard, fetched. */
  part: FetchedShard;
  fields: AssembleInput['fields'];
  /** Where the window's gzip member goes. */
  memberFile: string;
  onWindow?: AssembleInput['onWindow'];
  onRecord?: AssembleInput['onRecord'];
}

/** A window assembled on its own: its counts, and how many records its first batch held. */
export type AssembledWindow = Omit<AssembleResult, 'changes' | 'otherWindow' | 'conflictingCopies'> & {
  /** Records `onWindow` was shown (the first batch, as {@link assembleSnapshot} shows it). */
  firstBatch: number;
};

/**
 * Assembles one window of a run from its only shard, as {@link assembleSnapshot} writes it: the
 * same records in the same order, in a gzip member of the same bytes (the snapshot holds one per
 * window). For a process that holds that shard alone (a Lambda fetch-shard task). Null when the
 * window cannot be assembled alone: its search returned a transaction of another window (the
 * run's assembly moves it across), or copies of an id with different content (the run's rule and
 * warnings decide). Whether another window's search returned one of this window's transactions
 * is that window's to tell.
 */
export async function assembleWindow(input: WindowInput): Promise<AssembledWindow | null> {
  const writer = createNdjsonWriter(input.memberFile);
  const result: AssembleResult = {
    transactions: 0,
    duplicates: 0,
    conflictingCopies: 0,
    outsideWindow: 0,
    otherWindow: 0,
    changes: 0,
  };
  const routing: Routing = { slots: createSlots(input.windows, input.range), held: new Map(), taken: 0 };
  // No warnings from here: a window with conflicting copies is left to the run's assembly.
  const alone: AssembleInput = {
    header: async () => {
      throw new Error('no header in a window');
    },
    windows: input.windows,
    fetched: [input.part],
    fields: input.fields,
    snapshotFile: input.memberFile,
    ...(input.onRecord ? { onRecord: input.onRecord } : {}),
    conflictingCopies: 'first',
  };
  let firstBatch = -1;
  try {
    for await (const batch of windowBatches([input.part], input.position, [], routing, alone, result)) {
      if (routing.held.size > 0 || routing.taken > 0 || result.conflictingCopies > 0) break;
      if (firstBatch < 0) {
        firstBatch = batch.length;
        input.onWindow?.(recordsOf(batch));
      }
      await writeEntries(batch, alone, writer);
      result.transactions += batch.length;
    }
    await writer.close();
  } catch (error) {
    writer.destroy();
    if (error instanceof StrayTransactionError) return null;
    throw error;
  }
  if (routing.held.size > 0 || routing.taken > 0 || result.conflictingCopies > 0) return null;
  return {
    transactions: result.transactions,
    duplicates: result.duplicates,
    outsideWindow: result.outsideWindow,
    firstBatch: Math.max(0, firstBatch),
  };
}

/** Where each transaction goes, and the transactions waiting for a later window. */
interface Routing {
  slots: Slots;
  /** Transactions of later windows returned by earlier windows' searches, by window position. */
  held: Map<number, WindowEntry[]>;
  /** Transactions of the window before, left for it to take (see {@link pullInto}). */
  taken: number;
}

/**
 * What to do with a transaction of slot `slot` found in the searches of the window at `position`:
 * keep it there, drop it (outside the range), hold it for its later window, leave it (the window
 * before took it, see {@link pullInto}), or fail (its window is written already).
 */
function route(
  slot: number,
  position: number,
  slots: Slots,
): 'keep' | 'outside' | 'hold' | 'taken' | 'stray' {
  if (slot === position) return 'keep';
  if (slot === BEFORE_RANGE || slot >= slots.count) return 'outside';
  if (slot > position) return 'hold';
  return slot === position - 1 ? 'taken' : 'stray';
}

/**
 * Routes one line of the window at `position`'s own searches; true when the window keeps it.
 * Throws {@link StrayTransactionError} for a transaction whose window is written already.
 */
function routeOwn(entry: WindowEntry, position: number, routing: Routing, result: AssembleResult): boolean {
  const slot = routing.slots.slotOf(entry.at);
  switch (route(slot, position, routing.slots)) {
    case 'keep':
      return true;
    case 'outside':
      result.outsideWindow += 1;
      return false;
    case 'hold': {
      // Held past this window: a copy of its own, so it does not keep its chunk of the part file.
      entry.line = Buffer.from(entry.line);
      const waiting = routing.held.get(slot);
      if (waiting === undefined) routing.held.set(slot, [entry]);
      else waiting.push(entry);
      return false;
    }
    case 'taken':
      routing.taken += 1;
      return false;
    case 'stray':
      throw new StrayTransactionError(entry.id, entry.at, entry.shard);
  }
}

/**
 * The transactions of the window at `position` that the next window's searches (`nextParts`)
 * returned. A part whose instants are known to start in the next window's slot is not read.
 */
async function pullInto(
  position: number,
  nextParts: readonly FetchedShard[],
  routing: Routing,
  fields: AssembleInput['fields'],
): Promise<WindowEntry[]> {
  const pulled: WindowEntry[] = [];
  const nextStart = routing.slots.startOf(position + 1);
  for (const part of nextParts) {
    if (part.span !== undefined && part.span.first >= nextStart) continue;
    for await (const bytes of readPartLineBytes(part.partFile, part.partStore)) {
      const { at, id, json, plain } = decodePartLineBytes(bytes, fields);
      if (routing.slots.slotOf(at) !== position) continue;
      // A copy: the few lines pulled from a part must not keep its chunks.
      pulled.push({ at, id, shard: part.shard.id, line: Buffer.from(json), plain });
    }
  }
  return pulled;
}

/**
 * A window's transactions in snapshot order, in batches. A window fetched as one shard whose
 * lines came in order of their instants with no id twice (see `FetchedShard.inOrder`), and that
 * no other window's search added to, is streamed: batches of about {@link STREAM_BATCH}, each
 * ending between two instants and sorted by id within an instant, so memory stays bounded
 * whatever the window holds. Any other window (protocol shards, duplicates, lines out of order,
 * transactions from other windows' searches) is collected whole, deduplicated and sorted.
 */
async function* windowBatches(
  parts: readonly FetchedShard[],
  position: number,
  incoming: readonly WindowEntry[],
  routing: Routing,
  input: AssembleInput,
  result: AssembleResult,
): AsyncGenerator<WindowEntry[]> {
  const [only] = parts;
  if (parts.length !== 1 || only?.inOrder !== true || incoming.length > 0) {
    yield await collectWindow(parts, position, incoming, routing, input, result);
    return;
  }
  let batch: WindowEntry[] = [];
  let lastAt = Number.NEGATIVE_INFINITY;
  for await (const bytes of readPartLineBytes(only.partFile, only.partStore)) {
    const { at, id, json: line, plain } = decodePartLineBytes(bytes, input.fields);
    const entry: WindowEntry = { at, id, shard: only.shard.id, line, plain };
    if (!routeOwn(entry, position, routing, result)) continue;
    // The fetch saw these lines in order: a part file that says otherwise was changed since.
    if (at < lastAt) throw new PartOrderError(only.partFile, id);
    // A batch ends between two instants: the transactions of one instant are sorted together.
    if (batch.length >= STREAM_BATCH && lastAt < at) {
      yield batch.sort(snapshotOrder);
      batch = [];
    }
    lastAt = at;
    batch.push(entry);
  }
  if (batch.length > 0) yield batch.sort(snapshotOrder);
}

/** Transactions a streamed window holds at once (see {@link windowBatches}). */
export const STREAM_BATCH = 8192;

/** The records of `entries`, each parsed as it is reached (the model's look-ahead). */
function recordsOf(entries: readonly WindowEntry[]): Iterable<SnapshotRecord> {
  return {
    *[Symbol.iterator]() {
      for (const entry of entries) yield recordOf(entry);
    },
  };
}

function recordOf(entry: WindowEntry): SnapshotRecord {
  // The line's one decoding: its bytes were read from the part file and are written on as they are.
  const text = entry.line.toString('utf8');
  return {
    kind: 'transaction',
    shard: entry.shard,
    // A plain line (see `PartLine.plain`) needs no scan for number tokens a double would change.
    data: (entry.plain ? JSON.parse(text) : parseJsonValue(text)) as RawTransaction,
  };
}

/**
 * Hands each entry to `onRecord` and writes it to the snapshot as the service sent it, followed
 * by the conflicting copies the reports do not use.
 */
async function writeEntries(
  entries: readonly WindowEntry[],
  input: AssembleInput,
  writer: NdjsonWriter,
): Promise<void> {
  for (const [position, entry] of entries.entries()) {
    // Records chain on promises only, which never let the event loop run: now and then give
    // way, so the responses of the shards still being fetched are read and the next requests
    // sent while a window is assembled.
    if (position % YIELD_EVERY === YIELD_EVERY - 1) await giveWay();
    if (input.onRecord !== undefined) {
      const pending = input.onRecord(recordOf(entry));
      if (pending) await pending;
    }
    // The service's own JSON text goes into the snapshot as it came: its bytes, not re-encoded.
    const written = writer.writeJson(entry.line, recordStart(entry.shard), '}');
    if (written) await written;
    // The copies the reports do not use follow their transaction, marked, for the audit.
    for (const copy of entry.otherCopies ?? []) {
      const start = `{"kind":"conflicting-copy","id":${JSON.stringify(entry.id)},"shard":${JSON.stringify(copy.shard)},"data":`;
      await writer.writeJson(copy.line, start, '}');
    }
  }
}

/** The start of a transaction record of `shard`, up to its data (a few shards, millions of records). */
function recordStart(shard: string): string {
  let start = RECORD_STARTS.get(shard);
  if (start === undefined) {
    start = `{"kind":"transaction","shard":${JSON.stringify(shard)},"data":`;
    if (RECORD_STARTS.size >= 10_000) RECORD_STARTS.clear();
    RECORD_STARTS.set(shard, start);
  }
  return start;
}

const RECORD_STARTS = new Map<string, string>();

/** Snapshot order within a window: by instant, then by id. */
function snapshotOrder(a: WindowEntry, b: WindowEntry): number {
  return a.at - b.at || compareText(a.id, b.id);
}

/**
 * One transaction of a window as assembled: its JSON text's UTF-8 bytes (as the part file holds
 * them), and any conflicting copies of it.
 */
interface WindowEntry {
  at: number;
  id: string;
  shard: string;
  line: Buffer;
  /** `line` came from a plain part line: `JSON.parse` reads it exactly. */
  plain: boolean;
  otherCopies?: { shard: string; line: Buffer; plain: boolean }[];
}

/**
 * Reads a window's part files: keeps each transaction of the window once, ordered by date then
 * id, together with the window's transactions other windows' searches returned (`incoming`). An
 * identical copy is dropped and counted; copies with different content are kept aside and
 * resolved by {@link resolveConflicts}. Only the text's bytes are kept (decoded and parsed when
 * emitted): a parsed object takes several times the memory of its JSON, and a dense window holds
 * tens of thousands.
 */
async function collectWindow(
  parts: readonly FetchedShard[],
  position: number,
  incoming: readonly WindowEntry[],
  routing: Routing,
  input: AssembleInput,
  result: AssembleResult,
): Promise<WindowEntry[]> {
  const kept = new Map<string, WindowEntry>();
  const add = (entry: WindowEntry): boolean => {
    const held = kept.get(entry.id);
    if (held === undefined) {
      kept.set(entry.id, entry);
      return true;
    }
    if (sameContent(held.line, entry.line)) result.duplicates += 1;
    else {
      const { shard, line, plain } = entry;
      held.otherCopies = [...(held.otherCopies ?? []), { shard, line, plain }];
    }
    return false;
  };
  for (const part of parts) {
    for await (const bytes of readPartLineBytes(part.partFile, part.partStore)) {
      // The part line carries the instant and id ahead of the JSON: no parse needed here.
      const { at, id, json: line, plain } = decodePartLineBytes(bytes, input.fields);
      const entry: WindowEntry = { at, id, shard: part.shard.id, line, plain };
      if (routeOwn(entry, position, routing, result)) add(entry);
    }
  }
  for (const entry of incoming) if (add(entry)) result.otherWindow += 1;
  const entries = [...kept.values()];
  resolveConflicts(entries, input, result);
  return entries.sort(snapshotOrder);
}

/**
 * Applies the conflicting-copies rule to the entries holding other copies: warns of each id,
 * throws {@link ConflictingCopiesError} under `fail`, else puts the `first` or `last` copy in front.
 */
function resolveConflicts(entries: WindowEntry[], input: AssembleInput, result: AssembleResult): void {
  const conflicting = entries.filter((entry) => entry.otherCopies !== undefined);
  if (conflicting.length === 0) return;
  const rule = input.conflictingCopies ?? 'fail';
  for (const entry of conflicting) {
    const shards = [entry.shard, ...(entry.otherCopies ?? []).map((copy) => copy.shard)];
    input.warn?.(
      `transaction ${JSON.stringify(entry.id)} came ${shards.length} times with different content ` +
        `(shards ${shards.join(', ')}); ${rule === 'fail' ? 'the run fails' : `the reports keep the ${rule} copy`}`,
    );
  }
  if (rule === 'fail') throw new ConflictingCopiesError(conflicting.map((entry) => entry.id));
  for (const entry of conflicting) {
    const copies = entry.otherCopies ?? [];
    result.conflictingCopies += copies.length;
    if (rule === 'last') {
      const last = copies[copies.length - 1] as { shard: string; line: Buffer; plain: boolean };
      entry.otherCopies = [
        { shard: entry.shard, line: entry.line, plain: entry.plain },
        ...copies.slice(0, -1),
      ];
      entry.shard = last.shard;
      entry.line = last.line;
      entry.plain = last.plain;
    }
  }
}

/** True when two JSON texts (their bytes) hold the same value, whatever the order of their keys. */
function sameContent(a: Buffer, b: Buffer): boolean {
  return a.equals(b) || canonicalText(a.toString('utf8')) === canonicalText(b.toString('utf8'));
}

function canonicalText(json: string): string {
  return stringifyJson(sortedKeys(parseJsonValue(json)));
}

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object' || isExactNumber(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort())
    sorted[key] = sortedKeys((value as Record<string, unknown>)[key]);
  return sorted;
}

/** The shards of each window, waiting for shards still in flight. */
function windowParts(fetched: AssembleInput['fetched']): (window: number) => Promise<FetchedShard[]> {
  if (Array.isArray(fetched)) {
    const done = fetched as readonly FetchedShard[];
    return async (window) => done.filter((part) => part.shard.window.index === window);
  }
  const inFlight = fetched as ShardsInFlight;
  return (window) =>
    Promise.all(
      inFlight.shards.flatMap((shard, index) =>
        shard.window.index === window ? [inFlight.shard(index)] : [],
      ),
    );
}

/**
 * Writes `header` as a gzip member of its own, followed by the records' member(s), into
 * `snapshotFile`, through one hashing stream: returns the snapshot's size and SHA-256.
 */
export async function prependHeader(
  header: SnapshotHeader,
  bodyFile: string,
  snapshotFile: string,
): Promise<Digest> {
  const { stream, done } = hashedFile(snapshotFile);
  try {
    await pipeline(gzipMember(`${stringifyJson(header)}\n`), stream, { end: false });
    await pipeline(createReadStream(bodyFile), stream);
  } catch (error) {
    stream.destroy();
    throw error;
  }
  const digest = await done;
  await rm(bodyFile, { force: true });
  return digest;
}

/** Records assembled between two turns of the event loop. */
const YIELD_EVERY = 32;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
