/**
 * FOR LOCAL USE ONLY: the export state machine the stack deploys (its synthesized ASL, see
 * `infra/definitions.ts`) run in-process by aws-local-stepfunctions, its four Lambda tasks
 * answered by the same handlers as `functions/`. What differs from AWS, on purpose: retry
 * intervals are short (a fixed {@link LOCAL_RETRY_INTERVAL_MS}, not minutes), executions are not
 * durable (they end with the process), and an execution name (the job id) is refused twice only
 * within one process.
 */
import { StateMachine } from 'aws-local-stepfunctions';
import type { ExportMachine } from '../../infra/definitions.ts';
import { EXPORT_STATES } from '../../infra/state-machines.ts';
import type { ExecutionStarter, ExportInput } from '../jobs/index.ts';
import type { Workers } from '../workflow/index.ts';

/** How long a retried task waits locally, whatever the definition's backoff says. */
export const LOCAL_RETRY_INTERVAL_MS = 200;
/**
 * How long the plan task waits locally between two tries for its profile's slot (ProfileBusyError):
 * longer, since the definition's 99 tries are all a queued export has to wait for the exports of its
 * key ahead of it (first in, first out), about 100 s here instead of hours on AWS.
 */
export const LOCAL_SLOT_WAIT_MS = 1000;

// aws-local-stepfunctions 3.0.0 (the only version on the registry) calls Promise.withResolvers,
// which Node 22 has and Node 20 lacks: polyfilled for local runs on Node 20.
const promiseStatics = Promise as unknown as { withResolvers?: () => unknown };
if (typeof promiseStatics.withResolvers !== 'function') {
  promiseStatics.withResolvers = <T>() => {
    let resolve!: (value: T) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

/** A running state machine's view of the local runs, and a way to wait for them. */
export interface LocalStarter extends ExecutionStarter {
  /** Resolves when every execution started so far has ended. */
  idle(): Promise<void>;
}

/** What the local runs report. */
export interface LocalRunEvents {
  /** An execution ended: `succeeded`, or `failed` (the definition's catch marked the job failed). */
  onDone?: (jobId: string, state: 'succeeded' | 'failed') => void;
}

interface StateNode {
  Type: string;
  Resource?: string;
  Branches?: MachineNode[];
  ItemProcessor?: MachineNode;
  Iterator?: MachineNode;
}
interface MachineNode {
  States: Record<string, StateNode>;
}

type LocalHandler = (input: unknown) => Promise<unknown>;

/**
 * Every Task state's name (branches and item processors included) with the handler of its
 * Resource ARN: aws-local-stepfunctions overrides tasks by state name. Throws for a Task state
 * whose ARN has no handler.
 */
export function handlersByStateName<H>(machine: MachineNode, byArn: Record<string, H>): Record<string, H> {
  const named: Record<string, H> = {};
  const visit = (current: MachineNode) => {
    for (const [name, state] of Object.entries(current.States)) {
      if (state.Type === 'Task') {
        const handler = state.Resource === undefined ? undefined : byArn[state.Resource];
        if (handler === undefined) throw new Error(`no local handler for ${name} (${state.Resource})`);
        named[name] = handler;
      }
      for (const nested of [...(state.Branches ?? []), state.ItemProcessor, state.Iterator]) {
        if (nested !== undefined) visit(nested);
      }
    }
  };
  visit(machine);
  return named;
}

/** The machine ready to run: aws-local-stepfunctions' machine and its tasks by state name. */
function prepare(machine: ExportMachine, tasks: Workers) {
  const byArn: Record<string, LocalHandler> = {
    [machine.taskArns.plan]: (input) => tasks.plan(input as Parameters<Workers['plan']>[0]),
    [machine.taskArns.fetchShard]: (input) => tasks.fetchShard(input as Parameters<Workers['fetchShard']>[0]),
    [machine.taskArns.finish]: (input) => tasks.finish(input as Parameters<Workers['finish']>[0]),
    [machine.taskArns.fail]: (input) => tasks.fail(input as Parameters<Workers['fail']>[0]),
  };
  const definition = machine.definition as unknown as MachineNode;
  return {
    taskResourceLocalHandlers: handlersByStateName(definition, byArn),
    stateMachine: new StateMachine(machine.definition as never),
  };
}

/**
 * Starts executions of the export state machine in-process. The task handlers are given as the
 * four workers' handlers (`createPlanHandler(context)`, …). `machine` may still be on its way
 * (synthesized in a child process): executions started meanwhile begin once it is there, and end
 * `failed` (the job stays as it is) if it never comes. LOCAL USE ONLY (see the module comment).
 */
export function createStateMachineStarter(
  machine: ExportMachine | Promise<ExportMachine>,
  tasks: Workers,
  events: LocalRunEvents = {},
): LocalStarter {
  const ready = Promise.resolve(machine).then((synthesized) => prepare(synthesized, tasks));
  ready.catch(() => {});
  const started = new Set<string>();
  const running = new Set<Promise<void>>();

  const run = async (input: ExportInput): Promise<void> => {
    const prepared = await ready.catch(() => undefined);
    if (prepared === undefined) {
      events.onDone?.(input.jobId, 'failed');
      return;
    }
    const { stateMachine, taskResourceLocalHandlers } = prepared;
    const execution = stateMachine.run(input as never, {
      overrides: {
        taskResourceLocalHandlers: taskResourceLocalHandlers as never,
        retryIntervalOverrides: Object.fromEntries(
          Object.keys(taskResourceLocalHandlers).map((name) => [
            name,
            name === EXPORT_STATES.plan ? LOCAL_SLOT_WAIT_MS : LOCAL_RETRY_INTERVAL_MS,
          ]),
        ),
      },
    });
    const succeeded = await execution.result.then(
      () => true,
      () => false,
    );
    events.onDone?.(input.jobId, succeeded ? 'succeeded' : 'failed');
  };

  return {
    async start(input) {
      // As Step Functions refuses a second execution of the same name (the job id).
      if (started.has(input.jobId)) return;
      started.add(input.jobId);
      // Deferred so that the API answers before the export begins, as with StartExecution.
      const execution = new Promise<void>((resolve) => setImmediate(resolve)).then(() => run(input));
      running.add(execution);
      void execution.finally(() => running.delete(execution));
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}
