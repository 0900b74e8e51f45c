/**
 * The restatement a new one supersedes: the latest of the same close's chain (those of an earlier
 * close of the period, reopened since, are not its), by the restatement records (`restatement-
 * records.ts`: the place each published restatement took) and, before records, by the instant
 * each was checked. Its corrected snapshot is the period as the restatements up to it have booked
 * it: a check makes a new restatement only when the service's data now differs from it, and the
 * new one's adjusting entries are the difference to it.
 */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readSnapshotHeader, readSnapshotRecords, transactionId } from '../export/index.ts';
import type { RawTransaction, TransactionFieldMap } from '../pbs/index.ts';
import type { Sink } from '../storage/index.ts';
import type { SnapshotTransaction } from './closed-set.ts';
import type { SupersededRestatement } from './corrected.ts';
import { fieldChanges } from './detect.ts';
import { CloseDataError } from './errors.ts';
import type { RestatementManifest } from './files.ts';
import type { CloseRecord } from './records.ts';
import { type RestatementRecord, readRecords } from './restatement-records.ts';
import type { CloseStore } from './store.ts';

/** The latest restatement of a close, read back. */
export interface PriorRestatement {
  prefix: string;
  manifest: RestatementManifest;
  /** Its place in the close's chain (1: the first restatement). */
  sequence: number;
  /** Its corrected snapshot, copied into the caller's scratch folder (checked against its manifest). */
  correctedFile: string;
  /** Its transactions by id, as its corrected snapshot holds them. */
  transactions: Map<string, RawTransaction>;
  /** What the superseding restatement's corrected snapshot records of it. */
  superseded: SupersededRestatement;
}

const CORRECTED_SUFFIX = '_corrected_snapshot.ndjson.gz';

/** Where `close`'s period's restatements are: `restatements/{profile}/{period}/`. */
export function restatementsFolder(close: Pick<CloseRecord, 'profile' | 'period'>): string {
  return `restatements/${close.profile}/${close.period}/`;
}

/** A close's chain of restatements as a check finds it. */
export interface RestatementChain {
  /** The restatement in force (the latest of the chain), or null when none was published. */
  latest: PriorRestatement | null;
  /** The place the next restatement takes: the latest's sequence + 1. */
  next: number;
  /**
   * Records of that place whose sets have not appeared (a check publishing it now, or one that
   * stopped between the record and the set), oldest attempt first.
   */
  pending: RestatementRecord[];
}

/**
 * The chain of `close`'s restatements: the latest published (the restatement of the highest
 * place whose record's set is there; restatements published before records count in the order
 * they were checked, first), the next place and the records waiting for it. The latest's
 * corrected snapshot must have the SHA-256 its manifest lists (else {@link CloseDataError}).
 */
export async function restatementChain(
  close: CloseRecord,
  deps: { store: Pick<CloseStore, 'read' | 'location'>; sink: Pick<Sink, 'list'> },
  workDir: string,
): Promise<RestatementChain> {
  const folder = restatementsFolder(close);
  const keys = await deps.sink.list(folder);
  const manifests = new Map<string, RestatementManifest>();
  for (const key of keys) {
    if (!/^[^/]+\/manifest\.json$/.test(key.slice(folder.length))) continue;
    const manifest = parseManifest(await deps.store.read(key), deps.store.location(key));
    if (manifest?.close?.id === close.id) manifests.set(key.slice(0, -'/manifest.json'.length), manifest);
  }
  const records = await readRecords(close, keys, deps.store);
  const published = (r: RestatementRecord) => manifests.get(r.prefix)?.sequence === r.sequence;
  const order = (m: RestatementManifest, p: string) => `${m.checkedAt}\u0000${p}`;
  // Before records, restatements were chained by the instant they were checked.
  const unrecorded = [...manifests]
    .filter(([, manifest]) => manifest.sequence === undefined)
    .sort(([pa, a], [pb, b]) => (order(a, pa) < order(b, pb) ? -1 : 1))
    .map(([prefix, manifest], k) => ({ prefix, manifest, sequence: k + 1, attempt: 0 }));
  const recorded = records.filter(published).map((r) => ({
    prefix: r.prefix,
    manifest: manifests.get(r.prefix) as RestatementManifest,
    sequence: r.sequence,
    attempt: r.attempt,
  }));
  const latest = [...unrecorded, ...recorded].reduce<(typeof recorded)[number] | null>(
    (best, c) =>
      best === null ||
      c.sequence > best.sequence ||
      (c.sequence === best.sequence && c.attempt > best.attempt)
        ? c
        : best,
    null,
  );
  const next = (latest?.sequence ?? 0) + 1;
  return {
    latest:
      latest === null
        ? null
        : await readPrior(latest.prefix, latest.manifest, latest.sequence, deps.store, workDir),
    next,
    pending: records.filter((r) => r.sequence === next && !published(r)),
  };
}

function parseManifest(bytes: Buffer | null, location: string): RestatementManifest | null {
  if (bytes === null) return null;
  try {
    return JSON.parse(bytes.toString('utf8')) as RestatementManifest;
  } catch (error) {
    throw new CloseDataError(location, 'is not a restatement manifest this version can read', {
      cause: error,
    });
  }
}

async function readPrior(
  prefix: string,
  manifest: RestatementManifest,
  sequence: number,
  store: Pick<CloseStore, 'read' | 'location'>,
  workDir: string,
): Promise<PriorRestatement> {
  const listed = (manifest.files ?? []).find((file) => file.name.endsWith(CORRECTED_SUFFIX));
  const key = `${prefix}/${listed?.name ?? `…${CORRECTED_SUFFIX}`}`;
  const bytes = listed === undefined ? null : await store.read(key);
  if (listed === undefined || bytes === null || sha256(bytes) !== listed.sha256) {
    throw new CloseDataError(
      store.location(key),
      'is missing or differs from its manifest: the restatement a new one would supersede cannot be read',
    );
  }
  const correctedFile = join(workDir, `superseded-${prefix.split('/').at(-1)}${CORRECTED_SUFFIX}`);
  await writeFile(correctedFile, bytes);
  const { fields } = await readSnapshotHeader(correctedFile);
  const transactions = new Map<string, RawTransaction>();
  for await (const record of readSnapshotRecords(correctedFile)) {
    if (record.kind === 'transaction') transactions.set(transactionId(record.data, fields), record.data);
  }
  return {
    prefix,
    manifest,
    sequence,
    correctedFile,
    transactions,
    superseded: {
      prefix,
      checkedAt: manifest.checkedAt,
      correctedSnapshot: { name: listed.name, sha256: listed.sha256 },
      ...(manifest.adjusting?.declared === undefined ? {} : { declared: manifest.adjusting.declared }),
    },
  };
}

/**
 * Whether `now` (the corrected transactions of a check) holds what `before` holds: the same ids,
 * and records that differ in no field but `lastModifiedDate` (a new instant alone is no change).
 */
export function sameTransactions(
  before: ReadonlyMap<string, RawTransaction>,
  now: readonly SnapshotTransaction[],
  fields: TransactionFieldMap,
): boolean {
  if (before.size !== now.length) return false;
  return now.every((tx) => {
    const was = before.get(transactionId(tx.data, fields));
    return (
      was !== undefined &&
      fieldChanges(was, tx.data).every((change) => change.field === fields.lastModifiedDate)
    );
  });
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
