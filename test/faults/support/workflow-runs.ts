/**
 * Jobs through the workflow's worker tasks (plan → shards → finish, or fail) on the workflow
 * harness, and the checks of what a job left: a succeeded job's record, its one manifest and its
 * files equal to the reference; a failed job's record and no manifest.
 */
import { createHash } from 'node:crypto';
import { runPrefix } from '../../../lib/export/index.ts';
import type { JobRecord } from '../../../lib/jobs/index.ts';
import { createWorkers, type WorkerDeps, type Workers } from '../../../lib/workflow/index.ts';
import { NOW, type WorkflowHarness } from '../../support/workflow.ts';
import { checkFinishedRun, listKeys, type Reference, readS3Run } from './fault-harness.ts';

/**
 * The worker tasks over the harness (no waiting between retries), with overrides. The client's
 * timeout is generous, so that a busy machine fails no healthy request (a test of stalls overrides
 * `services` with a shorter one).
 */
export function workersOf(h: WorkflowHarness, overrides: Partial<WorkerDeps> = {}): Workers {
  return createWorkers({
    jobs: h.jobs,
    s3: h.client,
    bucket: h.bucket,
    services: h.servicesWith({ timeoutMs: 10_000, logger: { warn: () => {}, debug: () => {} } }),
    now: h.now,
    ...overrides,
  });
}

/** The folder of a job's run: the run id is the plan's start plus the job id's first 6 characters. */
export function jobPrefix(job: JobRecord): string {
  const stamp = NOW.toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  return runPrefix(job.request, `${stamp}-${job.jobId.slice(0, 6)}`);
}

/** Manifests of every run of `job` under its period's folder (there must be one at most). */
export async function manifestsOf(h: WorkflowHarness, job: JobRecord): Promise<string[]> {
  const prefix = jobPrefix(job);
  const periodFolder = prefix.slice(0, prefix.lastIndexOf('/') + 1);
  const keys = await listKeys(h.s3.client, h.bucket, periodFolder);
  return keys.filter((key) => key.endsWith('/manifest.json') && key.includes(`-${job.jobId.slice(0, 6)}/`));
}

/**
 * Checks a job that must have succeeded: state and result recorded, exactly one manifest, the
 * record listing exactly the manifest's files (and the manifest) with their sha256, and the files
 * equal to the reference.
 */
export async function checkSucceededJob(
  h: WorkflowHarness,
  job: JobRecord,
  reference: Reference,
): Promise<{ problems: string[]; dataLost: boolean }> {
  const problems: string[] = [];
  const stored = await h.jobs.require(job.jobId);
  if (stored.state !== 'succeeded') problems.push(`job is ${stored.state}: ${stored.reason ?? ''}`);
  if (stored.state === 'succeeded' && stored.reason !== undefined)
    problems.push(`a succeeded job keeps a failure reason: ${stored.reason}`);
  const manifests = await manifestsOf(h, job);
  if (manifests.length !== 1) problems.push(`${manifests.length} manifests for one job`);
  const prefix = jobPrefix(job);
  if (stored.result?.prefix !== prefix)
    problems.push(`job result prefix ${stored.result?.prefix} ≠ ${prefix}`);
  const files = await readS3Run(h.s3.client, h.bucket, prefix);
  const check = checkFinishedRun(files, reference);
  problems.push(...check.problems);
  const listed = (stored.result?.files ?? []).map((file) => `${file.name} ${file.sha256}`).sort();
  const present = [...files.entries()].map(([name, bytes]) => `${name} ${sha256(bytes)}`).sort();
  if (JSON.stringify(listed) !== JSON.stringify(present)) {
    problems.push(`job record files ${JSON.stringify(listed)} ≠ stored files ${JSON.stringify(present)}`);
  }
  return { problems, dataLost: check.dataLost };
}

/** Checks a job that must have failed: state failed with a reason, no manifest of it anywhere. */
export async function checkFailedJob(h: WorkflowHarness, job: JobRecord): Promise<string[]> {
  const problems: string[] = [];
  const stored = await h.jobs.require(job.jobId);
  if (stored.state !== 'failed') problems.push(`job is ${stored.state}, not failed`);
  if (!stored.reason) problems.push('a failed job without a reason');
  if (stored.result !== undefined) problems.push('a failed job with a result');
  const manifests = await manifestsOf(h, job);
  if (manifests.length > 0) problems.push(`a failed job left manifests: ${manifests.join(', ')}`);
  return problems;
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}
