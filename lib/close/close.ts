/** Closing and reopening a profile's period: the records, checked against the set and each other. */
import { createHash } from 'node:crypto';
import { ValidationError } from '../errors.ts';
import {
  CloseRecordTakenError,
  PeriodAlreadyClosedError,
  PeriodNotClosedError,
  RunNotFoundError,
} from './errors.ts';
import {
  CLOSE_FORMAT,
  type CloseRecord,
  checkCloseTarget,
  closePeriodLabel,
  newCloseId,
  periodHistory,
  setPrefix,
} from './records.ts';
import type { CloseStore } from './store.ts';

/** What a close names: the set and the person. */
export interface CloseInput {
  profile: string;
  /** `YYYY-MM`, `YYYY` or a tax year `YYYY-MM-DD..YYYY-MM-DD`. */
  period: string;
  runId: string;
  /** Who closes: the portal's or API caller's name, or the CLI user. */
  by: string;
  reason?: string;
}

/** What closing uses besides the input. */
export interface CloseDeps {
  store: CloseStore;
  now: () => Date;
  /**
   * Called once the record is stored, with the set's files (the manifest's keys and the manifest):
   * on AWS it applies S3 Object Lock retention to them. Its failure fails the close (the record
   * stays, the set is closed; the operator runs the close's lock again).
   */
  lock?: (record: CloseRecord, keys: string[]) => Promise<void>;
}

/**
 * Closes `input.period` of `input.profile` at the set of `input.runId`: refuses a set without
 * manifest and a period closed already; stores the record (with the manifest's SHA-256) and
 * returns it.
 */
export async function closePeriod(input: CloseInput, deps: CloseDeps): Promise<CloseRecord> {
  const period = closePeriodLabel(input.period);
  checkCloseTarget(input);
  const by = checkedBy(input.by);
  const prefix = setPrefix(input.profile, period, input.runId);
  const manifest = await deps.store.read(`${prefix}/manifest.json`);
  if (manifest === null) throw new RunNotFoundError(deps.store.location(prefix));
  const sha256 = createHash('sha256').update(manifest).digest('hex');
  const record = await appendNext(deps, input.profile, period, (history) => {
    const last = history[history.length - 1];
    if (last?.action === 'close') throw new PeriodAlreadyClosedError(last);
    const at = deps.now();
    return {
      format: CLOSE_FORMAT,
      id: newCloseId(at, 'close'),
      action: 'close',
      profile: input.profile,
      period,
      runId: input.runId,
      prefix,
      manifestSha256: sha256,
      by,
      at: at.toISOString(),
      reason: input.reason ?? '',
    };
  });
  if (deps.lock) await deps.lock(record, [...manifestKeys(manifest, prefix), `${prefix}/manifest.json`]);
  return record;
}

/**
 * Reopens a closed period: a record of its own (the close stays on file), naming the close it
 * ends. `reason` is required: a reopen is an exception an auditor asks about.
 */
export async function reopenPeriod(
  input: { profile: string; period: string; by: string; reason: string },
  deps: Pick<CloseDeps, 'store' | 'now'>,
): Promise<CloseRecord> {
  const period = closePeriodLabel(input.period);
  if (input.reason.trim() === '')
    throw new ValidationError('reason', 'is required to reopen a closed period');
  const by = checkedBy(input.by);
  return appendNext(deps, input.profile, period, (history) => {
    const current = history[history.length - 1];
    if (current?.action !== 'close') throw new PeriodNotClosedError(input.profile, period);
    const at = deps.now();
    return {
      ...current,
      id: newCloseId(at, 'reopen'),
      action: 'reopen',
      by,
      at: at.toISOString(),
      reason: input.reason,
      reopens: current.id,
    };
  });
}

/** Rounds of read-decide-create before two writers racing for a period's next record give up. */
const APPEND_ROUNDS = 5;

/**
 * Reads the period's history, lets `next` decide the record (or refuse, by throwing) and creates
 * it as the history's next (its sequence number names its key). When another writer created that
 * key meanwhile, reads the history again and decides again: a second close then finds the period
 * closed and a second reopen finds it open, as if they had come one after the other.
 */
async function appendNext(
  deps: Pick<CloseDeps, 'store'>,
  profile: string,
  period: string,
  next: (history: CloseRecord[]) => Omit<CloseRecord, 'sequence'>,
): Promise<CloseRecord> {
  for (let round = 1; ; round += 1) {
    const history = periodHistory(await deps.store.records(), profile, period);
    const record: CloseRecord = { ...next(history), sequence: history.length + 1 };
    try {
      await deps.store.append(record);
      return record;
    } catch (error) {
      if (!(error instanceof CloseRecordTakenError) || round >= APPEND_ROUNDS) throw error;
    }
  }
}

function checkedBy(by: string): string {
  const trimmed = by.trim();
  if (trimmed === '' || trimmed.length > 200)
    throw new ValidationError('by', 'must name who closes (1-200 characters)');
  return trimmed;
}

/** The keys of the files a manifest lists (relative to the store's root). */
function manifestKeys(manifest: Buffer, prefix: string): string[] {
  const parsed = JSON.parse(manifest.toString('utf8')) as { files?: { name?: string }[] };
  return (parsed.files ?? []).map((file) => `${prefix}/${String(file.name)}`);
}
