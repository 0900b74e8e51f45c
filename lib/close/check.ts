/**
 * The check a monthly run (and the operator, `pbs-export check-closes`) makes: detect the changes
 * in every closed period, and for each period that changed publish its restatement and tell the
 * profile's subscribers. Nothing changed: nothing is written; the caller records the one line.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newRunId } from '../export/index.ts';
import type { Sink } from '../storage/index.ts';
import { adjustingDate } from './adjusting.ts';
import { writeCorrectedSnapshot } from './corrected.ts';
import { type DetectDeps, detectChanges, type PeriodCheck } from './detect.ts';
import { publishRestatement, type RestatementManifest, renderRestatement } from './files.ts';
import type { CloseRecord } from './records.ts';
import { buildRestatement } from './restatement.ts';

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

/** Checks every close in force (of `deps.profile`, or all) and publishes a restatement per changed period. */
export async function checkCloses(deps: CheckDeps): Promise<CloseCheckResult> {
  const checkedAt = deps.now();
  const workDir = await mkdtemp(join(deps.workDir ?? tmpdir(), 'pbs-export-close-check-'));
  try {
    const checks = await detectChanges({ ...deps, workDir });
    const restated: CloseCheckResult['restated'] = [];
    for (const check of checks.filter((c) => c.changes.length > 0)) {
      const date = adjustingDate(
        check.close.profile,
        check.close.period,
        checks.map((c) => c.close),
      );
      restated.push(await restate(check, checkedAt, date, workDir, deps));
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

async function restate(check: PeriodCheck, checkedAt: Date, date: string, workDir: string, deps: CheckDeps) {
  const { close } = check;
  const dir = await mkdtemp(join(workDir, 'restatement-'));
  const correctedFile = join(dir, 'corrected.ndjson.gz');
  await writeCorrectedSnapshot(check.set, check.changes, correctedFile, checkedAt, date);
  const restatement = await buildRestatement(check.set.snapshotFile, correctedFile, dir);
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
