/**
 * Running a loaded machine (`load.ts`), after the AWS documentation of the States Language:
 * - input and output processing, in this order: InputPath, Parameters (ItemsPath and ItemSelector
 *   for a Map), the work, ResultSelector, ResultPath (into the state's raw input), OutputPath —
 *   https://docs.aws.amazon.com/step-functions/latest/dg/concepts-input-output-filtering.html
 * - Retry and Catch: the first retrier whose ErrorEquals names the error decides (its own attempt
 *   count, IntervalSeconds × BackoffRate^n capped by MaxDelaySeconds, FULL jitter a random part of
 *   that); when it is spent or none matches, the first matching catcher puts `{ Error, Cause }` at
 *   its ResultPath of the raw input and goes to its Next. `States.ALL` matches any error and
 *   `States.TaskFailed` any but `States.Timeout`; neither matches `States.Runtime`, which always
 *   fails the execution —
 *   https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html
 * - Parallel: every branch on the effective input, the output the list of their outputs; Map: the
 *   item processor on each element of ItemsPath (`$$.Map.Item.Index`/`Value` in ItemSelector), at
 *   most MaxConcurrency at a time (0: all), outputs in item order. The first failing branch or
 *   item fails the state and no further state starts in its siblings —
 *   https://docs.aws.amazon.com/step-functions/latest/dg/state-parallel.html,
 *   https://docs.aws.amazon.com/step-functions/latest/dg/state-map-inline.html
 * A distributed Map runs here like an inline one (no child executions).
 */
import { StatesError } from './errors.ts';
import type { Machine, Retrier, State } from './load.ts';
import { applyResultPath, type ReferencePath, readPath, type Scope } from './paths.ts';

/** A Task's work: its effective input in, its result out (or an error thrown). */
export type TaskHandler = (input: unknown) => Promise<unknown>;

/** A pause the interpreter asks for: a retry's backoff, or a Wait state. */
export interface SleepRequest {
  kind: 'retry' | 'wait';
  state: string;
  ms: number;
}

/** What an execution reports as it goes. */
export type ExecutionEvent =
  | { type: 'StateEntered'; state: string }
  | { type: 'StateRetried'; state: string; attempt: number };

/** What an execution runs with (injected so that tests never really wait). */
export interface Runtime {
  tasks: Readonly<Record<string, TaskHandler>>;
  sleep: (request: SleepRequest) => Promise<void>;
  /** In [0, 1), for FULL jitter. */
  random: () => number;
  onEvent: (event: ExecutionEvent) => void;
  /** The context object's `Execution` (Input, Name, StartTime). */
  execution: Record<string, unknown>;
}

/** A run of nested work that can be stopped (its Parallel or Map failed, or the execution timed out). */
export interface Stop {
  reason?: StatesError;
  parent?: Stop;
}

const stopped = (stop: Stop | undefined): StatesError | undefined =>
  stop?.reason ?? (stop === undefined ? undefined : stopped(stop.parent));

/** Runs a machine on `input` to its output; a failure is thrown as a StatesError. */
export async function runMachine(
  machine: Machine,
  input: unknown,
  runtime: Runtime,
  stop: Stop,
): Promise<unknown> {
  let name = machine.startAt;
  let value = input;
  for (;;) {
    const reason = stopped(stop);
    if (reason !== undefined) throw reason;
    const state = machine.states.get(name) as State;
    runtime.onEvent({ type: 'StateEntered', state: name });
    const step = await runState(state, value, runtime, stop);
    if (step.next === undefined) return step.output;
    name = step.next;
    value = step.output;
  }
}

interface Step {
  output: unknown;
  next?: string | undefined;
}

const select = (path: ReferencePath | null | undefined, scope: Scope): unknown =>
  path === undefined ? scope.input : path === null ? {} : readPath(path, scope);

function contextOf(runtime: Runtime, state: string): Record<string, unknown> {
  return { Execution: runtime.execution, State: { Name: state } };
}

async function runState(state: State, raw: unknown, runtime: Runtime, stop: Stop): Promise<Step> {
  const context = contextOf(runtime, state.name);
  switch (state.type) {
    case 'Fail': {
      const field = (value: string | ReferencePath | undefined) =>
        value === undefined || typeof value === 'string'
          ? (value ?? '')
          : String(readPath(value, { input: raw, context }));
      throw new StatesError(field(state.error), field(state.cause));
    }
    case 'Succeed':
      return {
        output: select(state.outputPath, {
          input: select(state.inputPath, { input: raw, context }),
          context,
        }),
      };
    case 'Wait': {
      const effective = select(state.inputPath, { input: raw, context });
      await runtime.sleep({ kind: 'wait', state: state.name, ms: state.seconds * 1000 });
      return { output: select(state.outputPath, { input: effective, context }), next: state.next };
    }
    case 'Choice': {
      const effective = select(state.inputPath, { input: raw, context });
      const rule = state.choices.find(
        (candidate) => readPath(candidate.variable, { input: effective, context }) === candidate.stringEquals,
      );
      const next = rule?.next ?? state.default;
      if (next === undefined)
        throw new StatesError('States.NoChoiceMatched', `no choice of ${state.name} matched`);
      return { output: select(state.outputPath, { input: effective, context }), next };
    }
    default:
      return runWork(state, raw, runtime, stop);
  }
}

type WorkState = Extract<State, { type: 'Task' | 'Parallel' | 'Map' }>;

/** Whether a retrier's or catcher's ErrorEquals names `error`. */
export function errorMatches(names: readonly string[], error: string): boolean {
  if (error === 'States.Runtime') return false;
  return names.some(
    (name) =>
      name === error || name === 'States.ALL' || (name === 'States.TaskFailed' && error !== 'States.Timeout'),
  );
}

/** The backoff of a retry (`count` retries done before it), in milliseconds. */
export function retryDelayMs(retrier: Retrier, count: number, random: () => number): number {
  const backoff = retrier.intervalSeconds * retrier.backoffRate ** count;
  const capped = Math.min(backoff, retrier.maxDelaySeconds ?? Number.POSITIVE_INFINITY) * 1000;
  return retrier.jitter ? Math.floor(random() * capped) : capped;
}

/** A Task, Parallel or Map state: input and output processing around its work, Retry, Catch. */
async function runWork(state: WorkState, raw: unknown, runtime: Runtime, stop: Stop): Promise<Step> {
  const counts = state.retry.map(() => 0);
  const context = contextOf(runtime, state.name);
  for (;;) {
    try {
      const effective = select(state.inputPath, { input: raw, context });
      const parameters =
        state.parameters === undefined ? effective : state.parameters({ input: effective, context });
      const result = await perform(state, parameters, runtime, stop);
      const selected =
        state.resultSelector === undefined ? result : state.resultSelector({ input: result, context });
      const output = select(state.outputPath, {
        input: applyResultPath(state.resultPath, raw, selected),
        context,
      });
      return { output, next: state.next };
    } catch (thrown) {
      const failure =
        thrown instanceof StatesError
          ? thrown
          : new StatesError('States.Runtime', thrown instanceof Error ? thrown.message : String(thrown), {
              cause: thrown,
            });
      if (stopped(stop) !== undefined) throw failure;
      const index = state.retry.findIndex((retrier) => errorMatches(retrier.errorEquals, failure.error));
      const retrier = state.retry[index];
      if (retrier !== undefined && (counts[index] as number) < retrier.maxAttempts) {
        const ms = retryDelayMs(retrier, counts[index] as number, runtime.random);
        counts[index] = (counts[index] as number) + 1;
        runtime.onEvent({ type: 'StateRetried', state: state.name, attempt: counts[index] as number });
        await runtime.sleep({ kind: 'retry', state: state.name, ms });
        continue;
      }
      const catcher = state.catch.find((candidate) => errorMatches(candidate.errorEquals, failure.error));
      if (catcher === undefined) throw failure;
      const error = { Error: failure.error, Cause: failure.causeText };
      return { output: applyResultPath(catcher.resultPath, raw, error), next: catcher.next };
    }
  }
}

/** A task's error as the States Language reports it (a Lambda's Cause is JSON, as on AWS). */
function taskError(thrown: unknown, resource: string): StatesError {
  if (thrown instanceof StatesError) return thrown;
  const name = thrown instanceof Error ? thrown.name : 'Error';
  const message = thrown instanceof Error ? thrown.message : String(thrown);
  const cause = resource.startsWith('arn:aws:lambda:')
    ? JSON.stringify({ errorType: name, errorMessage: message })
    : message;
  return new StatesError(name, cause, { cause: thrown });
}

async function perform(state: WorkState, input: unknown, runtime: Runtime, stop: Stop): Promise<unknown> {
  if (state.type === 'Task') {
    try {
      return (await (runtime.tasks[state.resource] as TaskHandler)(input)) ?? null;
    } catch (thrown) {
      throw taskError(thrown, state.resource);
    }
  }
  if (state.type === 'Parallel') {
    return inChildren(stop, (children) =>
      Promise.all(state.branches.map((branch) => runMachine(branch, input, runtime, children))),
    );
  }
  const context = contextOf(runtime, state.name);
  const items = readPath(state.itemsPath, { input, context });
  if (!Array.isArray(items))
    throw new StatesError(
      'States.Runtime',
      `ItemsPath ${state.itemsPath.text} of ${state.name} is not a list`,
    );
  const itemInput = (value: unknown, index: number) =>
    state.itemSelector === undefined
      ? value
      : state.itemSelector({ input, context: { ...context, Map: { Item: { Index: index, Value: value } } } });
  return inChildren(stop, (children) =>
    pool(items.length, state.maxConcurrency, children, (index) =>
      runMachine(state.processor, itemInput(items[index], index), runtime, children),
    ),
  );
}

/** Runs `work` under a child stop, which the first failure sets so that the siblings end. */
async function inChildren<T>(stop: Stop, work: (children: Stop) => Promise<T>): Promise<T> {
  const children: Stop = { parent: stop };
  try {
    return await work(children);
  } catch (thrown) {
    children.reason ??= thrown as StatesError;
    throw thrown;
  }
}

/** `run(0…count-1)`, at most `limit` at a time (0: no limit), results in index order. */
async function pool<T>(
  count: number,
  limit: number,
  stop: Stop,
  run: (index: number) => Promise<T>,
): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count && stopped(stop) === undefined) {
      const index = next;
      next += 1;
      results[index] = await run(index);
    }
  };
  const workers = Math.min(limit === 0 ? count : limit, count);
  await Promise.all(Array.from({ length: workers }, worker));
  return results;
}
