import { PbsExportError } from '../errors.ts';
import type { RawTimelineItem, RawTransaction } from '../pbs/model.ts';
import { getPath } from '../pbs/path.ts';
import type { TransactionFieldMap } from '../pbs/shape.ts';
import type { FetchedShard } from './fetch.ts';
import { createNdjsonWriter, readNdjsonLines, type SnapshotHeader, type SnapshotRecord } from './snapshot.ts';

export interface AssembleInput {
  header: SnapshotHeader;
  /** Windows in order; each transaction is kept only inside its window's `[start, end)`. */
  windows: readonly { index: number; start: Date; end: Date }[];
  fetched: readonly FetchedShard[];
  fields: Pick<TransactionFieldMap, 'id' | 'date'>;
  /** Timeline items for the changes report, when requested. */
  changes?: AsyncIterable<RawTimelineItem>;
  snapshotFile: string;
  /** Sees every record as it is written (so the reports' first pass needs no extra read). */
  onRecord?: (record: SnapshotRecord) => void;
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
 * ordered by date then id, then the timeline items. Only one window is held in memory at a time.
 */
export async function assembleSnapshot(input: AssembleInput): Promise<AssembleResult> {
  const writer = createNdjsonWriter(input.snapshotFile);
  const result: AssembleResult = { transactions: 0, duplicates: 0, outsideWindow: 0, changes: 0 };
  try {
    await writer.write(input.header);
    for (const window of input.windows) {
      const parts = input.fetched.filter((fetched) => fetched.shard.window.index === window.index);
      // Only the text is kept (parsed again when emitted): a parsed object takes several times
      // the memory of its JSON, and a dense window holds tens of thousands of them.
      const kept = new Map<string, { at: number; id: string; shard: string; line: string }>();
      for (const part of parts) {
        for await (const line of readNdjsonLines(part.partFile)) {
          const item = JSON.parse(line) as RawTransaction;
          const id = transactionId(item, input.fields);
          const at = transactionInstant(item, input.fields, id);
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
      for (const entry of ordered) {
        if (input.onRecord !== undefined) {
          const data = JSON.parse(entry.line) as RawTransaction;
          input.onRecord({ kind: 'transaction', shard: entry.shard, data });
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
        input.onRecord?.(record);
        await writer.write(record);
        result.changes += 1;
      }
    }
    await writer.close();
  } catch (error) {
    writer.destroy();
    throw error;
  }
  return result;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function transactionId(item: RawTransaction, fields: Pick<TransactionFieldMap, 'id'>): string {
  const id = getPath(item, fields.id);
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return String(id);
  throw new PbsExportError('invalid_transaction', `transaction without an id at field "${fields.id}"`);
}

/** Milliseconds since the epoch of a transaction's date (ISO text or epoch milliseconds). */
export function transactionInstant(
  item: RawTransaction,
  fields: Pick<TransactionFieldMap, 'date'>,
  id: string,
): number {
  const value = getPath(item, fields.date);
  const at = typeof value === 'number' ? value : typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(at)) {
    throw new PbsExportError(
      'invalid_transaction',
      `transaction ${id}: field "${fields.date}" is not a date (${JSON.stringify(value)?.slice(0, 40)})`,
    );
  }
  return at;
}
