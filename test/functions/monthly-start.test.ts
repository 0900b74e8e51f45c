import { StartExecutionCommand } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jobIdFor, type MonthlyItem } from '../../lib/jobs/index.ts';
import { createMonthlyStartHandler } from '../../lib/lambda/index.ts';
import {
  loadEvent,
  NOW,
  STATE_MACHINE_ARN,
  startWorkflowHarness,
  type WorkflowHarness,
} from '../support/workflow.ts';

let h: WorkflowHarness;
beforeAll(async () => {
  h = await startWorkflowHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.resetSfn();
});

describe('monthly-start handler', () => {
  it('exports the previous month of the profile local date (New York, across a month boundary)', async () => {
    const item = await loadEvent<MonthlyItem>('monthly-item.json');

    const output = await createMonthlyStartHandler(h.monthlyContext())(item);

    expect(output).toEqual({ jobId: jobIdFor('ny', 'schedule:ny:2026-09'), created: true });
    expect(await h.jobs.get(output.jobId)).toMatchObject({
      profile: 'ny',
      source: 'schedule',
      state: 'queued',
      idempotencyKey: 'schedule:ny:2026-09',
      request: { profile: 'ny', period: '2026-09', timeZone: 'America/New_York' },
      createdAt: NOW.toISOString(),
    });
  });

  it('starts the export execution named by the job id', async () => {
    const output = await createMonthlyStartHandler(h.monthlyContext())({
      profile: 'acme',
      scheduledTime: '2026-10-01T00:30:00Z',
    });

    expect(h.startCalls()).toEqual([
      {
        stateMachineArn: STATE_MACHINE_ARN,
        name: output.jobId,
        input: JSON.stringify({ jobId: output.jobId }),
      },
    ]);
  });

  it('returns created false and starts nothing for a repeated item', async () => {
    const handler = createMonthlyStartHandler(h.monthlyContext());
    const item = { profile: 'demo', scheduledTime: '2026-08-01T00:30:00Z' };
    const first = await handler(item);

    const second = await handler(item);

    expect(second).toEqual({ jobId: first.jobId, created: false });
    expect(h.sfn.commandCalls(StartExecutionCommand)).toHaveLength(1);
  });

  it('makes one job for two schedule times in the same local month', async () => {
    const handler = createMonthlyStartHandler(h.monthlyContext());
    const first = await handler({ profile: 'demo', scheduledTime: '2026-07-01T00:30:00Z' });

    const second = await handler({ profile: 'demo', scheduledTime: '2026-07-01T06:00:00+02:00' });

    expect(second).toEqual({ jobId: first.jobId, created: false });
  });

  it('rejects a profile that is not registered', async () => {
    await expect(
      createMonthlyStartHandler(h.monthlyContext())({
        profile: 'nobody',
        scheduledTime: '2026-11-01T00:30:00Z',
      }),
    ).rejects.toMatchObject({ name: 'UnknownProfileError', field: 'profile' });
  });

  it('rejects a scheduled time without an offset', async () => {
    await expect(
      createMonthlyStartHandler(h.monthlyContext())({ profile: 'demo', scheduledTime: '2026-11-01 00:30' }),
    ).rejects.toMatchObject({ name: 'ValidationError', field: 'scheduledTime' });
  });
});
