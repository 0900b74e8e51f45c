import type { S3Client } from '@aws-sdk/client-s3';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { S3TestServer } from '../../test/support/s3.ts';
import { emulateConditionalWrites, s3Error, startJobStoreServer } from '../../test/support/workflow.ts';
import { parseExportRequest } from '../export/plan/index.ts';
import { type JobRecord, jobIdFor, KEYS } from './records.ts';
import { createJobStore, type JobStore } from './store.ts';

let server: S3TestServer;
let jobs: JobStore;
beforeAll(async () => {
  ({ server, jobs } = await startJobStoreServer());
});
afterAll(async () => {
  await server.close();
});

let counter = 0;
function job(profile = 'acme', createdAt = '2026-11-22T10:00:00.000Z'): JobRecord {
  counter += 1;
  const key = `key-${counter}`;
  return {
    jobId: jobIdFor(profile, key),
    profile,
    request: parseExportRequest({ profile, period: '2025-01' }),
    state: 'queued',
    source: 'api',
    idempotencyKey: key,
    createdAt,
    updatedAt: createdAt,
  };
}

/** Makes the next `times` conditional PutObjects of `client` fail with `error`. */
function failNextConditionalPuts(target: S3Client, times: number, error: Error): void {
  let left = times;
  target.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { IfMatch?: string; IfNoneMatch?: string };
      if (context.commandName === 'PutObjectCommand' && (input.IfMatch || input.IfNoneMatch) && left > 0) {
        left -= 1;
        throw error;
      }
      return next(args);
    },
    { step: 'initialize', name: `failNext${counter}` },
  );
}

describe('createJobStore', () => {
  it('returns created true for a new job and stores it', async () => {
    const record = job();

    const result = await jobs.create(record);

    expect(result).toEqual({ created: true, job: record });
    expect(await jobs.get(record.jobId)).toEqual(record);
  });

  it('returns the stored job with created false when the id exists', async () => {
    const record = job();
    await jobs.create(record);

    const again = await jobs.create({ ...record, createdAt: '2030-01-01T00:00:00.000Z' });

    expect(again).toEqual({ created: false, job: record });
  });

  it('returns the existing job when S3 answers 412 to the conditional create', async () => {
    const record = job();
    await jobs.create(record);
    const racing = server.createClient();
    failNextConditionalPuts(racing, 1, s3Error('PreconditionFailed', 412));

    const result = await createJobStore({ client: racing, bucket: server.bucket }).create({
      ...record,
      state: 'running',
    });

    expect(result).toEqual({ created: false, job: record });
  });

  it('returns null for a job that does not exist', async () => {
    expect(await jobs.get('0'.repeat(32))).toBeNull();
  });

  it('rejects require of a missing job with JobNotFoundError', async () => {
    await expect(jobs.require('0'.repeat(32))).rejects.toMatchObject({ name: 'JobNotFoundError' });
  });

  it('writes an update made on the current record', async () => {
    const record = job();
    await jobs.create(record);

    await jobs.update(record.jobId, (current) => ({ ...current, state: 'running' }));

    expect((await jobs.require(record.jobId)).state).toBe('running');
  });

  it('retries an update that lost a race on the ETag', async () => {
    const record = job();
    await jobs.create(record);
    const racing = server.createClient();
    const store = createJobStore({ client: racing, bucket: server.bucket });
    let calls = 0;
    failNextConditionalPuts(racing, 1, s3Error('PreconditionFailed', 412));

    await store.update(record.jobId, (current) => {
      calls += 1;
      return { ...current, state: 'failed', reason: 'x' };
    });

    expect(calls).toBe(2);
    expect((await jobs.require(record.jobId)).state).toBe('failed');
  });

  it('applies the change again to the record another writer stored meanwhile', async () => {
    const record = job();
    await jobs.create(record);
    const racing = server.createClient();
    let interfered = false;
    // Before the first conditional write, another writer stores a newer version: its ETag changes.
    racing.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutObjectCommand' && !interfered) {
          interfered = true;
          await server.client.send(
            new PutObjectCommand({
              Bucket: server.bucket,
              Key: KEYS.job(record.jobId),
              Body: JSON.stringify({ ...record, reason: 'other writer' }),
            }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name: 'interfere' },
    );
    emulateConditionalWrites(racing, server.client);

    await createJobStore({ client: racing, bucket: server.bucket }).update(record.jobId, (current) => ({
      ...current,
      state: 'running',
    }));

    expect(await jobs.require(record.jobId)).toMatchObject({ state: 'running', reason: 'other writer' });
  });

  it('throws JobConflictError when every update attempt loses', async () => {
    const record = job();
    await jobs.create(record);
    const racing = server.createClient();
    failNextConditionalPuts(racing, 10, s3Error('PreconditionFailed', 412));

    await expect(
      createJobStore({ client: racing, bucket: server.bucket, updateAttempts: 3 }).update(
        record.jobId,
        (current) => ({
          ...current,
          state: 'running',
        }),
      ),
    ).rejects.toMatchObject({ name: 'JobConflictError' });
  });

  it('lists a profile jobs newest first', async () => {
    const older = job('lister', '2026-11-01T00:00:00.000Z');
    const newest = job('lister', '2026-11-03T00:00:00.000Z');
    const middle = job('lister', '2026-11-02T00:00:00.000Z');
    for (const record of [older, newest, middle]) await jobs.create(record);

    const listed = await jobs.listByProfile('lister', 10);

    expect(listed.map((record) => record.jobId)).toEqual([newest.jobId, middle.jobId, older.jobId]);
  });

  it('lists no job whose record was removed', async () => {
    const kept = job('remover');
    const removed = job('remover', '2026-11-23T00:00:00.000Z');
    await jobs.create(kept);
    await jobs.create(removed);

    await jobs.remove(removed);

    expect((await jobs.listByProfile('remover', 10)).map((record) => record.jobId)).toEqual([kept.jobId]);
  });
});

describe('job store pages', () => {
  it('hands every job out on exactly one page, a cursor leading to the next, none after the last', async () => {
    const records = [1, 2, 3, 4, 5].map((day) => job('pager', `2026-10-0${day}T00:00:00.000Z`));
    for (const record of records) await jobs.create(record);

    const first = await jobs.listPage('pager', { limit: 2 });
    const second = await jobs.listPage('pager', { limit: 2, after: String(first.next) });
    const third = await jobs.listPage('pager', { limit: 2, after: String(second.next) });

    expect([first, second, third].map((page) => page.jobs.map((record) => record.jobId))).toEqual([
      [records[4]?.jobId, records[3]?.jobId],
      [records[2]?.jobId, records[1]?.jobId],
      [records[0]?.jobId],
    ]);
    expect(third.next).toBeUndefined();
  });

  it('refuses a cursor it did not hand out, naming cursor', async () => {
    await expect(jobs.listPage('pager', { limit: 2, after: '../acme/x' })).rejects.toMatchObject({
      field: 'cursor',
    });
  });
});
