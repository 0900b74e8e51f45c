/**
 * Closes and reopens asked at the same time (issue 37, item 7): each reads the period's history
 * and creates the next record, so only one of them may win. Over real HTTP on loopback against
 * `npm run serve`'s stack (its S3 client refuses an `If-None-Match: *` write of an existing key as
 * S3 does, see lib/jobs/local-s3.ts), and against a folder (the record created only if its name is
 * free).
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closePeriod,
  createLocalCloseStore,
  PeriodAlreadyClosedError,
  PeriodNotClosedError,
  reopenPeriod,
} from '../../lib/close/index.ts';
import { type LocalService, startLocalService } from '../../lib/local/index.ts';
import { createS3Client } from '../../lib/storage/index.ts';

const RUN_ID = '20251103T091500Z-abc123';

describe('concurrent closes over the HTTP API of serve', () => {
  let service: LocalService;
  beforeAll(async () => {
    // No export runs: a machine that does nothing spares the synthesis.
    service = await startLocalService({
      port: 0,
      exportMachine: {
        definition: { StartAt: 'Done', States: { Done: { Type: 'Succeed' } } },
        taskArns: { plan: 'p', fetchShard: 'f', finish: 'x', fail: 'y' },
      },
    });
    const s3 = await createS3Client({
      region: 'us-east-1',
      endpoint: service.s3Endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
    await s3.send(
      new PutObjectCommand({
        Bucket: service.bucket,
        Key: `reports/demo/2025-10/${RUN_ID}/manifest.json`,
        Body: '{"files":[]}',
      }),
    );
    s3.destroy();
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await rm(service.s3Dir, { recursive: true, force: true });
  });

  const post = async (path: string, body: unknown) => {
    const answer = await fetch(`${service.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: answer.status, body: (await answer.json()) as Record<string, unknown> };
  };
  const history = async () => {
    const answer = await fetch(`${service.url}/closes?profile=demo`);
    const body = (await answer.json()) as { periods: { period: string; history: { action: string }[] }[] };
    return body.periods.find((p) => p.period === '2025-10')?.history.map((r) => r.action) ?? [];
  };

  it('answers 201 to one of six simultaneous closes of a period and 409 to the five others, with one record', async () => {
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, k) =>
        post('/closes', { profile: 'demo', period: '2025-10', runId: RUN_ID, reason: `close ${k}` }),
      ),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    expect(await history()).toEqual(['close']);
  });

  it('answers 201 to one of four simultaneous reopens and 409 to the three others, with one more record', async () => {
    const answers = await Promise.all(
      Array.from({ length: 4 }, (_, k) =>
        post('/closes/reopen', { profile: 'demo', period: '2025-10', reason: `reopen ${k}` }),
      ),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([201, 409, 409, 409]);
    expect(await history()).toEqual(['close', 'reopen']);
  });
});

describe('concurrent closes in a folder', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-close-race-'));
    const set = join(dir, 'reports/acme/2025-10', RUN_ID);
    await mkdir(set, { recursive: true });
    await writeFile(join(set, 'manifest.json'), '{"files":[]}');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const now = () => new Date('2025-11-03T09:15:00.000Z');
  const input = { profile: 'acme', period: '2025-10', runId: RUN_ID, by: 'ann' };

  it('records one of six simultaneous closes and refuses the others as closed already', async () => {
    // Six stores: six writers that each read the records and then create theirs.
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => closePeriod(input, { store: createLocalCloseStore(dir), now })),
    );

    const refused = results.filter((r) => r.status === 'rejected').map((r) => r.reason);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(refused.map((error) => error instanceof PeriodAlreadyClosedError)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(await readdir(join(dir, 'closes/acme/2025-10'))).toEqual(['000001.json']);
  });

  it('records one of four simultaneous reopens and refuses the others as not closed', async () => {
    const reopen = { profile: 'acme', period: '2025-10', by: 'bob', reason: 'client re-filed' };
    const results = await Promise.allSettled(
      Array.from({ length: 4 }, () => reopenPeriod(reopen, { store: createLocalCloseStore(dir), now })),
    );

    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(
      results.filter((r) => r.status === 'rejected').map((r) => r.reason instanceof PeriodNotClosedError),
    ).toEqual([true, true, true]);
    expect((await readdir(join(dir, 'closes/acme/2025-10'))).sort()).toEqual(['000001.json', '000002.json']);
  });
});
