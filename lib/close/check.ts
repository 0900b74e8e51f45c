/**
 * The check a monthly run (and the operator, `pbs-export check-closes`) makes: detect the changes
 * in every closed period, and for each period whose data now differs from what its latest
 * restatement (or, without one, its closed set) stated, publish a restatement superseding that
 * one and tell the profile's subscribers. Nothing new: nothing is written (a second check finds
 * what the first restated and publishes nothing again); the caller records the one line.
 *
 * A restatement takes the next place in its close's chain only if no other check's record has it
 * (restatement-records.ts): of two checks at the same moment, one publishes; the other discards
 * its set and reports that the period was restated meanwhile, and whether that restatement
 * states what it found (when not, and the other's set is not there yet to supersede, run the
 * check again).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newRunId } from '../export/index.ts';
import type { Sink } from '../storage/index.ts';
import { adjustingDate } from './adjusting.ts';
import { correctedTransactions, writeCorrectedSnapshot } from './corrected.ts';
import { type DetectDeps, detectChanges, type PeriodCheck } from './detect.ts';
import { CloseDataError, RestatementPlaceTakenError } from './errors.ts';
import { publishRestatement, type RestatementManifest, renderRestatement } from './files.ts';
import type { CloseRecord } from './records.ts';
import { buildRestatement } from './restatement.ts';
import {
  claimPlace,
  holdsPlace,
  RESTATEMENT_RECORD_FORMAT,
  type RestatementRecord,
  recordKey,
  restatementRecordSchema,
  transactionsDigest,
} from './restatement-records.ts';
import {
  type PriorRestatement,
  type RestatementChain,
  restatementChain,
  sameTransactions,
} from './superseded.ts';

/** A "changed after close" notice: what the notification topic carries. */
export interface ChangedAfterCloseNotice {
  kind: 'changed-after-close';
  profile: string;
  period: string;
  /** The restatement's sentence. */
  summary: string;
  /** Where the restatement set is (relative to the bucket or folder). */
  prefix: string;
  close: CloseRecord;
}

/** What {@link checkCloses} uses. */
export interface CheckDeps extends Omit<DetectDeps, 'workDir'> {
  /** Where restatements are published (the sets' folder or bucket). */
  sink: Sink;
  now: () => Date;
  /** Parent of the check's scratch folder; default the OS temp folder. */
  workDir?: string;
  /** Told of each period that changed, once its restatement is published; never throws. */
  notify?: (notice: ChangedAfterCloseNotice) => Promise<void>;
}

/** The outcome of one check. */
export interface CloseCheckResult {
  checkedAt: string;
  /** Closes in force that were checked. */
  checked: number;
  /** Periods that changed, with their restatement. */
  restated: { close: CloseRecord; prefix: string; manifest: RestatementManifest }[];
  /**
   * Periods that changed and that another check restated at the same moment (its record took the
   * place first): that restatement's folder, and whether it states the transactions this check
   * found (`same`; when not, run the check again once that restatement is published).
   */
  meanwhile: { close: CloseRecord; prefix: string; same: boolean; recordedAt: string }[];
  /** The line a run's manifest records (`closeCheck`), e.g. `2 closed periods checked: no change`. */
  line: string;
}

/**
 * Checks every close in force (of `deps.profile`, or all) and publishes a restatement per period
 * whose data changed since its latest restatement (or its close).
 */
export async function checkCloses(deps: CheckDeps): Promise<CloseCheckResult> {
  const checkedAt = deps.now();
  const workDir = await mkdtemp(join(deps.workDir ?? tmpdir(), 'pbs-export-close-check-'));
  try {
    const checks = await detectChanges({ ...deps, workDir });
    const restated: CloseCheckResult['restated'] = [];
    const meanwhile: CloseCheckResult['meanwhile'] = [];
    for (const check of checks) {
      const date = adjustingDate(
        check.close.profile,
        check.close.period,
        checks.map((c) => c.close),
      );
      const outcome = await checkPeriod(check, checkedAt, date, workDir, deps);
      if (outcome?.kind === 'restated') restated.push(outcome.restated);
      else if (outcome?.kind === 'meanwhile') meanwhile.push({ close: check.close, ...outcome.by });
    }
    return {
      checkedAt: checkedAt.toISOString(),
      checked: checks.length,
      restated,
      meanwhile,
      line: checkLine(checks.length, restated, meanwhile),
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Rounds of read-restate-record for one period before a check that keeps losing its place reports it. */
const PLACE_ROUNDS = 3;

type PeriodOutcome =
  | { kind: 'restated'; restated: CloseCheckResult['restated'][number] }
  | { kind: 'meanwhile'; by: { prefix: string; same: boolean; recordedAt: string } }
  | null;

/**
 * Restates one period if its data changed since its latest restatement: takes the chain's next
 * place, or, when another check's record has it, reports that check's restatement; when that one
 * states other data and is published by the next round, supersedes it.
 */
async function checkPeriod(
  check: PeriodCheck,
  checkedAt: Date,
  date: string,
  workDir: string,
  deps: CheckDeps,
): Promise<PeriodOutcome> {
  const digest = transactionsDigest(correctedTransactions(check.set, check.changes), check.set.fields);
  let taker: RestatementRecord | null = null;
  for (let round = 1; round <= PLACE_ROUNDS; round += 1) {
    const chain = await restatementChain(check.close, deps, workDir);
    if (!changedSince(check, chain.latest)) {
      // Published meanwhile by the check that took the place: what this one found.
      return taker === null ? null : meanwhileBy(taker, null);
    }
    const waiting = chain.pending.filter((record) => holdsPlace(record, deps.now())).at(-1);
    if (waiting !== undefined) return meanwhileBy(waiting, digest);
    const attempt = Math.max(0, ...chain.pending.map((record) => record.attempt)) + 1;
    const restated = await restate(check, chain, attempt, digest, checkedAt, date, workDir, deps);
    if (!('taken' in restated)) return { kind: 'restated', restated };
    taker = restated.taken;
    if (taker.transactions === digest) return meanwhileBy(taker, digest);
  }
  return meanwhileBy(taker as RestatementRecord, digest);
}

/** The restatement `record` names, and whether it states what this check found (`digest`; null: it does). */
function meanwhileBy(record: RestatementRecord, digest: string | null): PeriodOutcome {
  const same = digest === null || record.transactions === digest;
  return { kind: 'meanwhile', by: { prefix: record.prefix, same, recordedAt: record.claimedAt } };
}

/**
 * Whether the period as the service has it now differs from what was last stated: the closed set
 * (no restatement yet: any change), or the latest restatement's corrected snapshot.
 */
function changedSince(check: PeriodCheck, prior: PriorRestatement | null): boolean {
  if (prior === null) return check.changes.length > 0;
  return !sameTransactions(
    prior.transactions,
    correctedTransactions(check.set, check.changes),
    check.set.fields,
  );
}

/**
 * Builds the period's restatement superseding the chain's latest, stages it, records it at the
 * chain's next place (`attempt`) and publishes it; when another check's record has the place, the
 * staged set is discarded and that record returned as `taken`.
 */
async function restate(
  check: PeriodCheck,
  chain: RestatementChain,
  attempt: number,
  digest: string,
  checkedAt: Date,
  date: string,
  workDir: string,
  deps: CheckDeps,
): Promise<CloseCheckResult['restated'][number] | { taken: RestatementRecord }> {
  const { close } = check;
  const prior = chain.latest;
  const dir = await mkdtemp(join(workDir, 'restatement-'));
  const correctedFile = join(dir, 'corrected.ndjson.gz');
  await writeCorrectedSnapshot(check.set, check.changes, correctedFile, checkedAt, {
    adjustingDate: date,
    since: check.since,
    sequence: chain.next,
    ...(prior === null ? {} : { supersedes: prior.superseded }),
  });
  const restatement = await buildRestatement(
    check.set.snapshotFile,
    correctedFile,
    dir,
    prior?.correctedFile,
  );
  const rendered = await renderRestatement(restatement, {
    workDir: dir,
    correctedFile,
    csv: check.set.request.csv,
  });
  const prefix = restatementPrefix(close, checkedAt);
  const record: RestatementRecord = {
    format: RESTATEMENT_RECORD_FORMAT,
    close: close.id,
    profile: close.profile,
    period: close.period,
    sequence: chain.next,
    attempt,
    prefix,
    supersedes: prior?.prefix ?? null,
    checkedAt: checkedAt.toISOString(),
    claimedAt: checkedAt.toISOString(),
    transactions: digest,
  };
  const key = recordKey(close, record.sequence, record.attempt);
  let claimed = false;
  let manifest: RestatementManifest;
  try {
    manifest = await publishRestatement(restatement, rendered, {
      sink: deps.sink,
      prefix,
      // Staged whole, nothing in place yet: the record decides whether it is put in place.
      beforeCommit: async () => {
        claimed = await claimPlace(deps.store, { ...record, claimedAt: deps.now().toISOString() });
        if (!claimed) throw new RestatementPlaceTakenError(deps.store.location(key));
      },
    });
  } catch (error) {
    if (error instanceof RestatementPlaceTakenError) return { taken: await readTaker(deps, key, error) };
    // The set was discarded: its record would hold the place for nothing until its lease ends.
    if (claimed) await deps.store.removeRecord(key).catch(() => {});
    throw error;
  }
  await deps
    .notify?.({
      kind: 'changed-after-close',
      profile: close.profile,
      period: close.period,
      summary: manifest.summary,
      prefix,
      close,
    })
    .catch(() => {});
  return { close, prefix, manifest };
}

/** The record another check created at `key`. */
async function readTaker(
  deps: CheckDeps,
  key: string,
  taken: RestatementPlaceTakenError,
): Promise<RestatementRecord> {
  const bytes = await deps.store.read(key);
  if (bytes === null) throw taken;
  try {
    return restatementRecordSchema.parse(JSON.parse(bytes.toString('utf8')));
  } catch (error) {
    throw new CloseDataError(deps.store.location(key), 'is not a restatement record this version can read', {
      cause: error,
    });
  }
}

/** Where a period's restatement goes: `restatements/{profile}/{period}/{checkedAt-id}`. */
export function restatementPrefix(close: CloseRecord, checkedAt: Date): string {
  return `restatements/${close.profile}/${close.period}/${newRunId(checkedAt)}`;
}

function checkLine(
  checked: number,
  restated: CloseCheckResult['restated'],
  meanwhile: CloseCheckResult['meanwhile'],
): string {
  const closes = `${checked} closed period${checked === 1 ? '' : 's'} checked`;
  const changed = restated.map((r) => `${r.close.profile} ${r.close.period} changed (${r.prefix})`);
  const others = meanwhile.map(
    (m) =>
      `${m.close.profile} ${m.close.period} ${m.same ? 'restated meanwhile' : 'being restated from other data'} by another check, recorded at ${m.recordedAt} (${m.prefix})${m.same ? '' : ': check again once it is published'}`,
  );
  if (changed.length + others.length === 0) return `${closes}: no change`;
  return `${closes}: ${[...changed, ...others].join('; ')}`;
}
