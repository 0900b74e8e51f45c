/**
 * The contract between the Lambda functions (`functions/`), the state machines and the CDK stack
 * (`infra/`): environment variables, task payloads, the S3 layout and the job record. Payloads
 * stay small: they carry ids and S3 keys, never rows.
 */
import { createHash } from 'node:crypto';
import type { ExportRequest } from '../export/request.ts';

/** Environment variables the functions read (set by the stack; only `functions/` reads them). */
export const ENV = {
  /** Name of the bucket holding jobs, work files and reports. */
  bucket: 'PBS_BUCKET',
  /** JSON {@link ProfileRegistry}: the registered portfolios. */
  profiles: 'PBS_PROFILES',
  /** Base URL of the Portfolio Balance Service. */
  baseUrl: 'PBS_BASE_URL',
  /** Optional JSON `ServiceShapeOverrides` (GAPS.md alternatives). */
  serviceShape: 'PBS_SERVICE_SHAPE',
  /** Requests per second per client (the service allows 20 per key). */
  requestsPerSecond: 'PBS_REQUESTS_PER_SECOND',
  /** Cache age of secrets read through Powertools parameters, in seconds. */
  secretMaxAgeSeconds: 'PBS_SECRET_MAX_AGE_SECONDS',
  /** ARN of the export state machine (HTTP API and monthly start functions). */
  exportStateMachineArn: 'PBS_EXPORT_STATE_MACHINE_ARN',
  /** Expiry of presigned download links, in seconds. */
  linkExpirySeconds: 'PBS_LINK_EXPIRY_SECONDS',
  /**
   * HTTP API only, optional: the JWT claim listing the profiles a caller may use. Unset: every
   * caller may use every registered profile (see `authorization.ts`).
   */
  profilesClaim: 'PBS_PROFILES_CLAIM',
  /**
   * HTTP API only: the URL callers reach the API at (`https://host[/base path]`); status URLs are
   * built from it, never from request headers. The stack sets the API's own endpoint.
   */
  publicBaseUrl: 'PBS_PUBLIC_BASE_URL',
} as const;

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
  /** What made the job unique: an `Idempotency-Key`, the request itself, or (profile, month). */
  idempotencyKey: string;
  createdAt: string;
  updatedAt: string;
  /** Why it failed (no secret, no stack trace). */
  reason?: string;
  /** Where the reports are, once succeeded. */
  result?: { runId: string; prefix: string; files: JobFile[] };
}

/** Task payloads of the export state machine (input of each task → its output). */
export interface ExportInput {
  jobId: string;
}
export interface PlanOutput {
  jobId: string;
  /** Shard indexes of `work/{jobId}/plan.json`, the Map's items. */
  shards: number[];
}
export interface FetchShardInput {
  jobId: string;
  shard: number;
}
export interface FetchShardOutput {
  jobId: string;
  shard: number;
  rows: number;
  totalReported: number | null;
}
export interface FinishOutput {
  jobId: string;
  state: 'succeeded';
  files: number;
}
/** How an export execution can end without success (Step Functions execution statuses). */
export const EXECUTION_END_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/**
 * What the stack's execution-end rule hands the fail function, from the Step Functions "Execution
 * Status Change" event: the execution's name (the job id) and how it ended.
 */
export interface ExecutionEndedInput {
  jobId: string;
  executionStatus: (typeof EXECUTION_END_STATUSES)[number];
}

/**
 * The fail task's input: from the state machine's catch, the error as Step Functions gives it
 * (`{ Error, Cause }`); from the execution-end rule, `executionStatus` instead.
 */
export interface FailInput {
  jobId: string;
  error?: { Error?: string; Cause?: string };
  executionStatus?: ExecutionEndedInput['executionStatus'];
}
export interface FailOutput {
  jobId: string;
  state: 'failed';
}

/** Item of the monthly Distributed Map: one scheduled profile at the schedule's time. */
export interface MonthlyItem {
  profile: string;
  /** The schedule's `<aws.scheduler.scheduled-time>`, an ISO instant. */
  scheduledTime: string;
}
export interface MonthlyItemOutput {
  jobId: string;
  /** False when the (profile, month) job already existed: a retried or duplicated event. */
  created: boolean;
}

/** S3 keys of the layout. */
export const KEYS = {
  job: (jobId: string) => `jobs/${jobId}.json`,
  /** Empty marker per job for listing a profile's recent jobs newest first. */
  jobIndex: (profile: string, createdAtMs: number, jobId: string) =>
    `jobs/by-profile/${profile}/${String(9_999_999_999_999 - createdAtMs).padStart(13, '0')}-${jobId}`,
  jobIndexPrefix: (profile: string) => `jobs/by-profile/${profile}/`,
  plan: (jobId: string) => `work/${jobId}/plan.json`,
  part: (jobId: string, shard: number) => `work/${jobId}/parts/${shard}.ndjson.gz`,
  /** Lease of the one export running per registered secret (see `profile-slots.ts`). */
  slot: (secretHash: string) => `locks/${secretHash}.json`,
  /** Reports go under `reports/{profile}/{period}/{runId}/` (see `finishExport`). */
  reportsPrefix: 'reports/',
} as const;

/** A job id from what makes the job unique, so the same request or key finds the same job. */
export function jobIdFor(profile: string, idempotencyKey: string): string {
  return createHash('sha256').update(`${profile}\n${idempotencyKey}`).digest('hex').slice(0, 32);
}

/**
 * Optional environment variables added for S3-compatible stores (local runs and tests):
 * the endpoint switches the S3 client to path-style addressing and on-demand checksums.
 */
export const OPTIONAL_ENV = {
  /** S3-compatible endpoint such as `http://127.0.0.1:4568`; unset on AWS. */
  s3Endpoint: 'PBS_S3_ENDPOINT',
} as const;
