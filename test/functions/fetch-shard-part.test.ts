/**
 * A fetch-shard task stores its part as one PutObject of the part file's bytes: a part is far
 * under PutObject's limit, so lib-storage's multipart `Upload` (its loading) is not needed there.
 * Here loading `Upload` fails: the task must not. And the PUT stays retryable by the SDK, which
 * retries no request whose body is a stream.
 */
import { gunzipSync } from 'node:zlib';
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

it('stores the part when S3 answers its PUT with a 503 once, after reading the body (the SDK retries it)', async () => {
  const job = await h.queueJob({ profile: 'acme', period: '2025-06', formats: ['csv'] });
  await createPlanHandler(h.workerContext())({ jobId: job.jobId });
  const { s3 } = h.workerContext();
  let refused = 0;
  // Inside the SDK's retries: the first PUT of a part sends its whole body, then S3 says SlowDown.
  s3.middlewareStack.add(
    (next) => async (args) => {
      const request = args.request as { method?: string; path?: string; body?: unknown };
      if (refused === 0 && request.method === 'PUT' && request.path?.includes('/parts/')) {
        refused += 1;
        const body = request.body;
        if (body !== null && typeof body === 'object' && Symbol.asyncIterator in body) {
          for await (const _chunk of body as AsyncIterable<unknown>) {
            // read to its end, as a server that took the bytes before answering
          }
        }
        throw Object.assign(new Error('Please reduce your request rate.'), {
          name: 'SlowDown',
          $fault: 'server',
          $metadata: { httpStatusCode: 503 },
        });
      }
      return next(args);
    },
    { step: 'finalizeRequest', name: 'slowDownOncePartPut' },
  );
  try {
    const output = await createFetchShardHandler(h.workerContext())({ jobId: job.jobId, shard: 0 });
    const part = await h.s3.client.send(
      new GetObjectCommand({ Bucket: h.bucket, Key: KEYS.part(job.jobId, 0) }),
    );
    const bytes = Buffer.from(
      await (part.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    expect(refused).toBe(1);
    expect(gunzipSync(bytes).toString('utf8').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(
      output.rows,
    );
  } finally {
    s3.middlewareStack.remove('slowDownOncePartPut');
  }
});
