/**
 * The corrected snapshot: the closed snapshot with the changes found applied (deleted records
 * removed, modified ones replaced, added ones inserted), in the snapshot's order (date, then id).
 * With the closed snapshot it is all a restatement is computed from, so `render` can rebuild it
 * offline.
 */
import { writeFile } from 'node:fs/promises';
import { gzipSync } from 'node:zlib';
import { transactionId, transactionInstant } from '../export/index.ts';
import { stringifyJson } from '../pbs/index.ts';
import type { ClosedSet, SnapshotTransaction } from './closed-set.ts';
import type { TransactionChange } from './detect.ts';
import type { CloseRecord } from './records.ts';

/** The restatement a new one supersedes, as the new one's corrected snapshot records it. */
export interface SupersededRestatement {
  /** Its set's folder (`restatements/acme/2025-10/…`) and the instant it was checked. */
  prefix: string;
  checkedAt: string;
  /** Its corrected snapshot: name and SHA-256 as its manifest lists them. */
  correctedSnapshot: { name: string; sha256: string };
  /**
   * What the closed journal and the adjusting files of the restatements up to that one declare
   * (Beancount's `open` and `commodity`), so the new file does not declare them again. Absent
   * (a restatement that did not record it): the closed and that one's corrected journal's.
   */
  declared?: { accounts: string[]; tokens: string[] };
}

/** What the corrected snapshot's header adds to the closed one's (key `restatement`). */
export interface CorrectedHeaderInfo {
  close: CloseRecord;
  /** The closed snapshot: name and SHA-256 as its manifest lists them. */
  closedSnapshot: { name: string; sha256: string };
  /** When the service was asked. */
  checkedAt: string;
  /**
   * The instant the timeline was asked from: the closed set's fetch instant. Absent (older
   * snapshots, which asked from the close): the close's instant.
   */
  since?: string;
  /**
   * The latest restatement of the same close when this one was made: this one states every
   * change since the close again, and its adjusting entries are the difference to that one's
   * corrected journal (what the restatements up to it have booked). Absent: the first.
   */
  supersedes?: SupersededRestatement;
  /** The timeline's `lastModifiedDate` of each changed id. */
  lastModified: Record<string, string>;
  /**
   * Its place in the close's chain of restatements (1: the first; see restatement-records.ts).
   * Absent: made before restatement records.
   */
  sequence?: number;
  /**
   * The first day of the profile's first open period when the check ran (`YYYY-MM-DD`): the date
   * of the adjusting entries. Absent (older snapshots): the day after the closed period.
   */
  adjustingDate?: string;
}

/** What the header records besides the closed set and the changes (see {@link CorrectedHeaderInfo}). */
export interface CorrectedOptions {
  adjustingDate?: string;
  sequence?: number;
  since?: string;
  supersedes?: SupersededRestatement;
}

/** Writes the corrected snapshot of `set` under `changes` to `file` (gzipped NDJSON). */
export async function writeCorrectedSnapshot(
  set: ClosedSet,
  changes: readonly TransactionChange[],
  file: string,
  checkedAt: Date,
  options: CorrectedOptions = {},
): Promise<void> {
  const kept = correctedTransactions(set, changes);
  const info: CorrectedHeaderInfo = {
    close: set.close,
    closedSnapshot: { name: set.snapshotName, sha256: set.snapshotSha256 },
    checkedAt: checkedAt.toISOString(),
    lastModified: Object.fromEntries(changes.map((change) => [change.id, change.lastModified])),
    ...(options.adjustingDate === undefined ? {} : { adjustingDate: options.adjustingDate }),
    ...(options.since === undefined ? {} : { since: options.since }),
    ...(options.supersedes === undefined ? {} : { supersedes: options.supersedes }),
    ...(options.sequence === undefined ? {} : { sequence: options.sequence }),
  };
  const header = { ...set.header, createdAt: checkedAt.toISOString(), restatement: info };
  const lines = [header, ...kept.map((tx) => ({ kind: 'transaction', shard: tx.shard, data: tx.data }))];
  // Scratch only, so a plain write: `file` is in the check's own temporary folder (removed when it
  // ends); the restatement set publishes a copy through its sink (staged, verified, committed
  // whole), and nothing reads this file once the check is over.
  await writeFile(file, gzipSync(`${lines.map((line) => stringifyJson(line)).join('\n')}\n`));
}

/**
 * The transactions of `set` under `changes`: deleted ones removed, modified ones replaced, added
 * ones inserted, in the snapshot's order (date, then id).
 */
export function correctedTransactions(
  set: ClosedSet,
  changes: readonly TransactionChange[],
): SnapshotTransaction[] {
  const { fields } = set;
  const byId = new Map(changes.map((change) => [change.id, change]));
  const kept: SnapshotTransaction[] = [];
  for (const tx of set.transactions) {
    const change = byId.get(transactionId(tx.data, fields));
    if (change === undefined) kept.push(tx);
    else if (change.after !== null)
      kept.push({ shard: shardOf(set, change.after, change.id, tx.shard), data: change.after });
  }
  for (const change of changes) {
    if (change.kind === 'added' && change.after !== null) {
      kept.push({ shard: shardOf(set, change.after, change.id, undefined), data: change.after });
    }
  }
  const instant = (tx: SnapshotTransaction) =>
    transactionInstant(tx.data, fields, transactionId(tx.data, fields));
  kept.sort(
    (a, b) =>
      instant(a) - instant(b) || compare(transactionId(a.data, fields), transactionId(b.data, fields)),
  );
  return kept;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The shard a changed record is filed under: the window its date falls in (the gains feed reads
 * the window label before `~`), else the shard it had.
 */
function shardOf(
  set: ClosedSet,
  data: SnapshotTransaction['data'],
  id: string,
  had: string | undefined,
): string {
  const at = transactionInstant(data, set.fields, id);
  const window = set.header.windows.find((w) => at >= Date.parse(w.start) && at < Date.parse(w.end));
  if (had !== undefined && window !== undefined && had.split('~')[0] === window.label) return had;
  return window?.label ?? had ?? 'restated';
}
