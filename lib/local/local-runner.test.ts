import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Workers } from '../workflow/index.ts';
import { LocalDefinitionError, type LocalExecutionError } from './errors.ts';
import { loadLocalMachine } from './local-runner.ts';
import { createStateMachineStarter } from './state-machine.ts';

const LAMBDA = 'arn:aws:lambda:eu-central-1:123456789012:function:Work';

/** A one-task machine: `Work` on the Lambda ARN, its result the machine's output. */
const oneTask = (task: Record<string, unknown> = {}) => ({
  StartAt: 'Work',
  States: { Work: { Type: 'Task', Resource: LAMBDA, End: true, ...task } },
});

/** A monthly-like machine: a Distributed Map over `$.items`, with `extra` fields on the Map state. */
const distributedMap = (extra: Record<string, unknown>) => ({
  StartAt: 'Each',
  States: {
    Each: {
      Type: 'Map',
      ItemsPath: '$.items',
      ItemProcessor: {
        ProcessorConfig: { Mode: 'DISTRIBUTED', ExecutionType: 'STANDARD' },
        StartAt: 'Work',
        States: { Work: { Type: 'Task', Resource: LAMBDA, End: true } },
      },
      End: true,
      ...extra,
    },
  },
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as LocalExecutionError,
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('the local runner (aws-local-stepfunctions over a synthesized definition)', () => {
  it('lets a task run past 60 s, as Step Functions sets no timeout on a Task without TimeoutSeconds', async () => {
    vi.useFakeTimers();
    const slow = () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 61_000));
    const execution = failure(loadLocalMachine(oneTask(), { [LAMBDA]: slow }).execute({}));

    await vi.advanceTimersByTimeAsync(61_000);

    expect(await execution).toBeUndefined();
  });

  it('still times out a task at its own TimeoutSeconds', async () => {
    vi.useFakeTimers();
    const slow = () => new Promise((resolve) => setTimeout(() => resolve({ done: true }), 61_000));
    const execution = failure(
      loadLocalMachine(oneTask({ TimeoutSeconds: 30 }), { [LAMBDA]: slow }).execute({}),
    );

    await vi.advanceTimersByTimeAsync(61_000);

    expect((await execution)?.error).toBe('States.Timeout');
  });

  it("hands a Lambda task's error on as Lambda does: its name, and a Cause of { errorType, errorMessage } JSON", async () => {
    const definition = {
      StartAt: 'Work',
      States: {
        Work: {
          Type: 'Task',
          Resource: LAMBDA,
          Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Failed' }],
          End: true,
        },
        Failed: { Type: 'Fail', ErrorPath: '$.error.Error', CausePath: '$.error.Cause' },
      },
    };
    class ProfileBusyError extends Error {
      override name = 'ProfileBusyError';
    }
    const busy = async () => {
      throw new ProfileBusyError('acme is exporting');
    };

    const error = await failure(loadLocalMachine(definition, { [LAMBDA]: busy }).execute({}));

    expect({ error: error?.error, cause: JSON.parse(error?.causeText ?? 'null') }).toEqual({
      error: 'ProfileBusyError',
      cause: { errorType: 'ProfileBusyError', errorMessage: 'acme is exporting' },
    });
  });

  it('gives the execution its name in the context object ($$.Execution.Name)', async () => {
    const definition = oneTask({ Parameters: { 'name.$': '$$.Execution.Name' } });
    const echo = async (input: unknown) => input;

    const output = await loadLocalMachine(definition, { [LAMBDA]: echo }).execute({}, { name: 'job-1' });

    expect(output).toEqual({ name: 'job-1' });
  });

  it('runs a Distributed Map over its ItemsPath, each item through its processor', async () => {
    const double = async (input: unknown) => (input as number) * 2;

    const output = await loadLocalMachine(distributedMap({}), { [LAMBDA]: double }).execute({
      items: [1, 2, 3],
    });

    expect(output).toEqual([2, 4, 6]);
  });

  it.each(['ItemReader', 'ItemBatcher', 'ResultWriter', 'ToleratedFailureCount'])(
    'refuses a Distributed Map with %s, which the library would ignore, naming the field',
    (field) => {
      const load = () =>
        loadLocalMachine(distributedMap({ [field]: field === 'ToleratedFailureCount' ? 1 : {} }), {
          [LAMBDA]: async () => null,
        });

      expect(load).toThrow(LocalDefinitionError);
      expect(load).toThrow(`States.Each.${field}: not supported locally`);
    },
  );

  it('refuses a definition the library finds invalid, with what its validator found', () => {
    const load = () => loadLocalMachine({ ...oneTask(), StartAt: 'Nowhere' }, { [LAMBDA]: async () => null });

    expect(load).toThrow(LocalDefinitionError);
    expect(load).toThrow(/refused by aws-local-stepfunctions: .*Nowhere/s);
  });

  it('refuses a Task whose resource has no local handler, naming the state and the ARN', () => {
    expect(() => loadLocalMachine(oneTask(), {})).toThrow(`Task Work: no local handler for ${LAMBDA}`);
  });
});

describe('the local export starter', () => {
  it('rejects ready with why a synthesized machine cannot run locally', async () => {
    const unused = async () => {
      throw new Error('not called');
    };
    const workers = { plan: unused, fetchShard: unused, finish: unused, fail: unused } as unknown as Workers;
    const machine = {
      definition: distributedMap({ ItemReader: {} }),
      taskArns: { plan: LAMBDA, fetchShard: `${LAMBDA}2`, finish: `${LAMBDA}3`, fail: `${LAMBDA}4` },
    };

    const starter = createStateMachineStarter(machine, workers);

    await expect(starter.ready).rejects.toThrow(LocalDefinitionError);
  });
});
