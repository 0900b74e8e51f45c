/**
 * What the service changed in closed periods since their sets were fetched: the timeline since
 * each closed set's fetch instant (`lastModifiedDate`, deleted items included, as the spec says),
 * each item compared with the closed snapshot's record of the same id. Not since the close: a
 * change made while the set was being fetched, or between the fetch and the close, is in no
 * snapshot either.
 */
import {
  changesSince,
  deletedFlag,
  periodRange,
  transactionId,
  transactionInstant,
} from '../export/index.ts';
import type { RawTimelineItem, RawTransaction, TimelineQuery, TransactionFieldMap } from '../pbs/index.ts';
import { isExactNumber, stringifyJson } from '../pbs/index.ts';
import { type ClosedSet, readClosedSet } from './closed-set.ts';
import { type CloseRecord, closesInForce } from './records.ts';
import type { CloseStore } from './store.ts';

/** One field that differs: its path (`value.amount`, `movements[0].amount`) and the JSON before and after. */
export interface FieldChange {
  field: string;
  before: string | null;
  after: string | null;
}

/** A transaction of a closed period that the service added, modified or deleted after the close. */
export interface TransactionChange {
  kind: 'added' | 'modified' | 'deleted';
  id: string;
  /** The closed snapshot's record (null: added). */
  before: RawTransaction | null;
  /** The service's record now, without the timeline's `source` and `deleted` (null: deleted). */
  after: RawTransaction | null;
  /** The timeline's `lastModifiedDate` of the change. */
  lastModified: string;
  /** Modified: the fields that differ (`lastModifiedDate` itself is not counted as a change). */
  fields: FieldChange[];
}

/** The changes found in one closed period. */
export interface PeriodCheck {
  close: CloseRecord;
  set: ClosedSet;
  /**
   * The instant the timeline was asked from: the closed set's fetch instant (its snapshot's
   * `createdAt`, taken before the first page was asked for), the earliest instant whose changes
   * the snapshot may lack.
   */
  since: string;
  changes: TransactionChange[];
}

/** What {@link detectChanges} uses. */
export interface DetectDeps {
  store: CloseStore;
  /** The signed timeline call of a profile's service client. */
  timeline: (profile: string) => Promise<{ timeline(query?: TimelineQuery): AsyncIterable<RawTimelineItem> }>;
  /** A scratch folder the caller removes (the closed snapshots are copied there). */
  workDir: string;
  /** Only this profile's closes; default every profile's. */
  profile?: string;
}

/**
 * For each close in force (of `profile`, or all), asks the timeline for the changes since its
 * set was fetched and returns the added, modified and deleted transactions of the closed period
 * (each compared with the closed snapshot: an item the snapshot already has as it is now is not
 * a change).
 */
export async function detectChanges(deps: DetectDeps): Promise<PeriodCheck[]> {
  const closes = closesInForce(await deps.store.records()).filter(
    (close) => deps.profile === undefined || close.profile === deps.profile,
  );
  const checks: PeriodCheck[] = [];
  for (const close of closes) {
    const set = await readClosedSet(close, deps.store, deps.workDir);
    const client = await deps.timeline(close.profile);
    const since = fetchInstant(set);
    const latest = await latestItems(client.timeline({ lastModifiedDate: since }), since, set.fields);
    checks.push({ close, set, since: since.toISOString(), changes: compare(set, latest) });
  }
  return checks;
}

/**
 * The earliest instant whose changes the closed snapshot may lack: when its export started (the
 * snapshot's `createdAt`, before any page was asked for), never later than the close.
 */
function fetchInstant(set: ClosedSet): Date {
  const fetched = Date.parse(set.header.createdAt);
  const closed = Date.parse(set.close.at);
  return new Date(Number.isFinite(fetched) ? Math.min(fetched, closed) : closed);
}

/** The latest timeline item of each id since `since` (a service may list an id more than once). */
async function latestItems(
  items: AsyncIterable<RawTimelineItem>,
  since: Date,
  fields: TransactionFieldMap,
): Promise<Map<string, { item: RawTimelineItem; modified: number }>> {
  const latest = new Map<string, { item: RawTimelineItem; modified: number }>();
  // Items a service sent although modified before the fetch are not changes since it.
  const changed = changesSince(items, { since, fields, onDropped: () => {} });
  for await (const item of changed) {
    const id = transactionId(item, fields);
    const modified = transactionInstant(
      item,
      { date: fields.lastModifiedDate, instants: fields.instants },
      id,
    );
    const seen = latest.get(id);
    if (seen === undefined || seen.modified <= modified) latest.set(id, { item, modified });
  }
  return latest;
}

/** The changes of the closed period: each timeline item against the closed snapshot's record. */
function compare(
  set: ClosedSet,
  latest: Map<string, { item: RawTimelineItem; modified: number }>,
): TransactionChange[] {
  const { fields } = set;
  const range = periodRange(set.request.period, set.request.timeZone);
  const [start, end] = [range.start.toMillis(), range.end.toMillis()];
  const closed = new Map(set.transactions.map((tx) => [transactionId(tx.data, fields), tx.data]));
  const inPeriod = (tx: RawTransaction, id: string) => {
    const at = transactionInstant(tx, fields, id);
    return at >= start && at < end;
  };
  const changes: TransactionChange[] = [];
  for (const [id, { item, modified }] of latest) {
    const before = closed.get(id) ?? null;
    const after = deletedFlag(item, fields.deleted, id) ? null : withoutTimelineFields(item, fields);
    const lastModified = new Date(modified).toISOString();
    if (before !== null && after === null) {
      if (inPeriod(before, id))
        changes.push({ kind: 'deleted', id, before, after, lastModified, fields: [] });
    } else if (before === null && after !== null) {
      if (inPeriod(after, id)) changes.push({ kind: 'added', id, before, after, lastModified, fields: [] });
    } else if (before !== null && after !== null && (inPeriod(before, id) || inPeriod(after, id))) {
      const differs = fieldChanges(before, after).filter(
        (change) => change.field !== fields.lastModifiedDate,
      );
      if (differs.length > 0)
        changes.push({ kind: 'modified', id, before, after, lastModified, fields: differs });
    }
  }
  return changes.sort((a, b) => changeDate(a, fields) - changeDate(b, fields) || (a.id < b.id ? -1 : 1));
}

function changeDate(change: TransactionChange, fields: TransactionFieldMap): number {
  return transactionInstant((change.after ?? change.before) as RawTransaction, fields, change.id);
}

/** The item as a transaction: the timeline's `source` and `deleted` fields removed. */
function withoutTimelineFields(item: RawTimelineItem, fields: TransactionFieldMap): RawTransaction {
  const copy = structuredClone(item) as Record<string, unknown>;
  for (const path of [fields.sourceGuid, fields.sourceName, fields.deleted]) deletePath(copy, path);
  return copy as RawTransaction;
}

/** Removes the value at a dotted path, and a parent object left empty. */
function deletePath(target: Record<string, unknown>, path: string): void {
  const keys = path.split('.');
  let parent: Record<string, unknown> = target;
  const chain: [Record<string, unknown>, string][] = [];
  for (const key of keys.slice(0, -1)) {
    const next = parent[key];
    if (next === null || typeof next !== 'object') return;
    chain.push([parent, key]);
    parent = next as Record<string, unknown>;
  }
  delete parent[keys[keys.length - 1] as string];
  for (const [holder, key] of chain.reverse()) {
    const child = holder[key] as Record<string, unknown>;
    if (Object.keys(child).length === 0) delete holder[key];
  }
}

/** The leaf fields that differ between two records (JSON text of each side; null: absent). */
export function fieldChanges(before: unknown, after: unknown): FieldChange[] {
  const left = leaves(before);
  const right = leaves(after);
  const paths = [...new Set([...left.keys(), ...right.keys()])].sort();
  return paths
    .filter((path) => left.get(path) !== right.get(path))
    .map((path) => ({ field: path, before: left.get(path) ?? null, after: right.get(path) ?? null }));
}

function leaves(value: unknown, path = '', out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(value)) {
    value.forEach((item, k) => {
      leaves(item, `${path}[${k}]`, out);
    });
    if (value.length === 0) out.set(path, '[]');
  } else if (value !== null && typeof value === 'object' && !isExactNumber(value)) {
    const entries = Object.entries(value);
    for (const [key, item] of entries) leaves(item, path === '' ? key : `${path}.${key}`, out);
    if (entries.length === 0) out.set(path, '{}');
  } else out.set(path, stringifyJson(value));
  return out;
}
