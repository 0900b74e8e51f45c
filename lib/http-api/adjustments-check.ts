/**
 * What an adjustment means, checked when it is posted: against the history of the profile's
 * newest gains set (its published snapshot), with the same applier a re-run uses
 * (lib/adjustments/apply.ts). A value for a movement the service valued, a transaction or a
 * token that history does not have, a basis for something that is no transfer in: refused at
 * once (422, naming the adjustment's field), not when every later re-run of the profile fails.
 *
 * Which history: of the profile's last {@link SETS_LOOKED_AT} jobs, the succeeded gains sets
 * with a snapshot; of those, the one whose period ends last (its snapshot holds every
 * transaction from the portfolio's first to that end), the newest of equals. A profile without
 * such a set is not checked (nothing to check against); a re-run still checks, and names the
 * adjustment to withdraw. The snapshot is read as it streams from the bucket, never to the API
 * Lambda's disk, and only as far as the first adjustment that does not fit.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import {
  AdjustmentMismatchError,
  type AdjustmentsDocument,
  createAdjustmentsApplier,
  UnknownReferenceError,
} from '../adjustments/index.ts';
import { createNormalizer, periodRange } from '../export/index.ts';
import type { JobFile, JobRecord, JobStore } from '../jobs/index.ts';
import { openSnapshotStream } from './snapshot-stream.ts';

/** What the check reads: the profile's jobs and the bucket their sets are in. */
export interface MeaningDeps {
  jobs: JobStore;
  s3: S3Client;
  bucket: string;
}

/** How many of the profile's newest jobs are looked through for a gains set. */
export const SETS_LOOKED_AT = 50;

const SNAPSHOT = /(?<!_corrected)_snapshot\.ndjson\.gz$/;

/** An adjustment that does not fit the history it was checked against. */
export interface MeaningIssue {
  /** The adjustment's field at fault (`txId`, `token`, …). */
  field: string;
  reason: string;
}

/** What the check read: the set whose history it used (`null`: none, not checked). */
export interface MeaningCheck {
  checkedAgainst: { jobId: string; period: string } | null;
  issue: MeaningIssue | null;
}

/** The set a profile's adjustments are checked against, with its snapshot file; `null`: none. */
export async function historySet(
  deps: Pick<MeaningDeps, 'jobs'>,
  profile: string,
): Promise<{ job: JobRecord; snapshot: JobFile } | null> {
  const jobs = await deps.jobs.listByProfile(profile, SETS_LOOKED_AT);
  let best: { job: JobRecord; snapshot: JobFile; end: number } | null = null;
  for (const job of jobs) {
    if (job.state !== 'succeeded' || job.request.gains === undefined) continue;
    const snapshot = job.result?.files.find((file) => SNAPSHOT.test(file.name));
    if (snapshot === undefined) continue;
    const end = periodRange(job.request.period, job.request.timeZone).end.toMillis();
    // Newest first: a later job of the same end does not replace the one found.
    if (best === null || end > best.end) best = { job, snapshot, end };
  }
  return best === null ? null : { job: best.job, snapshot: best.snapshot };
}

/**
 * Checks the adjustment `id` of `document` (the version that would be stored) against the
 * history of the profile's {@link historySet}. An older adjustment that does not fit is left out
 * and the check run again (it does not stop a new one; it can be withdrawn).
 */
export async function checkMeaning(
  deps: MeaningDeps,
  document: AdjustmentsDocument,
  id: string,
): Promise<MeaningCheck> {
  const set = await historySet(deps, document.profile);
  if (set === null) return { checkedAgainst: null, issue: null };
  const checkedAgainst = { jobId: set.job.jobId, period: periodName(set.job.request.period) };
  let adjustments = document.adjustments;
  for (;;) {
    const misfit = await firstMisfit(deps, set, { ...document, adjustments });
    if (misfit === null) return { checkedAgainst, issue: null };
    if (misfit.id === id) return { checkedAgainst, issue: issueOf(misfit, set.job) };
    adjustments = adjustments.filter((a) => a.id !== misfit.id);
  }
}

function periodName(period: JobRecord['request']['period']): string {
  return typeof period === 'string' ? period : `${period.from}..${period.to}`;
}

/**
 * The first adjustment of `document` the set's history does not fit, or `null`: the snapshot read
 * as it streams from the bucket (nothing on disk), and no further than the first misfit.
 */
async function firstMisfit(
  deps: Pick<MeaningDeps, 's3' | 'bucket'>,
  set: { job: JobRecord; snapshot: JobFile },
  document: AdjustmentsDocument,
): Promise<UnknownReferenceError | AdjustmentMismatchError | null> {
  const { job } = set;
  const snapshot = await openSnapshotStream(deps, set.snapshot.key);
  try {
    const normalizer = createNormalizer({ fields: snapshot.header.fields, timeZone: job.request.timeZone });
    const applier = createAdjustmentsApplier(document, { currency: job.request.gains?.currency ?? null });
    for await (const data of snapshot.transactions()) applier.apply(normalizer.canonical(data));
    applier.finish();
    return null;
  } catch (error) {
    if (error instanceof UnknownReferenceError || error instanceof AdjustmentMismatchError) return error;
    throw error;
  } finally {
    snapshot.close();
  }
}

function issueOf(error: UnknownReferenceError | AdjustmentMismatchError, job: JobRecord): MeaningIssue {
  if (error instanceof UnknownReferenceError)
    return {
      field: error.field,
      reason: `${error.what} ${error.reference} is not in the history of the profile's newest gains set (${periodName(job.request.period)}, job ${job.jobId}): check the id, or export a set whose period covers it first`,
    };
  return { field: error.field, reason: error.reason };
}
