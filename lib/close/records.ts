/**
 * Close records: who closed (or reopened) which set of a profile's period, when and why. They are
 * append-only: a close is never edited or deleted, a reopen is a record of its own, and the state
 * of a period is its latest record.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { PROFILE_NAME } from '../export/index.ts';

export const CLOSE_FORMAT = 'pbs-export/close@1';

/**
 * Where close records live beside the sets (folder or bucket): `closes/{profile}/{period}/{sequence}.json`
 * (`000001.json` for a period's first record; records of versions before sequences: `{id}.json`).
 */
export const CLOSES_PREFIX = 'closes';

/**
 * A period as sets are filed under it: a month `YYYY-MM`, a year `YYYY`, or a tax year (any range
 * of days) `YYYY-MM-DD_YYYY-MM-DD` (`..` is accepted and filed as `_`, as the export files it).
 */
const PERIOD = /^\d{4}(-(0[1-9]|1[0-2]))?$|^\d{4}-\d{2}-\d{2}_\d{4}-\d{2}-\d{2}$/;
const RUN_ID = /^\d{8}T\d{6}Z-[0-9a-z]{1,32}$/;

export const closeRecordSchema = z.object({
  format: z.literal(CLOSE_FORMAT),
  id: z.string().regex(/^\d{8}T\d{9}Z-(close|reopen)-[0-9a-f]{6}$/),
  action: z.enum(['close', 'reopen']),
  profile: z.string().regex(PROFILE_NAME),
  period: z.string().regex(PERIOD),
  runId: z.string().regex(RUN_ID),
  /** The set's folder relative to the sink root: `reports/{profile}/{period}/{runId}`. */
  prefix: z.string(),
  /** SHA-256 of the set's `manifest.json` as stored: the manifest vouches for every other file. */
  manifestSha256: z.string().regex(/^[0-9a-f]{64}$/),
  by: z.string().min(1).max(200),
  at: z.iso.datetime(),
  reason: z.string().max(2000),
  /** A reopen: the id of the close it ends. */
  reopens: z.string().optional(),
  /**
   * The record's place in its period's history (1: the period's first record). It names the
   * record's key, so two writers that read the same history race for the same key and only one
   * can create it. Absent in records of versions before it (their key is their id).
   */
  sequence: z.number().int().min(1).max(999_999).optional(),
});

export type CloseRecord = z.infer<typeof closeRecordSchema>;

/** The period as sets are filed (`2024-04-06..2025-04-05` → `2024-04-06_2025-04-05`); throws naming `field`. */
export function closePeriodLabel(period: string, field = 'period'): string {
  const label = period.replace('..', '_');
  if (!PERIOD.test(label)) {
    throw new ValidationError(
      field,
      `"${period}" is not a month (YYYY-MM), a year (YYYY) or a tax year (YYYY-MM-DD..YYYY-MM-DD)`,
    );
  }
  return label;
}

/** Checks a profile name and a run id as the close needs them; throws naming the field. */
export function checkCloseTarget(
  input: { profile: string; runId: string },
  fields = { profile: 'profile', runId: 'run' },
): void {
  if (!PROFILE_NAME.test(input.profile))
    throw new ValidationError(fields.profile, `"${input.profile}" is not a profile name`);
  if (!RUN_ID.test(input.runId)) {
    throw new ValidationError(
      fields.runId,
      `"${input.runId}" is not a run id (such as 20251103T091500Z-3f9a1c)`,
    );
  }
}

/** The folder of a run's set: `reports/{profile}/{period}/{runId}` (as `runPrefix` files it). */
export function setPrefix(profile: string, period: string, runId: string): string {
  return `reports/${profile}/${period}/${runId}`;
}

/** A new record id: the instant to the millisecond (so ids sort by time), the action, random hex. */
export function newCloseId(at: Date, action: CloseRecord['action']): string {
  const stamp = at.toISOString().replace(/[-:.]/g, '');
  return `${stamp}-${action}-${randomBytes(3).toString('hex')}`;
}

/**
 * Key of a record, relative to the folder or bucket root: determined by the period and the
 * record's sequence number (`closes/acme/2025-10/000002.json`), or its id for an older record.
 */
export function closeKey(record: Pick<CloseRecord, 'profile' | 'period' | 'id' | 'sequence'>): string {
  const name = record.sequence === undefined ? record.id : String(record.sequence).padStart(6, '0');
  return `${CLOSES_PREFIX}/${record.profile}/${record.period}/${name}.json`;
}

/**
 * Records in their period's order: by sequence number; a record without one (older versions)
 * takes its rank by id (time) among those, so a history begun before sequences keeps its order
 * and the records added after it (numbered from its length) follow it.
 */
function inOrder(records: readonly CloseRecord[]): CloseRecord[] {
  const unnumbered = records.filter((r) => r.sequence === undefined).sort((a, b) => a.id.localeCompare(b.id));
  const place = (r: CloseRecord) => r.sequence ?? unnumbered.indexOf(r) + 1;
  return [...records].sort((a, b) => place(a) - place(b) || a.id.localeCompare(b.id));
}

/** The records of one profile's period, oldest first (see {@link inOrder}). */
export function periodHistory(
  records: readonly CloseRecord[],
  profile: string,
  period: string,
): CloseRecord[] {
  return inOrder(records.filter((r) => r.profile === profile && r.period === period));
}

/** The state of one profile's period: its latest record, and the close in force if that is a close. */
export interface PeriodState {
  profile: string;
  period: string;
  /** Every record of the period, oldest first. */
  history: CloseRecord[];
  /** The close in force, or null when the period is open (never closed, or reopened since). */
  closed: CloseRecord | null;
}

/** Groups records by (profile, period), oldest first, and tells which close is in force in each. */
export function periodStates(records: readonly CloseRecord[]): PeriodState[] {
  const byPeriod = new Map<string, CloseRecord[]>();
  for (const record of records) {
    const key = `${record.profile}/${record.period}`;
    byPeriod.set(key, [...(byPeriod.get(key) ?? []), record]);
  }
  return [...byPeriod.values()].map(inOrder).map((history) => {
    const last = history[history.length - 1] as CloseRecord;
    return {
      profile: last.profile,
      period: last.period,
      history,
      closed: last.action === 'close' ? last : null,
    };
  });
}

/** The closes in force (periods closed and not reopened since), oldest first. */
export function closesInForce(records: readonly CloseRecord[]): CloseRecord[] {
  return periodStates(records)
    .map((state) => state.closed)
    .filter((close): close is CloseRecord => close !== null)
    .sort((a, b) => a.id.localeCompare(b.id));
}

/** The close in force whose set is at `prefix` or holds `key` (a file of the set), if any. */
export function closeCovering(closes: readonly CloseRecord[], key: string): CloseRecord | undefined {
  const path = key.replace(/^\/+/, '').replace(/\/+$/, '');
  return closes.find((close) => path === close.prefix || path.startsWith(`${close.prefix}/`));
}
