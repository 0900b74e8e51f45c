/**
 * Restatement records: which restatement holds which place in a close's chain of restatements.
 * A check stages its restatement set, then creates the record of the next place (the superseded
 * restatement's sequence + 1) only if no record has it (the close store's `createOnce`: a link in
 * a folder, `If-None-Match: *` in S3), and only then commits the set. Of two checks that read the
 * same chain, one creates the record and publishes; the other discards its set and is told who
 * took the place. A record names the set it was created for; a record whose set never appeared
 * (its check stopped between the two) holds its place for {@link CLAIM_LEASE_MS}, after which the
 * next check takes the place under the next attempt number.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { TransactionFieldMap } from '../pbs/index.ts';
import { stringifyJson } from '../pbs/index.ts';
import type { SnapshotTransaction } from './closed-set.ts';
import { CloseDataError } from './errors.ts';
import type { CloseRecord } from './records.ts';
import type { CloseStore } from './store.ts';

export const RESTATEMENT_RECORD_FORMAT = 'pbs-export/restatement-record@1';

/**
 * How long a record whose set has not appeared keeps its place (15 minutes): its check may still
 * be committing the set (a commit copies the staged files; the record is created just before).
 */
export const CLAIM_LEASE_MS = 15 * 60 * 1000;

export const restatementRecordSchema = z.object({
  format: z.literal(RESTATEMENT_RECORD_FORMAT),
  /** The close restated (its record's id), its profile and period. */
  close: z.string(),
  profile: z.string(),
  period: z.string(),
  /** The place in the close's chain: 1 for its first restatement, n + 1 for one superseding n. */
  sequence: z.number().int().min(1).max(999_999),
  /** 1, or one more than a record of the same place whose set never appeared. */
  attempt: z.number().int().min(1).max(99),
  /** The restatement set's folder (`restatements/acme/2025-10/…`). */
  prefix: z.string(),
  /** The folder of the restatement it supersedes; null for the first. */
  supersedes: z.string().nullable(),
  checkedAt: z.iso.datetime(),
  /** When the record was created, the set staged whole. */
  claimedAt: z.iso.datetime(),
  /** SHA-256 of the period's transactions as the restatement states them ({@link transactionsDigest}). */
  transactions: z.string().regex(/^[0-9a-f]{64}$/),
});

export type RestatementRecord = z.infer<typeof restatementRecordSchema>;

/** Where a close's restatement records are: `restatements/{profile}/{period}/records/{close id}/`. */
export function recordsFolder(close: Pick<CloseRecord, 'profile' | 'period' | 'id'>): string {
  return `restatements/${close.profile}/${close.period}/records/${close.id}/`;
}

/** The key of a record: its place and attempt (`…/000002-1.json`), so racing checks race for it. */
export function recordKey(
  close: Pick<CloseRecord, 'profile' | 'period' | 'id'>,
  sequence: number,
  attempt: number,
): string {
  return `${recordsFolder(close)}${String(sequence).padStart(6, '0')}-${attempt}.json`;
}

/** A record's file name (temporary names of a folder's writer are not). */
const RECORD_NAME = /^\d{6}-\d{1,2}\.json$/;

/** The close's records among `keys` (a listing of its period's restatements folder), read and checked. */
export async function readRecords(
  close: Pick<CloseRecord, 'profile' | 'period' | 'id'>,
  keys: readonly string[],
  store: Pick<CloseStore, 'read' | 'location'>,
): Promise<RestatementRecord[]> {
  const folder = recordsFolder(close);
  const records: RestatementRecord[] = [];
  for (const key of keys) {
    if (!key.startsWith(folder) || !RECORD_NAME.test(key.slice(folder.length))) continue;
    const bytes = await store.read(key);
    if (bytes === null) continue;
    try {
      records.push(restatementRecordSchema.parse(JSON.parse(bytes.toString('utf8'))));
    } catch (error) {
      throw new CloseDataError(
        store.location(key),
        'is not a restatement record this version can read (records are written whole: restore it from a backup, or move it out of records/ if no restatement set names it)',
        { cause: error },
      );
    }
  }
  return records.sort((a, b) => a.sequence - b.sequence || a.attempt - b.attempt);
}

/**
 * Creates `record` at its key unless another check's record has it: true when created (the
 * check may now publish its set), false when taken.
 */
export function claimPlace(
  store: Pick<CloseStore, 'createOnce'>,
  record: RestatementRecord,
): Promise<boolean> {
  return store.createOnce(
    recordKey(
      { profile: record.profile, period: record.period, id: record.close },
      record.sequence,
      record.attempt,
    ),
    `${JSON.stringify(record, null, 2)}\n`,
  );
}

/** Whether a record whose set has not appeared still holds its place at `now` (see {@link CLAIM_LEASE_MS}). */
export function holdsPlace(record: RestatementRecord, now: Date): boolean {
  return now.getTime() - Date.parse(record.claimedAt) < CLAIM_LEASE_MS;
}

/**
 * SHA-256 of the transactions a restatement states, in their order, each without its
 * `lastModifiedDate` (a new instant alone is no change): two checks that found the same data have
 * the same digest.
 */
export function transactionsDigest(
  transactions: readonly SnapshotTransaction[],
  fields: Pick<TransactionFieldMap, 'lastModifiedDate'>,
): string {
  const hash = createHash('sha256');
  for (const tx of transactions) {
    const { [fields.lastModifiedDate]: _instant, ...rest } = tx.data as Record<string, unknown>;
    hash.update(`${stringifyJson(rest)}\n`);
  }
  return hash.digest('hex');
}
