import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { setImmediate as giveWay } from 'node:timers/promises';
import { parseJsonValue } from '../pbs/exact-json.ts';
import type { RawTimelineItem, RawTransaction } from '../pbs/model.ts';
import type { TransactionFieldMap } from '../pbs/shape.ts';
import type { FetchedShard, FetchShard } from './fetch.ts';
import { decodePartLine } from './part-line.ts';
import { createNdjsonWriter, readNdjsonLines, type SnapshotHeader, type SnapshotRecord } from './snapshot.ts';

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
  /** Windows in order; each transaction is kept only inside its window's `[start, end)`. */
  windows: readonly { index: number; start: Date; end: Date }[];
  /** Fetched shards, or shards still being fetched: a window is assembled once its own are done. */
  fetched: readonly FetchedShard[] | ShardsInFlight;
  fields: Pick<TransactionFieldMap, 'id' | 'date'>;
  /** Timeline items for the changes report, when requested. */
  changes?: AsyncIterable<RawTimelineItem>;
  snapshotFile: string;
  /** Sees each window's records (parsed anew on each pass) before `onRecord` sees them one by one. */
  onWindow?: (records: Iterable<SnapshotRecord>) => void;
  /**
   * Sees every record as it is written (so the reports' first pass needs no extra read); a
   * promise it returns is awaited before the next record.
   */
  onRecord?: (record: SnapshotRecord) => Promise<void> | undefined | void;
}

export interface AssembleResult {
  transactions: number;
  /** Transactions seen in more than one shard or page and kept once. */
  duplicates: number;
  /** Transactions the service returned outside the requested window (day-granular windows). */
  outsideWindow: number;
  changes: number;
}

/**
 * Writes the run's snapshot: the header, then each window's transactions deduplicated by id and
 * ordered by date then id, then the timeline items. Only one window is held in memory at a time;
 * with shards in flight, each window is assembled as soon as its shards are fetched.
 */
export async function assembleSnapshot(input: AssembleInput): Promise<AssembleResult> {
  const deferredHeader = typeof input.header === 'function' ? input.header : null;
  const bodyFile = deferredHeader === null ? input.snapshotFile : `${input.snapshotFile}.body`;
  const writer = createNdjsonWriter(bodyFile);
  const result: AssembleResult = { transactions: 0, duplicates: 0, outsideWindow: 0, changes: 0 };
  const partsOf = windowParts(input.fetched);
  try {
    if (deferredHeader === null) await writer.write(input.header);
    for (const window of input.windows) {
      const parts = await partsOf(window.index);
      // Only the text is kept (parsed when emitted): a parsed object takes several times the
      // memory of its JSON, and a dense window holds tens of thousands of them.
      const kept = new Map<string, { at: number; id: string; shard: string; line: string }>();
      for (const part of parts) {
        for await (const text of readNdjsonLines(part.partFile)) {
          // The part line carries the instant and id ahead of the JSON: no parse needed here.
          const { at, id, json: line } = decodePartLine(text, input.fields);
          if (at < window.start.getTime() || at >= window.end.getTime()) {
            result.outsideWindow += 1;
          } else if (kept.has(id)) {
            result.duplicates += 1;
          } else {
            kept.set(id, { at, id, shard: part.shard.id, line });
          }
        }
      }
      const ordered = [...kept.values()].sort((a, b) => a.at - b.at || compareText(a.id, b.id));
      const record = (entry: (typeof ordered)[number]): SnapshotRecord => ({
        kind: 'transaction',
        shard: entry.shard,
        data: parseJsonValue(entry.line) as RawTransaction,
      });
      input.onWindow?.({
        *[Symbol.iterator]() {
          for (const entry of ordered) yield record(entry);
        },
      });
      for (const [position, entry] of ordered.entries()) {
        // Records chain on promises only, which never let the event loop run: now and then give
        // way, so the responses of the shards still being fetched are read and the next
        // requests sent while a window is assembled.
        if (position % YIELD_EVERY === YIELD_EVERY - 1) await giveWay();
        if (input.onRecord !== undefined) {
          const pending = input.onRecord(record(entry));
          if (pending) await pending;
        }
        // The service's own JSON text goes into the snapshot as it came: exact, and not re-encoded.
        await writer.writeJson(
          `{"kind":"transaction","shard":${JSON.stringify(entry.shard)},"data":${entry.line}}`,
        );
      }
      result.transactions += ordered.length;
    }
    if (input.changes) {
      for await (const change of input.changes) {
        const record: SnapshotRecord = { kind: 'change', data: change };
        const pending = input.onRecord?.(record);
        if (pending) await pending;
        await writer.write(record);
        result.changes += 1;
      }
    }
    await writer.close();
    if (deferredHeader !== null) await prependHeader(await deferredHeader(), bodyFile, input.snapshotFile);
  } catch (error) {
    writer.destroy();
    throw error;
  }
  return result;
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

/** Writes `header` as a gzip member of its own, followed by the records' member(s), into `snapshotFile`. */
async function prependHeader(header: SnapshotHeader, bodyFile: string, snapshotFile: string): Promise<void> {
  const headerWriter = createNdjsonWriter(snapshotFile);
  try {
    await headerWriter.write(header);
    await headerWriter.close();
  } catch (error) {
    headerWriter.destroy();
    throw error;
  }
  await pipeline(createReadStream(bodyFile), createWriteStream(snapshotFile, { flags: 'a' }));
  await rm(bodyFile, { force: true });
}

/** Records assembled between two turns of the event loop. */
const YIELD_EVERY = 32;

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
