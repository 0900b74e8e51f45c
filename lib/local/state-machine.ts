/**
 * FOR LOCAL USE ONLY: the export state machine the stack deploys (its synthesized ASL, see
 * `infra/definitions.ts`) run in-process by aws-local-stepfunctions (`local-runner.ts`), its four
 * Lambda tasks answered by the same handlers as `functions/`. What differs from AWS, on purpose: retry
 * intervals are short (a fixed {@link LOCAL_RETRY_INTERVAL_MS}, not minutes), executions are not
 * durable (they end with the process), and an execution name (the job id) is refused twice only
 * within one process.
 */
import type { ExportMachine } from '../../infra/definitions.ts';
import { EXPORT_STATES } from '../../infra/state-machines.ts';
import type { ExecutionStarter, ExportInput } from '../jobs/index.ts';
import type { Workers } from '../workflow/index.ts';
import { ServeStoppedError } from './errors.ts';
import { loadLocalMachine, type TaskHandler } from './local-runner.ts';

/** How long a retried task waits locally, whatever the definition's backoff says. */
export const LOCAL_RETRY_INTERVAL_MS = 200;
/**
 * How long the plan task waits locally between two tries for its profile's slot (ProfileBusyError):
 * longer, since the definition's 99 tries are all a queued export has to wait for the exports of its
 * key ahead of it (first in, first out), about 100 s here instead of hours on AWS.
 */
export const LOCAL_SLOT_WAIT_MS = 1000;

/** Retries wait the local intervals, whatever the definition's backoff says; Wait states as declared. */
const localRetryMs = (state: string) =>
  state === EXPORT_STATES.plan ? LOCAL_SLOT_WAIT_MS : LOCAL_RETRY_INTERVAL_MS;

/** A running state machine's view of the local runs, and a way to wait for them. */
export interface LocalStarter extends ExecutionStarter {
  /** Resolves when every execution started so far has ended. */
  idle(): Promise<void>;
  /**
   * Resolves once the machine is synthesized and loaded; rejects with why it cannot run
   * (MachineSynthesisError, LocalDefinitionError).
   */
  ready: Promise<void>;
  /**
   * Starts no more exports: those still queued (their plan has not taken their profile's slot)
   * fail at their next try with {@link ServeStoppedError}, those running go on. Resolves, once
   * the plans under way have answered, with how many exports run on and how many were cancelled.
   */
  stopQueued(): Promise<{ running: number; cancelled: number }>;
}

/** What the local runs report. */
export interface LocalRunEvents {
  /** An execution ended: `succeeded`, or `failed` (the definition's catch marked the job failed). */
  onDone?: (jobId: string, state: 'succeeded' | 'failed') => void;
}

/** The machine ready to run, its Task states answered by the workers. */
function prepare(machine: ExportMachine, tasks: Workers) {
  return loadLocalMachine(machine.definition, {
    [machine.taskArns.plan]: (input) => tasks.plan(input as Parameters<Workers['plan']>[0]),
    [machine.taskArns.fetchShard]: (input) => tasks.fetchShard(input as Parameters<Workers['fetchShard']>[0]),
    [machine.taskArns.finish]: (input) => tasks.finish(input as Parameters<Workers['finish']>[0]),
    [machine.taskArns.fail]: (input) => tasks.fail(input as Parameters<Workers['fail']>[0]),
  } satisfies Record<string, TaskHandler>);
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
  const started = new Set<string>();
  const running = new Set<Promise<void>>();
  // Jobs of executions not yet ended, those whose plan took their slot, and plans under way.
  const active = new Set<string>();
  const begun = new Set<string>();
  const planning = new Set<Promise<unknown>>();
  let stopped = false;
  const plan: Workers['plan'] = async (input) => {
    if (stopped) throw new ServeStoppedError();
    const call = tasks.plan(input);
    planning.add(call);
    try {
      const output = await call;
      begun.add(input.jobId);
      return output;
    } finally {
      planning.delete(call);
    }
  };
  const ready = Promise.resolve(machine).then((synthesized) => prepare(synthesized, { ...tasks, plan }));
  const loaded = ready.then(() => {});
  // Awaited by whoever wants to know (`npm run serve` reports it); unobserved, it must not crash.
  loaded.catch(() => {});

  const run = async (input: ExportInput): Promise<void> => {
    const stateMachine = await ready.catch(() => undefined);
    if (stateMachine === undefined) {
      events.onDone?.(input.jobId, 'failed');
      return;
    }
    const succeeded = await stateMachine.execute(input, { name: input.jobId, retryMs: localRetryMs }).then(
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
      active.add(input.jobId);
      // Deferred so that the API answers before the export begins, as with StartExecution.
      const execution = new Promise<void>((resolve) => setImmediate(resolve)).then(() => run(input));
      running.add(execution);
      void execution.finally(() => {
        running.delete(execution);
        active.delete(input.jobId);
      });
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    ready: loaded,
    async stopQueued() {
      stopped = true;
      await Promise.allSettled([...planning]);
      const going = [...active].filter((jobId) => begun.has(jobId)).length;
      return { running: going, cancelled: active.size - going };
    },
  };
}
