/**
 * FOR LOCAL USE ONLY: a synthesized definition (plain ASL JSON, `infra/definitions.ts`) run
 * in-process by aws-local-stepfunctions, its Task states answered by local handlers given by
 * resource ARN. The definition is checked and adapted first (`localDefinition`), where the
 * library would otherwise run it differently from AWS.
 */
import {
  ExecutionError,
  ExecutionTimeoutError,
  type RunOptions,
  StateMachine,
  type StateMachineDefinition,
} from 'aws-local-stepfunctions';
import { LocalDefinitionError, LocalExecutionError, LocalTaskError } from './errors.ts';

/** A Task resource's local handler. */
export type TaskHandler = (input: unknown) => Promise<unknown>;

/** What a local execution reports: an event's type (`StateEntered`, `StateRetried`, …) and its state. */
export interface LocalEvent {
  type: string;
  state?: string;
}

/** How one execution runs; without them, retries and Wait states wait as the definition says. */
export interface LocalExecuteOptions {
  /** The execution's name (`$$.Execution.Name`). */
  name?: string;
  /** How long a retry of the state named `state` waits, in milliseconds. */
  retryMs?: (state: string) => number;
  /** How long the Wait state named `state` waits, in milliseconds. */
  waitMs?: (state: string) => number;
  /** Every event of the execution, those of Map items and Parallel branches included. */
  onEvent?: (event: LocalEvent) => void;
}

/** A loaded state machine. */
export interface LocalMachine {
  /** Runs one execution to its output; rejects with LocalExecutionError when it fails. */
  execute(input: unknown, options?: LocalExecuteOptions): Promise<unknown>;
}

/**
 * setTimeout's longest delay, in whole seconds. aws-local-stepfunctions gives a Task state without
 * TimeoutSeconds the States Language spec's 60 s; Step Functions gives it none (the Lambda
 * function's own timeout bounds it), and a local Finish of a large export takes longer than 60 s.
 * Such a task gets this instead: no limit in practice, the execution's TimeoutSeconds still holds.
 */
export const LOCAL_TASK_TIMEOUT_SECONDS = Math.floor((2 ** 31 - 1) / 1000);

/**
 * Map fields aws-local-stepfunctions ignores: it runs a Distributed Map as an inline map over its
 * ItemsPath. A map that reads its items elsewhere, batches them, writes its results to S3 or
 * tolerates failed items would run otherwise here than on AWS, so it is refused.
 */
const IGNORED_MAP_FIELDS = [
  'ItemReader',
  'ItemBatcher',
  'ResultWriter',
  'ToleratedFailureCount',
  'ToleratedFailureCountPath',
  'ToleratedFailurePercentage',
  'ToleratedFailurePercentagePath',
];

type Raw = Record<string, unknown>;

/** The adapted definition, the resource of each Task state by name, and the names of its states. */
interface Adapted {
  definition: Raw;
  tasks: Map<string, string>;
  retrying: string[];
  waits: string[];
}

const isRaw = (value: unknown): value is Raw =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Checks and adapts `machine` (a copy) in place; `where` names it in errors. */
function adapt(machine: Raw, where: string, found: Omit<Adapted, 'definition'>): void {
  if (!isRaw(machine.States)) throw new LocalDefinitionError(where, 'States is not an object');
  for (const [name, state] of Object.entries(machine.States)) {
    const at = `${where === '' ? '' : `${where}.`}States.${name}`;
    if (!isRaw(state)) throw new LocalDefinitionError(at, 'not an object');
    if (state.Retry !== undefined) found.retrying.push(name);
    if (state.Type === 'Wait') found.waits.push(name);
    if (state.Type === 'Task') {
      // The library answers Task states by state name: two of one name would share a handler.
      if (found.tasks.has(name)) throw new LocalDefinitionError(at, 'a second Task state of this name');
      found.tasks.set(name, String(state.Resource));
      if (state.TimeoutSeconds === undefined && state.TimeoutSecondsPath === undefined) {
        state.TimeoutSeconds = LOCAL_TASK_TIMEOUT_SECONDS;
      }
    }
    if (state.Type === 'Map') {
      const ignored = IGNORED_MAP_FIELDS.find((field) => state[field] !== undefined);
      if (ignored !== undefined) {
        throw new LocalDefinitionError(
          `${at}.${ignored}`,
          'not supported locally (a Distributed Map runs inline over its ItemsPath)',
        );
      }
    }
    const nested = [
      ...(Array.isArray(state.Branches) ? state.Branches.map((branch, i) => [branch, `Branches[${i}]`]) : []),
      ...['ItemProcessor', 'Iterator'].map((field) => [state[field], field]),
    ] as [unknown, string][];
    for (const [child, field] of nested) {
      if (isRaw(child)) adapt(child, `${at}.${field}`, found);
    }
  }
}

/** The definition as the local runner takes it; LocalDefinitionError for one it would run otherwise. */
function localDefinition(definition: unknown): Adapted {
  if (!isRaw(definition)) throw new LocalDefinitionError('definition', 'not an object');
  const copy = structuredClone(definition);
  const found: Omit<Adapted, 'definition'> = { tasks: new Map(), retrying: [], waits: [] };
  adapt(copy, '', found);
  return { definition: copy, ...found };
}

/** A handler as Lambda runs it for Step Functions: a JSON result, its error as Lambda reports it. */
const asTask =
  (handler: TaskHandler, resource: string) =>
  async (input: unknown): Promise<never> => {
    try {
      return ((await handler(input)) ?? null) as never;
    } catch (thrown) {
      throw new LocalTaskError(thrown, /^arn:[^:]+:lambda:/.test(resource));
    }
  };

/** The library's failure as the project's: the error name and cause of the state that failed. */
function failure(thrown: unknown): unknown {
  if (thrown instanceof ExecutionTimeoutError) {
    return new LocalExecutionError('States.Timeout', 'the execution ran longer than its TimeoutSeconds', {
      cause: thrown,
    });
  }
  if (thrown instanceof ExecutionError && thrown.cause instanceof Error) {
    return new LocalExecutionError(thrown.cause.name, thrown.cause.message, { cause: thrown.cause });
  }
  return thrown;
}

/** Delivers the events of an execution to `onEvent` until its log ends. */
async function forward(
  events: AsyncGenerator<{ type: string; state?: { name: string } }>,
  onEvent: (event: LocalEvent) => void,
): Promise<void> {
  for await (const event of events) {
    onEvent(event.state === undefined ? { type: event.type } : { type: event.type, state: event.state.name });
  }
}

/** The library's machine; its validation's refusal (every invalid path listed) as LocalDefinitionError. */
function validated(definition: Raw): StateMachine {
  try {
    return new StateMachine(definition as unknown as StateMachineDefinition);
  } catch (thrown) {
    const reason = thrown instanceof Error ? thrown.message : String(thrown);
    throw new LocalDefinitionError('definition', `refused by aws-local-stepfunctions: ${reason}`, {
      cause: thrown,
    });
  }
}

/**
 * Loads a definition with the handlers of its Task resources by ARN. Throws LocalDefinitionError
 * for a Task resource without a handler, a definition the library would run otherwise than AWS, or
 * one it finds invalid.
 */
export function loadLocalMachine(
  definition: unknown,
  handlers: Readonly<Record<string, TaskHandler>>,
): LocalMachine {
  const adapted = localDefinition(definition);
  const byState: Record<string, ReturnType<typeof asTask>> = {};
  for (const [state, resource] of adapted.tasks) {
    const handler = handlers[resource];
    if (handler === undefined)
      throw new LocalDefinitionError(`Task ${state}`, `no local handler for ${resource}`);
    byState[state] = asTask(handler, resource);
  }
  const machine = validated(adapted.definition);
  return {
    async execute(input, options = {}) {
      const { retryMs, waitMs, onEvent } = options;
      const runOptions: RunOptions = {
        overrides: {
          taskResourceLocalHandlers: byState,
          ...(retryMs && {
            retryIntervalOverrides: Object.fromEntries(adapted.retrying.map((name) => [name, retryMs(name)])),
          }),
          ...(waitMs && {
            waitTimeOverrides: Object.fromEntries(adapted.waits.map((name) => [name, waitMs(name)])),
          }),
        },
        context: { Execution: { Name: options.name ?? 'local' } },
      };
      const execution = machine.run(input as never, runOptions);
      const delivered = onEvent && forward(execution.eventLogs, onEvent);
      try {
        return await execution.result;
      } catch (thrown) {
        throw failure(thrown);
      } finally {
        await delivered;
      }
    },
  };
}
