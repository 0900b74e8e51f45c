/**
 * Every scheduled monthly run checks the profile's closed periods: nothing changed, its manifest
 * has one line and nothing else is written; a closed month the service changed gets a
 * restatement and a "changed after close" notice, once: the next run, with nothing new, sends none.
 * A run started on demand checks nothing.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChangedAfterCloseNotice, closePeriod, createS3CloseStore } from '../../lib/close/index.ts';
import { createFetchShardHandler, createFinishHandler, createPlanHandler } from '../../lib/lambda/index.ts';
import { closeNoticeOf } from '../../lib/workflow/index.ts';
import { fetchAllItems } from '../support/simulator.ts';
import { startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';

let h: WorkflowHarness;
const notices: ChangedAfterCloseNotice[] = [];
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});

/** Runs a job to its end as the state machine would; `schedule` makes it the monthly run's job. */
async function run(period: string, source: 'schedule' | 'api') {
  const job = await h.queueJob({ profile: 'acme', period, formats: ['csv'] });
  await h.jobs.update(job.jobId, (current) => ({ ...current, source }));
  const context = h.workerContext({
    notifyClose: async (notice) => {
      notices.push(notice);
    },
  });
  const plan = await createPlanHandler(context)({ jobId: job.jobId });
  for (const shard of plan.shards) await createFetchShardHandler(context)({ jobId: job.jobId, shard });
  await createFinishHandler(context)({ jobId: job.jobId });
  const result = (await h.jobs.require(job.jobId)).result;
  if (result === undefined) throw new Error('the export did not succeed');
  const manifest = await h.client.send(
    new GetObjectCommand({ Bucket: h.bucket, Key: `${result.prefix}/manifest.json` }),
  );
  return { result, manifest: JSON.parse((await manifest.Body?.transformToString()) ?? '{}') };
}

describe('the monthly run and closed periods', () => {
  let closedRunId: string;
  beforeAll(async () => {
    const { result } = await run('2025-06', 'api');
    closedRunId = result.runId;
    const store = createS3CloseStore({ client: h.client, bucket: h.bucket });
    await closePeriod(
      { profile: 'acme', period: '2025-06', runId: closedRunId, by: 'ann' },
      { store, now: h.now },
    );
  });

  it('records one line in the manifest and writes nothing else when no closed period changed', async () => {
    const { manifest } = await run('2025-07', 'schedule');
    expect(manifest.closeCheck).toBe('1 closed period checked: no change');
    expect(await h.keysUnder('restatements/')).toEqual([]);
    expect(notices).toEqual([]);
  });

  it('checks nothing in a run started on demand', async () => {
    const { manifest } = await run('2025-08', 'api');
    expect(manifest.closeCheck).toBeUndefined();
  });

  it('publishes a restatement and tells the subscribers when the service changed the closed month', async () => {
    const acme = h.simulator.profiles.find((p) => p.name === 'acme');
    if (acme === undefined) throw new Error('no acme');
    const june = (await fetchAllItems(h.simulator.url, acme, '/v2/transactions', [
      ['startDate', '2025-06-01T00:00:00.000Z'],
      ['endDate', '2025-07-01T00:00:00.000Z'],
    ])) as { id: string }[];
    const target = june[0]?.id as string;
    h.simulator.editPast([{ kind: 'delete', profile: 'acme', at: Date.now(), id: target }]);

    const { manifest } = await run('2025-09', 'schedule');

    expect(manifest.closeCheck).toMatch(
      /^1 closed period checked: acme 2025-06 changed \(restatements\/acme\/2025-06\//,
    );
    const keys = await h.keysUnder('restatements/acme/2025-06/');
    expect(keys.some((key) => key.endsWith('/acme_2025-06_restatement_changes.csv'))).toBe(true);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatchObject({ kind: 'changed-after-close', profile: 'acme', period: '2025-06' });
    expect(notices[0]?.summary).toMatch(
      /^June 2025 changed after it was closed on .* by ann: 1 transaction deleted; /,
    );
    const notice = closeNoticeOf(notices[0] as ChangedAfterCloseNotice, 'https://reports.example.com/portal');
    expect(notice.attributes).toEqual({ profile: 'acme', state: 'changed-after-close' });
    expect(notice.message).toContain('https://reports.example.com/portal/clients/acme#closed-periods');
  });

  it('publishes no second restatement and sends no second notice when the next monthly run finds nothing new', async () => {
    const restated = await h.keysUnder('restatements/acme/2025-06/');

    const { manifest } = await run('2025-10', 'schedule');

    expect(manifest.closeCheck).toBe('1 closed period checked: no change');
    expect(await h.keysUnder('restatements/acme/2025-06/')).toEqual(restated);
    expect(notices).toHaveLength(1);
  });
});
