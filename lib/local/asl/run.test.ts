import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  type ExecuteOptions,
  type ExecutionEvent,
  ExecutionFailedError,
  loadStateMachine,
  type SleepRequest,
  StatesError,
} from './index.ts';

const LAMBDA = 'arn:aws:lambda:eu-central-1:123456789012:function:Work';
const SDK = 'arn:aws:states:::aws-sdk:sfn:describeExecution';

class PbsHttpError extends Error {
  override name = 'PbsHttpError';
}

/** How an execution ended: its output, or its error. */
interface Outcome {
  output?: unknown;
  error?: ExecutionFailedError;
}

/** Runs `definition` on `input` with `tasks`, no real waits; what happened, and how it ended. */
async function run(
  definition: unknown,
  input: unknown,
  tasks: Record<string, (input: unknown) => Promise<unknown>>,
  options: ExecuteOptions = {},
) {
  const sleeps: SleepRequest[] = [];
  const events: ExecutionEvent[] = [];
  const outcome = await loadStateMachine(definition, tasks)
    .execute(input, {
      sleep: async (request) => {
        sleeps.push(request);
      },
      onEvent: (event) => events.push(event),
      ...options,
    })
    .then(
      (output): Outcome => ({ output }),
      (error: unknown): Outcome => ({ error: error as ExecutionFailedError }),
    );
  const entered = events.flatMap((event) => (event.type === 'StateEntered' ? [event.state] : []));
  const retried = events.flatMap((event) => (event.type === 'StateRetried' ? [event.state] : []));
  return { ...outcome, sleeps, entered, retried };
}

/** A task that fails with `errors` in turn, then answers its input. */
function failing(...errors: Error[]) {
  const calls: unknown[] = [];
  const handler = async (input: unknown) => {
    calls.push(input);
    const error = errors.shift();
    if (error !== undefined) throw error;
    return input;
  };
  return { calls, handler };
}

describe('input and output processing of a Task', () => {
  it('applies InputPath, Parameters, the task, ResultSelector, ResultPath (into the raw input), OutputPath in order', async () => {
    const seen: unknown[] = [];
    const definition = {
      StartAt: 'T',
      States: {
        T: {
          Type: 'Task',
          Resource: LAMBDA,
          InputPath: '$.job',
          Parameters: { 'id.$': '$.id', fixed: 'x', 'name.$': '$$.Execution.Name' },
          ResultSelector: { 'status.$': '$.Status' },
          ResultPath: '$.job.result',
          OutputPath: '$.job',
          End: true,
        },
      },
    };
    const { output } = await run(
      definition,
      { job: { id: 'j1', other: 1 }, outer: true },
      {
        [LAMBDA]: async (input) => {
          seen.push(input);
          return { Status: 'DONE', noise: 1 };
        },
      },
      { name: 'exec-1' },
    );
    expect(seen).toEqual([{ id: 'j1', fixed: 'x', name: 'exec-1' }]);
    expect(output).toEqual({ id: 'j1', other: 1, result: { status: 'DONE' } });
  });

  it('ResultPath null keeps the input; OutputPath null gives {}', async () => {
    const states = (outputPath: unknown) => ({
      StartAt: 'T',
      States: { T: { Type: 'Task', Resource: LAMBDA, ResultPath: null, OutputPath: outputPath, End: true } },
    });
    const tasks = { [LAMBDA]: async () => 'ignored' };
    expect((await run(states('$'), { a: 1 }, tasks)).output).toEqual({ a: 1 });
    expect((await run(states(null), { a: 1 }, tasks)).output).toEqual({});
  });

  it('a path that selects nothing fails the execution with States.Runtime, which States.ALL does not catch', async () => {
    const definition = {
      StartAt: 'T',
      States: {
        T: {
          Type: 'Task',
          Resource: LAMBDA,
          Parameters: { 'id.$': '$.missing' },
          Retry: [{ ErrorEquals: ['States.ALL'] }],
          Catch: [{ ErrorEquals: ['States.ALL'], Next: 'Caught' }],
          End: true,
        },
        Caught: { Type: 'Succeed' },
      },
    };
    const { error, retried, entered } = await run(definition, {}, { [LAMBDA]: async () => null });
    expect(error).toBeInstanceOf(ExecutionFailedError);
    expect(error?.error).toBe('States.Runtime');
    expect({ retried, entered }).toEqual({ retried: [], entered: ['T'] });
  });
});

describe('Retry', () => {
  const retrying = (retry: unknown[]) => ({
    StartAt: 'T',
    States: { T: { Type: 'Task', Resource: LAMBDA, Retry: retry, End: true } },
  });

  it('retries as often as MaxAttempts allows, waiting IntervalSeconds × BackoffRate^n capped by MaxDelaySeconds', async () => {
    const task = failing(
      new PbsHttpError('a'),
      new PbsHttpError('b'),
      new PbsHttpError('c'),
      new PbsHttpError('d'),
    );
    const definition = retrying([
      {
        ErrorEquals: ['States.TaskFailed'],
        IntervalSeconds: 10,
        MaxAttempts: 3,
        BackoffRate: 3,
        MaxDelaySeconds: 50,
      },
    ]);
    const { error, retried, sleeps } = await run(definition, { n: 1 }, { [LAMBDA]: task.handler });
    expect(task.calls).toHaveLength(4);
    expect(retried).toEqual(['T', 'T', 'T']);
    expect(sleeps).toEqual([
      { kind: 'retry', state: 'T', ms: 10_000 },
      { kind: 'retry', state: 'T', ms: 30_000 },
      { kind: 'retry', state: 'T', ms: 50_000 },
    ]);
    expect(error?.error).toBe('PbsHttpError');
  });

  it('succeeds when a retry does, with the output of that try', async () => {
    const task = failing(new PbsHttpError('a'));
    const { output, retried } = await run(
      retrying([{ ErrorEquals: ['PbsHttpError'] }]),
      { n: 1 },
      { [LAMBDA]: task.handler },
    );
    expect({ output, retried }).toEqual({ output: { n: 1 }, retried: ['T'] });
  });

  it('FULL jitter waits a random part of the backoff', async () => {
    const task = failing(new PbsHttpError('a'));
    const definition = retrying([
      { ErrorEquals: ['States.ALL'], IntervalSeconds: 2, JitterStrategy: 'FULL' },
    ]);
    const { sleeps } = await run(definition, {}, { [LAMBDA]: task.handler }, { random: () => 0.25 });
    expect(sleeps.map((sleep) => sleep.ms)).toEqual([500]);
  });

  it('the first retrier naming the error decides, even with MaxAttempts 0 (no fall-through)', async () => {
    const task = failing(new PbsHttpError('a'));
    const definition = retrying([
      { ErrorEquals: ['PbsHttpError'], MaxAttempts: 0 },
      { ErrorEquals: ['States.ALL'] },
    ]);
    const { error, retried } = await run(definition, {}, { [LAMBDA]: task.handler });
    expect({ error: error?.error, retried, calls: task.calls.length }).toEqual({
      error: 'PbsHttpError',
      retried: [],
      calls: 1,
    });
  });

  it('each retrier counts its own attempts', async () => {
    const other = Object.assign(new Error('o'), { name: 'OtherError' });
    const task = failing(new PbsHttpError('a'), other, new PbsHttpError('b'), other);
    const definition = retrying([
      { ErrorEquals: ['PbsHttpError'], MaxAttempts: 2 },
      { ErrorEquals: ['OtherError'], MaxAttempts: 2 },
    ]);
    const { output, retried } = await run(definition, 'in', { [LAMBDA]: task.handler });
    expect({ output, retried: retried.length }).toEqual({ output: 'in', retried: 4 });
  });

  it('States.TaskFailed does not match States.Timeout', async () => {
    const task = failing(new StatesError('States.Timeout', 'too slow'));
    const { error, retried } = await run(
      retrying([{ ErrorEquals: ['States.TaskFailed'] }]),
      {},
      { [LAMBDA]: task.handler },
    );
    expect({ error: error?.error, retried }).toEqual({ error: 'States.Timeout', retried: [] });
  });
});

describe('Catch', () => {
  const definition = {
    StartAt: 'T',
    States: {
      T: {
        Type: 'Task',
        Resource: LAMBDA,
        Catch: [
          { ErrorEquals: ['Gone'], ResultPath: null, Next: 'Ended' },
          { ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Failed' },
        ],
        End: true,
      },
      Ended: { Type: 'Succeed' },
      Failed: { Type: 'Fail', ErrorPath: '$.error.Error', CausePath: '$.error.Cause' },
    },
  };

  it('puts { Error, Cause } at its ResultPath and goes on to a Fail state, which fails the execution with them', async () => {
    const task = failing(new PbsHttpError('HTTP 500'));
    const { error, entered } = await run(definition, { jobId: 'j' }, { [LAMBDA]: task.handler });
    expect(entered).toEqual(['T', 'Failed']);
    expect(error).toBeInstanceOf(ExecutionFailedError);
    expect(error?.error).toBe('PbsHttpError');
    // A Lambda's Cause is JSON with errorType and errorMessage, as on AWS.
    expect(JSON.parse(error?.causeText ?? '')).toEqual({
      errorType: 'PbsHttpError',
      errorMessage: 'HTTP 500',
    });
    expect((error?.cause as StatesError | undefined)?.error).toBe('PbsHttpError');
  });

  it('with ResultPath null goes on with the raw input; an SDK task error keeps its message as Cause', async () => {
    const sdkDefinition = {
      ...definition,
      States: { ...definition.States, T: { ...definition.States.T, Resource: SDK, ResultPath: '$.out' } },
    };
    const task = failing(Object.assign(new Error('no such execution'), { name: 'Gone' }));
    const { output, entered } = await run(sdkDefinition, { jobId: 'j' }, { [SDK]: task.handler });
    expect({ output, entered }).toEqual({ output: { jobId: 'j' }, entered: ['T', 'Ended'] });
  });

  it('catches only after the retries are spent', async () => {
    const task = failing(new PbsHttpError('a'), new PbsHttpError('b'));
    const retried = {
      ...definition,
      States: {
        ...definition.States,
        T: { ...definition.States.T, Retry: [{ ErrorEquals: ['States.ALL'], MaxAttempts: 1 }] },
      },
    };
    const result = await run(retried, {}, { [LAMBDA]: task.handler });
    expect({ retried: result.retried, entered: result.entered, error: result.error?.error }).toEqual({
      retried: ['T'],
      entered: ['T', 'Failed'],
      error: 'PbsHttpError',
    });
  });
});

describe('Parallel', () => {
  it("gives the list of its branches' outputs; a failing branch fails it, caught by its Catch", async () => {
    const branch = (name: string) => ({
      StartAt: name,
      States: { [name]: { Type: 'Task', Resource: LAMBDA, Parameters: { 'b.$': `$.${name}` }, End: true } },
    });
    const definition = (extra: Record<string, unknown>) => ({
      StartAt: 'P',
      States: { P: { Type: 'Parallel', Branches: [branch('x'), branch('y')], End: true, ...extra } },
    });
    const echo = { [LAMBDA]: async (input: unknown) => input };
    expect((await run(definition({}), { x: 1, y: 2 }, echo)).output).toEqual([{ b: 1 }, { b: 2 }]);
    expect((await run(definition({ OutputPath: '$[1]' }), { x: 1, y: 2 }, echo)).output).toEqual({ b: 2 });

    const caught = definition({
      Catch: [{ ErrorEquals: ['States.ALL'], ResultPath: '$.error', Next: 'Done' }],
    });
    caught.States = { ...caught.States, Done: { Type: 'Succeed' } } as typeof caught.States;
    const boom = {
      [LAMBDA]: async (input: unknown) =>
        (input as { b: number }).b === 2 ? Promise.reject(new PbsHttpError('y')) : input,
    };
    const { output } = await run(caught, { x: 1, y: 2 }, boom);
    expect((output as { error: { Error: string } }).error.Error).toBe('PbsHttpError');
  });
});

describe('Map', () => {
  const mapOf = (extra: Record<string, unknown>) => ({
    StartAt: 'M',
    States: {
      M: {
        Type: 'Map',
        ItemsPath: '$.items',
        ItemSelector: { 'value.$': '$$.Map.Item.Value', 'index.$': '$$.Map.Item.Index', 'job.$': '$.job' },
        ItemProcessor: {
          ProcessorConfig: { Mode: 'INLINE' },
          StartAt: 'W',
          States: { W: { Type: 'Task', Resource: LAMBDA, End: true } },
        },
        End: true,
        ...extra,
      },
    },
  });

  /** A task that holds each call until released, counting the calls in flight. */
  function gated(fail?: (input: { value: string }) => boolean) {
    const state = { inFlight: 0, most: 0, calls: [] as string[] };
    const handler = async (input: unknown) => {
      const item = input as { value: string };
      state.calls.push(item.value);
      state.inFlight += 1;
      state.most = Math.max(state.most, state.inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      state.inFlight -= 1;
      if (fail?.(item)) throw new PbsHttpError(item.value);
      return { done: item.value };
    };
    return { state, handler };
  }

  it('runs the processor on each item with ItemSelector, at most MaxConcurrency at a time, outputs in item order', async () => {
    const task = gated();
    const items = ['a', 'b', 'c', 'd', 'e'];
    const { output } = await run(
      mapOf({ MaxConcurrency: 2, ResultPath: '$.results' }),
      { items, job: 'j' },
      { [LAMBDA]: task.handler },
    );
    expect(output).toEqual({ items, job: 'j', results: items.map((value) => ({ done: value })) });
    expect(task.state.most).toBe(2);
    expect(task.state.calls.sort()).toEqual(items);
  });

  it('with MaxConcurrency 0 runs all items at once', async () => {
    const task = gated();
    await run(mapOf({ MaxConcurrency: 0 }), { items: ['a', 'b', 'c'], job: 'j' }, { [LAMBDA]: task.handler });
    expect(task.state.most).toBe(3);
  });

  it('passes the index and value of each item', async () => {
    const seen: unknown[] = [];
    await run(
      mapOf({ MaxConcurrency: 1 }),
      { items: ['a', 'b'], job: 'j' },
      { [LAMBDA]: async (input) => seen.push(input) },
    );
    expect(seen).toEqual([
      { value: 'a', index: 0, job: 'j' },
      { value: 'b', index: 1, job: 'j' },
    ]);
  });

  it('a failing item fails the Map with its error, and no further item starts', async () => {
    const task = gated((item) => item.value === 'a');
    const { error } = await run(
      mapOf({ MaxConcurrency: 1 }),
      { items: ['a', 'b', 'c'], job: 'j' },
      { [LAMBDA]: task.handler },
    );
    expect(error?.error).toBe('PbsHttpError');
    expect(task.state.calls).toEqual(['a']);
  });

  it('a failing item stops its siblings from starting further items', async () => {
    const calls: string[] = [];
    let release = () => {};
    const slow = new Promise<void>((resolve) => {
      release = resolve;
    });
    const handler = async (input: unknown) => {
      const { value } = input as { value: string };
      calls.push(value);
      if (value === 'a') throw new PbsHttpError('a');
      if (value === 'b') await slow;
      return value;
    };
    const { error } = await run(
      mapOf({ MaxConcurrency: 2 }),
      { items: ['a', 'b', 'c', 'd'], job: 'j' },
      { [LAMBDA]: handler },
    );
    release();
    for (let tick = 0; tick < 5; tick += 1) await new Promise((resolve) => setImmediate(resolve));
    expect({ error: error?.error, calls }).toEqual({ error: 'PbsHttpError', calls: ['a', 'b'] });
  });

  it('ItemsPath that is no list is States.Runtime', async () => {
    const { error } = await run(mapOf({}), { items: 'x', job: 'j' }, { [LAMBDA]: async () => null });
    expect(error?.error).toBe('States.Runtime');
  });
});

describe('Choice, Wait, Succeed', () => {
  const definition = {
    StartAt: 'Ask',
    States: {
      Ask: { Type: 'Task', Resource: SDK, ResultPath: '$.export', Next: 'Running' },
      Running: {
        Type: 'Choice',
        Choices: [{ Variable: '$.export.status', StringEquals: 'RUNNING', Next: 'Pause' }],
        Default: 'Ended',
      },
      Pause: { Type: 'Wait', Seconds: 60, Next: 'Ask' },
      Ended: { Type: 'Succeed', OutputPath: '$.export' },
    },
  };

  it('loops through the Wait while StringEquals matches, then takes the Default', async () => {
    const answers = ['RUNNING', 'RUNNING', 'SUCCEEDED'];
    const { output, entered, sleeps } = await run(
      definition,
      {},
      { [SDK]: async () => ({ status: answers.shift() }) },
    );
    expect(output).toEqual({ status: 'SUCCEEDED' });
    expect(entered).toEqual([
      'Ask',
      'Running',
      'Pause',
      'Ask',
      'Running',
      'Pause',
      'Ask',
      'Running',
      'Ended',
    ]);
    expect(sleeps).toEqual([
      { kind: 'wait', state: 'Pause', ms: 60_000 },
      { kind: 'wait', state: 'Pause', ms: 60_000 },
    ]);
  });

  it('without a Default and no match is States.NoChoiceMatched', async () => {
    const { Default: _default, ...running } = definition.States.Running;
    const noDefault = { ...definition, States: { ...definition.States, Running: running } };
    const { error } = await run(noDefault, {}, { [SDK]: async () => ({ status: 'FAILED' }) });
    expect(error?.error).toBe('States.NoChoiceMatched');
  });
});

describe('TimeoutSeconds', () => {
  it('fails the execution with States.Timeout when its timer fires, and no further state starts', async () => {
    let fire = () => {};
    const definition = {
      StartAt: 'T',
      TimeoutSeconds: 30,
      States: {
        T: { Type: 'Task', Resource: LAMBDA, Next: 'U' },
        U: { Type: 'Task', Resource: LAMBDA, End: true },
      },
    };
    const calls: unknown[] = [];
    const timers: number[] = [];
    const { error, entered } = await run(
      definition,
      {},
      {
        [LAMBDA]: async (input) => {
          calls.push(input);
          fire();
          return input;
        },
      },
      {
        setTimer: (ms, onFire) => {
          timers.push(ms);
          fire = onFire;
          return () => {};
        },
      },
    );
    expect({ error: error?.error, entered, calls: calls.length, timers }).toEqual({
      error: 'States.Timeout',
      entered: ['T'],
      calls: 1,
      timers: [30_000],
    });
  });
});

describe('the default sleep', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("waits longer than setTimeout's longest delay in steps, not at once", async () => {
    vi.useFakeTimers();
    const definition = { StartAt: 'W', States: { W: { Type: 'Wait', Seconds: 3_000_000, End: true } } };
    let done = false;
    const execution = loadStateMachine(definition, {})
      .execute('in')
      .then(() => {
        done = true;
      });
    await vi.advanceTimersByTimeAsync(2 ** 31);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(3_000_000_000 - 2 ** 31);
    await execution;
    expect(done).toBe(true);
  });
});
