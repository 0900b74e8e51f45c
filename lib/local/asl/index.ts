/**
 * FOR LOCAL USE ONLY: a small interpreter of the part of the Amazon States Language that the
 * project's synthesized state machines use (see `load.ts` for the subset, `run.ts` for the
 * semantics and the AWS pages they follow). A definition using anything else is refused when it is
 * loaded. Task resources are answered by handlers given by ARN; waits (retry backoffs, Wait
 * states) go through an injected sleep.
 */
import { ExecutionFailedError, StatesError } from './errors.ts';
import { loadMachine, type Machine } from './load.ts';
import { type ExecutionEvent, runMachine, type SleepRequest, type Stop, type TaskHandler } from './run.ts';

export { AslDefinitionError, ExecutionFailedError, StatesError } from './errors.ts';
export {
  type ExecutionEvent,
  errorMatches,
  retryDelayMs,
  type SleepRequest,
  type TaskHandler,
} from './run.ts';

/** How one execution runs; every field has a default that really waits. */
export interface ExecuteOptions {
  /** The execution's name (`$$.Execution.Name`). */
  name?: string;
  /** Waits for a retry's backoff or a Wait state (default: a timer of `ms`). */
  sleep?: (request: SleepRequest) => Promise<void>;
  /** In [0, 1), for FULL jitter (default Math.random). */
  random?: () => number;
  /** Starts the execution's TimeoutSeconds timer; returns its cancel (default: an unref'd setTimeout). */
  setTimer?: (ms: number, fire: () => void) => () => void;
  onEvent?: (event: ExecutionEvent) => void;
}

/** A loaded state machine. */
export interface LocalStateMachine {
  /** Runs one execution to its output; rejects with ExecutionFailedError when it fails. */
  execute(input: unknown, options?: ExecuteOptions): Promise<unknown>;
}

/** setTimeout's longest delay; a longer one is waited for in steps. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** Calls `fire` after `ms`; `unref`: without keeping the process alive. Returns its cancel. */
function timer(ms: number, fire: () => void, unref: boolean): () => void {
  let handle: NodeJS.Timeout;
  const wait = (left: number) => {
    handle = setTimeout(
      () => (left > MAX_TIMER_MS ? wait(left - MAX_TIMER_MS) : fire()),
      Math.min(left, MAX_TIMER_MS),
    );
    if (unref) handle.unref();
  };
  wait(ms);
  return () => clearTimeout(handle);
}

const realSleep = ({ ms }: SleepRequest) => new Promise<void>((resolve) => timer(ms, resolve, false));
const realTimer = (ms: number, fire: () => void) => timer(ms, fire, true);

/**
 * Loads a definition (its ASL as JSON) with the handlers of its Task resources by ARN. Throws
 * AslDefinitionError, naming the place, for a state or field not implemented here, or a Task
 * resource without a handler.
 */
export function loadStateMachine(
  definition: unknown,
  tasks: Readonly<Record<string, TaskHandler>>,
): LocalStateMachine {
  const machine: Machine = loadMachine(definition, 'definition', new Set(Object.keys(tasks)), true);
  return {
    async execute(input, options = {}) {
      const stop: Stop = {};
      const runtime = {
        tasks,
        sleep: options.sleep ?? realSleep,
        random: options.random ?? Math.random,
        onEvent: options.onEvent ?? (() => {}),
        execution: { Input: input, Name: options.name ?? 'local', StartTime: new Date().toISOString() },
      };
      let cancel = () => {};
      const timedOut = new Promise<never>((_, reject) => {
        if (machine.timeoutSeconds === undefined) return;
        cancel = (options.setTimer ?? realTimer)(machine.timeoutSeconds * 1000, () => {
          stop.reason = new StatesError(
            'States.Timeout',
            `the execution ran longer than ${machine.timeoutSeconds} s`,
          );
          reject(stop.reason);
        });
      });
      try {
        return await Promise.race([runMachine(machine, input, runtime, stop), timedOut]);
      } catch (thrown) {
        throw new ExecutionFailedError(
          thrown instanceof StatesError ? thrown : new StatesError('States.Runtime', String(thrown)),
        );
      } finally {
        cancel();
      }
    },
  };
}
