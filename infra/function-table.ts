/**
 * The stack's Lambda functions: each one's entry, limits and exactly what it may touch in the
 * bucket (`stack.ts` builds them from this table; the benchmark and the bundling tests read it).
 */
import { Duration } from 'aws-cdk-lib';

/**
 * Top-level prefixes of the bucket (see `KEYS` in the contract; `_staging/` is where the S3 sink
 * stages a run's files before copying them under `reports/`, see `STAGING_SEGMENT`).
 */
export type BucketPrefix =
  | 'jobs/'
  | 'work/'
  | 'reports/'
  | 'locks/'
  | '_staging/'
  | 'rates/'
  | 'adjustments/'
  | 'closes/'
  | 'restatements/';

/** What a function may do under one prefix. */
export interface PrefixAccess {
  /** GetObject, and ListBucket restricted to the prefix (so a missing key is a 404, not a 403). */
  read?: boolean;
  /** PutObject (multipart uploads included). */
  write?: boolean;
  /** AbortMultipartUpload, for streamed uploads that fail. */
  multipart?: boolean;
  /** DeleteObject. */
  delete?: boolean;
  /**
   * PutObjectRetention (and the bucket's GetBucketObjectLockConfiguration): a close locks its
   * set's objects in governance mode (lib/close/s3-lock.ts). Never BypassGovernanceRetention.
   */
  retention?: boolean;
}

/** The functions of the stack, by key. */
export type FunctionKey =
  | 'httpApi'
  | 'plan'
  | 'fetchShard'
  | 'finish'
  | 'fail'
  | 'monthlyStart'
  | 'ratesFetch';

interface FunctionSpec {
  entry: string;
  description: string;
  memorySize: number;
  timeout: Duration;
  s3: Partial<Record<BucketPrefix, PrefixAccess>>;
  /** Reads the registered profiles' secrets (calls the service). */
  secrets: boolean;
  /** Starts executions of the export state machine. */
  startsExports: boolean;
  /** Folders copied beside the bundle (see `PbsFunctionProps.bundleFiles`). */
  bundleFiles?: { from: string; to: string }[];
}

/**
 * Every function with exactly what it may touch (read from `lib/lambda/`, `lib/jobs/`, `lib/workflow/`). Job records are
 * created with a conditional write and removed again when starting their execution fails
 * (`jobs/` delete); a new job joins the queue of its API key in `locks/` (profile-slots.ts).
 */
export const FUNCTIONS: Record<FunctionKey, FunctionSpec> = {
  httpApi: {
    entry: 'functions/http-api.ts',
    description: 'HTTP API: request, look up, list and zip report exports',
    memorySize: 512,
    // API Gateway gives up on an integration after 30 seconds.
    timeout: Duration.seconds(29),
    // locks/: new jobs join their key's queue; GET shows a queued job's position in it.
    // work/: the portal shows a running export's progress (its plan and fetched parts); "download
    // all" streams a set's zip into work/{jobId}/archive/ in parts (lib/http-api/archive.ts).
    s3: {
      'jobs/': { read: true, write: true, delete: true },
      'work/': { read: true, write: true, multipart: true },
      // reports/: a close reads the set's manifest and locks its objects (lib/http-api/close-route.ts);
      // closes/: the close records (created, never overwritten or deleted); restatements/: listed.
      'reports/': { read: true, retention: true },
      'closes/': { read: true, write: true },
      'restatements/': { read: true },
      'locks/': { read: true, write: true },
      // rates/: a request for gains.rates is refused while no rates of its source are kept.
      'rates/': { read: true },
      // adjustments/: the preparers' adjustments, one object per version, never deleted (lib/adjustments).
      'adjustments/': { read: true, write: true },
    },
    secrets: false,
    startsExports: true,
    // The portal's script and styles, read beside the bundle (lib/portal/assets.ts).
    bundleFiles: [{ from: 'lib/portal/static', to: 'static' }],
  },
  plan: {
    entry: 'functions/export-plan.ts',
    description: 'Export step 1: plan the shards of a job',
    memorySize: 512,
    timeout: Duration.minutes(5),
    // locks/: the slot of the profile's secret, one running export per API key (profile-slots.ts).
    s3: {
      'jobs/': { read: true, write: true },
      'work/': { write: true },
      'locks/': { read: true, write: true },
      // rates/: a job for gains.rates fails before fetching while no rates of its source are kept.
      'rates/': { read: true },
    },
    secrets: true,
    startsExports: false,
  },
  fetchShard: {
    entry: 'functions/export-fetch-shard.ts',
    description: 'Export step 2: fetch one shard into a raw part file',
    memorySize: 1024,
    timeout: Duration.minutes(15),
    s3: {
      'jobs/': { read: true },
      'work/': { read: true, write: true, multipart: true },
      'locks/': { read: true, write: true },
    },
    secrets: true,
    startsExports: false,
  },
  finish: {
    entry: 'functions/export-finish.ts',
    description: 'Export step 3: assemble the snapshot, render and publish the reports',
    memorySize: 2048,
    timeout: Duration.minutes(15),
    // Stages a run's files under _staging/ (read: the source of the server-side copies), copies
    // them under reports/ manifest last, then deletes the staged ones; records what it published
    // under work/ for a retried finish; deletes or aborts what a failed run had written.
    s3: {
      'jobs/': { read: true, write: true },
      'work/': { read: true, write: true },
      '_staging/': { read: true, write: true, multipart: true, delete: true },
      // reports/ read: a scheduled run checks the closed sets' snapshots (lib/workflow/close-step.ts);
      // closes/ read: no run publishes into a closed set; restatements/: what the check publishes.
      'reports/': { read: true, write: true, multipart: true, delete: true },
      'closes/': { read: true },
      'restatements/': { read: true, write: true, multipart: true, delete: true },
      'locks/': { read: true, write: true },
      // adjustments/: the version a request names (lib/adjustments/s3-store.ts).
      'adjustments/': { read: true },
      // rates/: the kept rates files gains.rates converts with (lib/workflow/rates.ts).
      'rates/': { read: true },
    },
    // The changes report reads the service's timeline while finishing.
    secrets: true,
    startsExports: false,
  },
  fail: {
    entry: 'functions/export-fail.ts',
    description:
      'Export failure (catch, or an execution that timed out, was aborted or failed): mark the job failed, free its key',
    memorySize: 256,
    timeout: Duration.minutes(1),
    s3: { 'jobs/': { read: true, write: true }, 'locks/': { read: true, write: true } },
    secrets: false,
    startsExports: false,
  },
  monthlyStart: {
    entry: 'functions/monthly-start.ts',
    description: 'Monthly schedule: create the month job of one profile and start its export',
    memorySize: 256,
    timeout: Duration.minutes(1),
    s3: { 'jobs/': { read: true, write: true, delete: true }, 'locks/': { read: true, write: true } },
    secrets: false,
    startsExports: true,
  },
  ratesFetch: {
    entry: 'functions/rates-fetch.ts',
    description: "Daily: fetch the ECB's and HMRC's published rates files and keep the new ones under rates/",
    memorySize: 512,
    timeout: Duration.minutes(5),
    // Read: whether a file's content is kept already (HeadObject); write: each new one, under its sha256.
    s3: { 'rates/': { read: true, write: true } },
    secrets: false,
    startsExports: false,
  },
};
