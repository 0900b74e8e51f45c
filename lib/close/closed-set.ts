/** A closed set read back: its manifest (checked against the close) and its snapshot (checked against the manifest). */
import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ExportRequest } from '../export/index.ts';
import {
  parseExportRequest,
  readSnapshotHeader,
  readSnapshotRecords,
  type SnapshotHeader,
} from '../export/index.ts';
import type { RawTransaction, TransactionFieldMap } from '../pbs/index.ts';
import { CloseDataError } from './errors.ts';
import type { CloseRecord } from './records.ts';
import type { CloseStore } from './store.ts';

/** One transaction of a snapshot, with the shard it was fetched in. */
export interface SnapshotTransaction {
  shard: string;
  data: RawTransaction;
}

/** A closed set as the restatement needs it. */
export interface ClosedSet {
  close: CloseRecord;
  /** The snapshot, copied into the caller's scratch folder. */
  snapshotFile: string;
  /** Its name and SHA-256 as the manifest lists them. */
  snapshotName: string;
  snapshotSha256: string;
  header: SnapshotHeader;
  request: ExportRequest;
  fields: TransactionFieldMap;
  /** Every transaction of the snapshot, in its order. */
  transactions: SnapshotTransaction[];
}

const SNAPSHOT_SUFFIX = '_snapshot.ndjson.gz';

/**
 * Reads the set `close` names: its manifest must have the SHA-256 the close recorded, and its
 * snapshot the SHA-256 the manifest lists (else {@link CloseDataError}: the closed set changed).
 */
export async function readClosedSet(
  close: CloseRecord,
  store: CloseStore,
  workDir: string,
): Promise<ClosedSet> {
  const manifestKey = `${close.prefix}/manifest.json`;
  const manifest = await store.read(manifestKey);
  if (manifest === null)
    throw new CloseDataError(store.location(manifestKey), 'the closed set has no manifest any more');
  if (sha256(manifest) !== close.manifestSha256) {
    throw new CloseDataError(store.location(manifestKey), `differs from the manifest closed on ${close.at}`);
  }
  const files =
    (JSON.parse(manifest.toString('utf8')) as { files?: { name: string; sha256: string }[] }).files ?? [];
  const listed = files.find((file) => file.name.endsWith(SNAPSHOT_SUFFIX));
  if (listed === undefined) throw new CloseDataError(store.location(manifestKey), 'lists no snapshot');
  const snapshotKey = `${close.prefix}/${listed.name}`;
  const bytes = await store.read(snapshotKey);
  if (bytes === null || sha256(bytes) !== listed.sha256) {
    throw new CloseDataError(store.location(snapshotKey), 'is missing or differs from its manifest');
  }
  const snapshotFile = join(workDir, `closed-${close.id}${SNAPSHOT_SUFFIX}`);
  // Scratch only, so a plain write: a copy of bytes already checked against the manifest, in the
  // caller's temporary folder (removed when the check ends); the record is the stored snapshot.
  await writeFile(snapshotFile, bytes);
  const header = await readSnapshotHeader(snapshotFile);
  const transactions: SnapshotTransaction[] = [];
  for await (const record of readSnapshotRecords(snapshotFile)) {
    if (record.kind === 'transaction') transactions.push({ shard: record.shard, data: record.data });
  }
  return {
    close,
    snapshotFile,
    snapshotName: listed.name,
    snapshotSha256: listed.sha256,
    header,
    request: parseExportRequest(header.request as Record<string, unknown>),
    fields: header.fields,
    transactions,
  };
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
