/**
 * The check a monthly run (and the operator, `pbs-export check-closes`) makes: detect the changes
 * in every closed period, and for each period whose data now differs from what its latest
 * restatement (or, without one, its closed set) stated, publish a restatement superseding that
 * one and tell the profile's subscribers. Nothing new: nothing is written (a second check finds
 * what the first restated and publishes nothing again); the caller records the one line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newRunId } from '../export/index.ts';
import type { Sink } from '../storage/index.ts';
import { adjustingDate } from './adjusting.ts';
import { correctedTransactions, writeCorrectedSnapshot } from './corrected.ts';
import { type DetectDeps, detectChanges, type PeriodCheck } from './detect.ts';
import { publishRestatement, type RestatementManifest, renderRestatement } from './files.ts';
import type { CloseRecord } from './records.ts';
import { buildRestatement } from './restatement.ts';
import { latestRestatement, type PriorRestatement, sameTransactions } from './superseded.ts';

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
    for (const check of checks) {
      const prior = await latestRestatement(check.close, deps, workDir);
      if (!changedSince(check, prior)) continue;
      const date = adjustingDate(
        check.close.profile,
        check.close.period,
        checks.map((c) => c.close),
      );
      restated.push(await restate(check, prior, checkedAt, date, workDir, deps));
    }
    return {
      checkedAt: checkedAt.toISOString(),
      checked: checks.length,
      restated,
      line: checkLine(checks.length, restated),
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
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

async function restate(
  check: PeriodCheck,
  prior: PriorRestatement | null,
  checkedAt: Date,
  date: string,
  workDir: string,
  deps: CheckDeps,
) {
  const { close } = check;
  const dir = await mkdtemp(join(workDir, 'restatement-'));
  const correctedFile = join(dir, 'corrected.ndjson.gz');
  await writeCorrectedSnapshot(check.set, check.changes, correctedFile, checkedAt, {
    adjustingDate: date,
    since: check.since,
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
  const manifest = await publishRestatement(restatement, rendered, { sink: deps.sink, prefix });
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

/** Where a period's restatement goes: `restatements/{profile}/{period}/{checkedAt-id}`. */
export function restatementPrefix(close: CloseRecord, checkedAt: Date): string {
  return `restatements/${close.profile}/${close.period}/${newRunId(checkedAt)}`;
}

function checkLine(checked: number, restated: CloseCheckResult['restated']): string {
  const closes = `${checked} closed period${checked === 1 ? '' : 's'} checked`;
  if (restated.length === 0) return `${closes}: no change`;
  return `${closes}: ${restated.map((r) => `${r.close.profile} ${r.close.period} changed (${r.prefix})`).join('; ')}`;
}
