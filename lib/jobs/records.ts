/**
 * Job records and what they refer to: the registered profiles, the job record stored at
 * `jobs/{jobId}.json`, the S3 layout of the bucket, and the input of an export execution.
 */
import { createHash } from 'node:crypto';
import { type ExportRequest, openPeriodCutOff } from '../export/index.ts';

/** One registered portfolio: a request names the profile, never the secret. */
export interface RegisteredProfile {
  /** ARN of the Secrets Manager secret holding {@link ServiceSecret} as JSON. */
  secretArn: string;
  /** IANA zone of the portfolio: monthly exports cover its previous local month. */
  timeZone: string;
  /** Whether the monthly schedule exports it. */
  monthly: boolean;
}

/** `PBS_PROFILES`: profile name → registration. */
export type ProfileRegistry = Record<string, RegisteredProfile>;

/** The JSON value of a profile's secret. */
export interface ServiceSecret {
  apiKey: string;
  apiSecret: string;
  profileGuid?: string;
}

export type JobState = 'queued' | 'running' | 'succeeded' | 'failed';

/** A published file as a job lists it. */
export interface JobFile {
  name: string;
  key: string;
  bytes: number;
  sha256: string;
  rows?: number;
}

/** `jobs/{jobId}.json`: written with conditional writes so two racing starts cannot both win. */
export interface JobRecord {
  jobId: string;
  profile: string;
  request: ExportRequest;
  state: JobState;
  source: 'api' | 'schedule';
  /** Who started an on-demand job, as API Gateway vouched for them (JWT email/name/sub, IAM ARN). */
  requestedBy?: string;
  /** What made the job unique: an `Idempotency-Key`, the request itself, or (profile, month). */
  idempotencyKey: string;
  createdAt: string;
  updatedAt: string;
  /** Why it failed (no secret, no stack trace). */
  reason?: string;
  /** Where the reports are, once succeeded. */
  result?: JobResult;
}

/**
 * Where a succeeded job's reports are: its run, their prefix and files. Also what
 * `work/{jobId}/published.json` holds (see `KEYS.published`).
 */
export interface JobResult {
  runId: string;
  prefix: string;
  files: JobFile[];
  /** The set's reconciliation (its manifest's `reconciliation`), in short: for the portal's views. */
  reconciliation?: JobReconciliation;
}

/**
 * A set's reconciliation in short: its status and note, and its opening-balance check's (the
 * manifest's `reconciliation.opening`: status, note and the closed period it was compared with).
 */
export interface JobReconciliation {
  status: string;
  note: string;
  opening?: { status: string; note: string; previousPeriod?: string };
}

/** Input of an export execution (and of its plan and finish tasks): the job it runs. */
export interface ExportInput {
  jobId: string;
}

/** Units the workers record metrics in (a subset of Powertools' `MetricUnit`). */
export type MetricUnitName = 'Count' | 'Bytes' | 'Milliseconds';

/** Where metrics go (Powertools `Metrics` fits). */
export interface MetricsSink {
  addMetric(name: string, unit: MetricUnitName, value: number): void;
}

/** Told which job (and so which profile) a task works on, e.g. to append log keys. */
export type JobObserver = (job: JobRecord) => void;

/** Item of the monthly Distributed Map: one scheduled profile at the schedule's time. */
export interface MonthlyItem {
  profile: string;
  /**
   * The gains policies of the deployment config for this profile (a request's `gains`), or
   * `null`/absent: then the export has the default reports and no gains report.
   */
  gains?: Record<string, unknown> | null;
  /** The profile's journal block (a request's `journal`), or `null`/absent: no journal report. */
  journal?: Record<string, unknown> | null;
  /** The schedule's `<aws.scheduler.scheduled-time>`, an ISO instant. */
  scheduledTime: string;
}
export interface MonthlyItemOutput {
  jobId: string;
  /** False when the (profile, month) job already existed: a retried or duplicated event. */
  created: boolean;
}

/** Where a job's fetched parts go, one object per shard. */
const partsPrefix = (jobId: string) => `work/${jobId}/parts/`;

/** S3 keys of the layout. */
export const KEYS = {
  job: (jobId: string) => `jobs/${jobId}.json`,
  /** Empty marker per job for listing a profile's recent jobs newest first. */
  jobIndex: (profile: string, createdAtMs: number, jobId: string) =>
    `jobs/by-profile/${profile}/${String(9_999_999_999_999 - createdAtMs).padStart(13, '0')}-${jobId}`,
  jobIndexPrefix: (profile: string) => `jobs/by-profile/${profile}/`,
  plan: (jobId: string) => `work/${jobId}/plan.json`,
  part: (jobId: string, shard: number) => `${partsPrefix(jobId)}${shard}.ndjson.gz`,
  /** Prefix of a job's fetched parts (one per shard), for counting them. */
  partsPrefix,
  /** A window's piece, assembled and rendered where its shard was fetched (see `window-piece.ts` in `lib/export`). */
  piece: (jobId: string, shard: number) => `work/${jobId}/pieces/${shard}`,
  piecesPrefix: (jobId: string) => `work/${jobId}/pieces/`,
  /** What the finish task published, once its set is in place (a `JobResult`, see the finish task in `lib/workflow`). */
  published: (jobId: string) => `work/${jobId}/published.json`,
  /** Lease of the one export running per registered secret (see `profile-slots.ts`). */
  slot: (secretHash: string) => `locks/${secretHash}.json`,
  /** Reports go under `reports/{profile}/{period}/{runId}/` (see `runPrefix` in `lib/export`). */
  reportsPrefix: 'reports/',
} as const;

/** A job id from what makes the job unique, so the same request or key finds the same job. */
export function jobIdFor(profile: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${profile}\n${idempotencyKey}`).digest('hex').slice(0, 32);
}

/** Appended to the idempotency key of a request for a period not yet over (see {@link jobKeyAt}). */
export const OPEN_PERIOD_MARK = '#open-period';

/**
 * The idempotency key a request made at `now` is deduplicated by. A request for a period that is
 * not over yet exports part of it (the Read me and manifest say so): its key is marked, so
 * repeats while the period is open return that partial job, and the same request once the period
 * is over names another job and exports the whole period instead of returning the partial one.
 */
export function jobKeyAt(idempotencyKey: string, request: ExportRequest, now: Date): string {
  const open = openPeriodCutOff(request.period, request.timeZone, now) !== null;
  return open ? `${idempotencyKey}${OPEN_PERIOD_MARK}` : idempotencyKey;
}
