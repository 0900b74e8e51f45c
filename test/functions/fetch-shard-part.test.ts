/**
 * A fetch-shard task stores its part as one PutObject streamed from the part file, with its
 * length: a part is far under PutObject's limit, so lib-storage's multipart `Upload` (its
 * loading, its buffering) is not needed there. Here loading `Upload` fails: the task must not.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { KEYS } from '../../lib/jobs/index.ts';
import { createFetchShardHandler, createPlanHandler } from '../../lib/lambda/index.ts';
import { startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

vi.mock('../../lib/aws-sdk.ts', async (original) => ({
  ...(await original<typeof import('../../lib/aws-sdk.ts')>()),
  loadS3Upload: () => Promise.reject(new Error('lib-storage was loaded')),
}));

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});

it('stores the part without a multipart upload, its metadata beside it', async () => {
  const job = await h.queueJob({ profile: 'acme', period: '2025-06', formats: ['csv'] });
  await createPlanHandler(h.workerContext())({ jobId: job.jobId });

  const output = await createFetchShardHandler(h.workerContext())({ jobId: job.jobId, shard: 0 });

  const part = await h.s3.client.send(
    new GetObjectCommand({ Bucket: h.bucket, Key: KEYS.part(job.jobId, 0) }),
  );
  expect(part.ContentType).toBe('application/gzip');
  expect(part.Metadata?.rows).toBe(String(output.rows));
  expect(output.rows).toBeGreaterThan(10);
  // A single PUT's ETag is the MD5 of the bytes: no part count.
  expect(part.ETag).toMatch(/^"[0-9a-f]{32}"$/);
});
