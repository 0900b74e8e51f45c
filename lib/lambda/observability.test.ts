import type { Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { captureOutput } from '../../test/support/workflow.ts';
import {
  AdjustmentMismatchError,
  ContradictoryAdjustmentsError,
  InvalidAdjustmentsError,
} from '../adjustments/index.ts';
import { ValidationError } from '../errors.ts';
import { ProfileBusyError } from '../jobs/index.ts';
import { createObservability, withObservability } from './observability.ts';

/** The Lambda context as the runtime passes it (the fields Powertools' logger reads). */
const LAMBDA_CONTEXT = {
  functionName: 'pbs-export-plan',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:pbs-export-plan',
  memoryLimitInMB: '1024',
  awsRequestId: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
  getRemainingTimeInMillis: () => 60_000,
} as unknown as Context;

/** Runs `body` with stdout and stderr captured; returns the JSON lines written. */
async function captured(body: () => Promise<unknown>): Promise<Record<string, unknown>[]> {
  const output = captureOutput();
  try {
    await body().catch(() => {});
  } finally {
    output.stop();
  }
  return output.lines();
}

describe('withObservability', () => {
  it('logs an info line, not an error, for a plan waiting for the slot, and still throws ProfileBusyError', async () => {
    const obs = createObservability('pbs-export-test');
    const handler = withObservability(
      obs,
      () => ({}),
      async () => {
        throw new ProfileBusyError('acme');
      },
    );
    let thrown: unknown;

    const lines = await captured(() =>
      handler({}).catch((error: unknown) => {
        thrown = error;
      }),
    );

    expect(thrown).toBeInstanceOf(ProfileBusyError);
    expect(lines.map((line) => line.level)).toEqual(['INFO']);
  });

  it("logs a request's validation error as one warning line with its field and reason, no stack", async () => {
    const obs = createObservability('pbs-export-test');
    const handler = withObservability(
      obs,
      () => ({}),
      async () => {
        throw new ValidationError(
          'gains.currency',
          'uk figures are in GBP, but transaction tx_1 has values in USD',
        );
      },
    );

    const lines = await captured(() => handler({}, LAMBDA_CONTEXT));

    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      message: 'invocation failed: invalid request',
      field: 'gains.currency',
      reason: 'uk figures are in GBP, but transaction tx_1 has values in USD',
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/stack|\bat .*\.ts:\d+/);
  });

  it.each([
    [
      'an adjustment the data does not fit',
      new AdjustmentMismatchError('basis-1', 'tx_4 is no transfer in', { field: 'txId' }),
      { adjustment: 'basis-1', field: 'txId', reason: 'tx_4 is no transfer in' },
    ],
    [
      'adjustments that contradict each other',
      new ContradictoryAdjustmentsError(['a1', 'a2'], 'both pair tx_1'),
      {
        adjustment: 'a1 and a2',
        field: 'adjustments',
        reason: 'adjustments a1 and a2 contradict: both pair tx_1',
      },
    ],
    [
      'a document that does not validate',
      new InvalidAdjustmentsError('adjustments[0].value', 'not a decimal'),
      { field: 'adjustments[0].value', reason: 'not a decimal' },
    ],
  ])('logs %s as one warning line with its field and reason, no stack', async (_, error, keys) => {
    const obs = createObservability('pbs-export-test');
    const handler = withObservability(
      obs,
      () => ({}),
      async () => {
        throw error;
      },
    );

    const lines = await captured(() => handler({}, LAMBDA_CONTEXT));

    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'WARN',
      message: 'invocation failed: invalid adjustments',
      ...keys,
    });
    expect(JSON.stringify(lines[0])).not.toMatch(/stack|\bat .*\.ts:\d+/);
  });

  it('puts the Lambda context and the event keys on the log lines (injectLambdaContext)', async () => {
    const obs = createObservability('pbs-export-test');
    const handler = withObservability(
      obs,
      (event: { jobId: string }) => ({ jobId: event.jobId }),
      async () => 'done',
    );

    const lines = await captured(() => handler({ jobId: 'a'.repeat(32) }, LAMBDA_CONTEXT));

    expect(lines.find((line) => line.message === 'invocation succeeded')).toMatchObject({
      level: 'INFO',
      function_name: 'pbs-export-plan',
      function_request_id: 'c6af9ac6-7b61-11e6-9a41-93e812345678',
      jobId: 'a'.repeat(32),
    });
  });

  it('clears the keys of one invocation before the next', async () => {
    const obs = createObservability('pbs-export-test');
    const handler = withObservability(
      obs,
      (event: { jobId?: string }) => (event.jobId ? { jobId: event.jobId } : {}),
      async () => 'done',
    );

    const lines = await captured(async () => {
      await handler({ jobId: 'b'.repeat(32) }, LAMBDA_CONTEXT);
      await handler({}, LAMBDA_CONTEXT);
    });

    const succeeded = lines.filter((line) => line.message === 'invocation succeeded');
    expect(succeeded).toHaveLength(2);
    expect(succeeded[1]).not.toHaveProperty('jobId');
  });

  it('publishes the metrics an invocation recorded, once, in the EMF namespace PbsExport (logMetrics)', async () => {
    const obs = createObservability('pbs-export-test');
    obs.metrics.setThrowOnEmptyMetrics(false);
    const handler = withObservability(
      obs,
      () => ({}),
      async () => {
        obs.metrics.addMetric('ExportRows', 'Count', 7);
      },
    );

    const lines = await captured(() => handler({}, LAMBDA_CONTEXT));

    const emf = lines.filter((line) => '_aws' in line);
    expect(emf).toHaveLength(1);
    expect(emf[0]).toMatchObject({
      ExportRows: 7,
      _aws: {
        CloudWatchMetrics: [{ Namespace: 'PbsExport', Metrics: [{ Name: 'ExportRows', Unit: 'Count' }] }],
      },
    });
  });

  it('writes no warning when an invocation recorded no metric', async () => {
    const obs = createObservability('pbs-export-test');
    const handler = withObservability(
      obs,
      () => ({}),
      async () => 'nothing recorded',
    );

    const lines = await captured(() => handler({}, LAMBDA_CONTEXT));

    expect(lines.filter((line) => line.level === 'WARN')).toEqual([]);
  });
});
