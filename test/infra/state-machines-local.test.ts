/**
 * The state machines as synthesized, executed locally by aws-local-stepfunctions (through
 * `lib/local`'s runner) with the real handlers of `functions/` behind their Lambda ARNs, against
 * the simulator and s3rver (Secrets Manager and Step Functions' StartExecution mocked). The
 * library runs the export's inline Map as declared, and the monthly Distributed Map as an inline
 * map over its ItemsPath (no batching or result writing: those are asserted on the template in
 * stack.test.ts).
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPORT_STATES, MONTHLY_STATES } from '../../infra/state-machines.ts';
import { type JobRecord, KEYS } from '../../lib/jobs/index.ts';
import {
  createFailHandler,
  createFetchShardHandler,
  createFinishHandler,
  createMonthlyStartHandler,
  createPlanHandler,
  type WorkerContext,
} from '../../lib/lambda/index.ts';
import { type LocalExecutionError, loadLocalMachine } from '../../lib/local/index.ts';
import { captureOutput, startWorkflowHarness, type WorkflowHarness } from '../support/workflow.ts';
import { functionLogicalId, logicalIdOf, stateMachineDefinition, synthesize, TEST_ENV } from './support.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type LocalHandler = (input: Json) => Promise<Json>;
interface MachineDefinition {
  StartAt: string;
  States: Record<string, unknown>;
}

const lambdaArn = (logicalId: string) =>
  `arn:aws:lambda:${TEST_ENV.region}:${TEST_ENV.account}:function:${logicalId}`;

let h: WorkflowHarness;
let exportDefinition: MachineDefinition;
let monthlyDefinition: MachineDefinition;
let arns: Record<'plan' | 'fetchShard' | 'finish' | 'fail' | 'monthlyStart', string>;
/** The export state machine's logical id, which stands for its name in the resolved definitions. */
let exportMachineId: string;

beforeAll(async () => {
  const { stack, template } = synthesize();
  const definitionOf = (machine: typeof stack.exportStateMachine) =>
    stateMachineDefinition(template, logicalIdOf(stack, machine), lambdaArn) as unknown as MachineDefinition;
  exportDefinition = definitionOf(stack.exportStateMachine);
  monthlyDefinition = definitionOf(stack.monthlyStateMachine);
  exportMachineId = logicalIdOf(stack, stack.exportStateMachine);
  arns = {
    plan: lambdaArn(functionLogicalId(stack, 'plan')),
    fetchShard: lambdaArn(functionLogicalId(stack, 'fetchShard')),
    finish: lambdaArn(functionLogicalId(stack, 'finish')),
    fail: lambdaArn(functionLogicalId(stack, 'fail')),
    monthlyStart: lambdaArn(functionLogicalId(stack, 'monthlyStart')),
  };
  h = await startWorkflowHarness();
});

afterAll(async () => {
  await h?.close();
});

const wrap =
  <I, O>(handler: (event: I) => Promise<O>): LocalHandler =>
  async (input) =>
    (await handler(input as I)) as Json;

/** The real handlers of the export's four functions, over `context`, by their Lambda ARNs. */
function exportHandlers(context: WorkerContext): Record<string, LocalHandler> {
  return {
    [arns.plan]: wrap(createPlanHandler(context)),
    [arns.fetchShard]: wrap(createFetchShardHandler(context)),
    [arns.finish]: wrap(createFinishHandler(context)),
    [arns.fail]: wrap(createFailHandler(context)),
  };
}

interface Execution {
  succeeded: boolean;
  output?: Json;
  error?: LocalExecutionError;
  /** Names of the states entered, in order. */
  entered: string[];
  /** Names of the states retried, once per retry. */
  retried: string[];
}

/** Runs `machine` on `input` with the local handlers, retrying and waiting without delays. */
async function execute(
  machine: MachineDefinition,
  input: Json,
  byArn: Record<string, LocalHandler>,
): Promise<Execution> {
  const output = captureOutput();
  const entered: string[] = [];
  const retried: string[] = [];
  try {
    const result = await loadLocalMachine(
      machine,
      byArn as Record<string, (input: unknown) => Promise<unknown>>,
    )
      .execute(input, {
        retryMs: () => 0,
        waitMs: () => 0,
        onEvent: (event) => {
          if (event.type === 'StateEntered') entered.push(event.state ?? '');
          if (event.type === 'StateRetried') retried.push(event.state ?? '');
        },
      })
      .then(
        (value) => ({ succeeded: true, output: value as Json }),
        (error: unknown) => ({ succeeded: false, error: error as LocalExecutionError }),
      );
    return { ...result, entered, retried };
  } finally {
    output.stop();
  }
}

/** Runs the export state machine for `jobId` with the real handlers over `context`. */
function runExport(jobId: string, context: WorkerContext): Promise<Execution> {
  return execute(exportDefinition, { jobId }, exportHandlers(context));
}

describe('export state machine, executed locally', () => {
  describe('with a healthy service', () => {
    let job: JobRecord;
    let execution: Execution;

    beforeAll(async () => {
      job = await h.queueJob({
        profile: 'acme',
        period: { from: '2025-01-01', to: '2025-03-31' },
        formats: ['csv', 'xlsx'],
      });
      execution = await runExport(job.jobId, h.workerContext());
    });

    it('returns the output of Finish: the job succeeded with its files', async () => {
      const record = await h.jobs.require(job.jobId);
      expect(execution.error).toBeUndefined();
      expect(execution.output).toEqual({
        jobId: job.jobId,
        state: 'succeeded',
        files: record.result?.files.length,
      });
    });

    it('runs Plan, one FetchShard per shard, then Finish', async () => {
      const plan = JSON.parse(
        (await (
          await h.s3.client.send(new GetObjectCommand({ Bucket: h.bucket, Key: KEYS.plan(job.jobId) }))
        ).Body?.transformToString()) ?? '{}',
      ) as { plan: { shards: unknown[] } };
      expect(execution.entered.filter((name) => name === EXPORT_STATES.fetchShard)).toHaveLength(
        plan.plan.shards.length,
      );
      expect(execution.entered[1]).toBe(EXPORT_STATES.plan);
      expect(execution.entered.at(-1)).toBe(EXPORT_STATES.finish);
    });

    it('writes the succeeded job record', async () => {
      const record = await h.jobs.require(job.jobId);
      expect(record.state).toBe('succeeded');
      expect(record.result?.prefix).toMatch(/^reports\/acme\//);
    });

    it('publishes the report files and the manifest in the bucket', async () => {
      const record = await h.jobs.require(job.jobId);
      const published = await h.keysUnder(`${record.result?.prefix}/`);
      const listed = (record.result?.files ?? []).map((file) => file.key).sort();
      expect(published).toEqual(listed);
      expect(published.some((key) => key.endsWith('.csv'))).toBe(true);
      expect(published.some((key) => key.endsWith('.xlsx'))).toBe(true);
      expect(record.result?.files.map((file) => file.name)).toContain('manifest.json');
    });
  });

  describe('with a failing service and a small retry budget', () => {
    let job: JobRecord;
    let execution: Execution;

    beforeAll(async () => {
      job = await h.queueJob({ profile: 'acme', period: '2025-02', formats: ['csv'] });
      h.simulator.setFaults({ serverError: { rate: 1 } });
      try {
        const services = h.servicesWith({ retry: { maxAttempts: 2, baseDelayMs: 0, maxDelayMs: 0 } });
        execution = await runExport(job.jobId, h.workerContext({ services, shardAttempts: 1 }));
      } finally {
        h.simulator.setFaults({});
      }
    });

    it('ends in the Fail state after MarkFailed', () => {
      expect(execution.succeeded).toBe(false);
      expect(execution.entered.slice(-2)).toEqual([EXPORT_STATES.markFailed, EXPORT_STATES.failed]);
    });

    it('retries the failing task as often as its retrier allows before giving up', () => {
      expect(execution.retried).toEqual([EXPORT_STATES.plan, EXPORT_STATES.plan]);
    });

    it('fails the execution with the error name of the failed task', () => {
      expect(execution.error?.error).toBe('PbsHttpError');
    });

    it('marks the job failed with the reason', async () => {
      const record = await h.jobs.require(job.jobId);
      expect(record.state).toBe('failed');
      expect(record.reason).toMatch(/^PbsHttpError: .*HTTP 500/);
    });

    it('publishes no report', async () => {
      expect(await h.keysUnder('reports/acme/2025-02/')).toEqual([]);
    });
  });
});

describe('monthly state machine, executed locally', () => {
  // As the schedule sends it: each monthly profile with the deployment's gains policies, or null.
  const input = {
    scheduledTime: '2026-12-01T06:00:00Z',
    profiles: [
      { profile: 'demo', gains: null, journal: null },
      { profile: 'acme', gains: { taxRules: 'de', transferFee: 'basis' }, journal: null },
    ],
  };
  const describeResource = `arn:${TEST_ENV.partition}:states:::aws-sdk:sfn:describeExecution`;
  /** ExecutionArn of every DescribeExecution call, in order. */
  const described: string[] = [];
  let execution: Execution;

  beforeAll(async () => {
    h.resetSfn();
    // Each export is still running when first described, and has succeeded the next time.
    const describeExecution: LocalHandler = async (request) => {
      const arn = (request as { ExecutionArn: string }).ExecutionArn;
      const seen = described.includes(arn);
      described.push(arn);
      return { ExecutionArn: arn, Status: seen ? 'SUCCEEDED' : 'RUNNING' };
    };
    execution = await execute(monthlyDefinition, input, {
      [arns.monthlyStart]: wrap(createMonthlyStartHandler(h.monthlyContext())),
      [describeResource]: describeExecution,
    });
  });

  it('returns its input once every item has ended', () => {
    expect(execution.error).toBeUndefined();
    expect(execution.output).toEqual(input);
  });

  it('invokes monthly-start once per profile', () => {
    expect(execution.entered.filter((name) => name === MONTHLY_STATES.start)).toHaveLength(2);
  });

  it("starts each profile's export of its previous local month, named by the job", async () => {
    const jobIds = h.startCalls().map((call) => call.name ?? '');
    const records = await Promise.all(jobIds.map((jobId) => h.jobs.require(jobId)));
    expect(records.map((record) => [record.profile, record.request.period, record.source]).sort()).toEqual([
      ['acme', '2026-11', 'schedule'],
      ['demo', '2026-11', 'schedule'],
    ]);
  });

  it("passes each profile's gains policies on to its export request", async () => {
    const jobIds = h.startCalls().map((call) => call.name ?? '');
    const records = await Promise.all(jobIds.map((jobId) => h.jobs.require(jobId)));
    const policies = Object.fromEntries(
      records.map((record) => [
        record.profile,
        record.request.gains === undefined
          ? null
          : [record.request.gains.taxRules, record.request.gains.method, record.request.gains.transferFee],
      ]),
    );
    expect(policies).toEqual({ demo: null, acme: ['de', 'fifo', 'basis'] });
  });

  it('describes each started export until it is no longer running', () => {
    const executionArns = h
      .startCalls()
      .map(
        (call) =>
          `arn:aws:states:${TEST_ENV.region}:${TEST_ENV.account}:execution:${exportMachineId}:${call.name}`,
      );
    expect([...described].sort()).toEqual([...executionArns, ...executionArns].sort());
  });
});
