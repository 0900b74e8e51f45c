/**
 * FOR LOCAL USE ONLY (`npm run serve`): an in-process stand-in for the export state machine. In
 * AWS the export runs on Step Functions (Plan → Map over shards → Finish, catch → MarkFailed);
 * this runner only replays that order with the same task functions so the API can be tried on a
 * laptop. It is not a scheduler and has no retries or durability.
 */
import pLimit from 'p-limit';
import { type ExecutionStarter, type ExportInput, ProfileBusyError } from '../jobs/index.ts';
import type { Workers } from './workers.ts';

/** What the local runner reports. */
export interface LocalRunEvents {
  onDone?: (jobId: string, state: 'succeeded' | 'failed') => void;
  /** The plan task found the profile's slot held (`ProfileBusyError`) and will be retried. */
  onBusy?: (jobId: string) => void;
}

/**
 * How the plan task is retried on `ProfileBusyError`, as the state machine's retrier does:
 * exponential backoff with full jitter. Default: 100 ms × 1.5ⁿ up to 2 s, 200 attempts.
 */
export interface BusyRetry {
  intervalMs: number;
  backoffRate: number;
  maxDelayMs: number;
  maxAttempts: number;
}

const DEFAULT_BUSY_RETRY: BusyRetry = {
  intervalMs: 100,
  backoffRate: 1.5,
  maxDelayMs: 2000,
  maxAttempts: 200,
};

/** The local stand-in for the export state machine, and a way to wait for what it runs. */
export interface LocalStarter extends ExecutionStarter {
  /** Resolves when every export started so far has ended. */
  idle(): Promise<void>;
}

/**
 * Starts exports in-process: plan (retried while the profile's slot is held, see
 * {@link BusyRetry}), every shard (`shardConcurrency` at a time), finish; on any error the fail task with `{ Error, Cause }` shaped as Step Functions hands it. A job id is run
 * at most once, as an execution name is. LOCAL USE ONLY (see the module comment).
 */
export function createLocalStarter(
  tasks: Workers,
  options: LocalRunEvents & { shardConcurrency?: number; busyRetry?: Partial<BusyRetry> } = {},
): LocalStarter {
  const busy = { ...DEFAULT_BUSY_RETRY, ...options.busyRetry };
  const plan = async (input: ExportInput) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await tasks.plan(input);
      } catch (error) {
        if (!(error instanceof ProfileBusyError) || attempt >= busy.maxAttempts) throw error;
        options.onBusy?.(input.jobId);
        const ceiling = Math.min(busy.maxDelayMs, busy.intervalMs * busy.backoffRate ** (attempt - 1));
        await new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
      }
    }
  };
  const started = new Set<string>();
  const running = new Set<Promise<void>>();
  const run = async (input: ExportInput): Promise<void> => {
    try {
      const planned = await plan(input);
      const limit = pLimit(options.shardConcurrency ?? 2);
      await Promise.all(
        planned.shards.map((shard) => limit(() => tasks.fetchShard({ jobId: input.jobId, shard }))),
      );
      await tasks.finish(input);
      options.onDone?.(input.jobId, 'succeeded');
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      const cause = JSON.stringify({ errorType: failure.name, errorMessage: failure.message });
      await tasks.fail({ jobId: input.jobId, error: { Error: failure.name, Cause: cause } }).catch(() => {});
      options.onDone?.(input.jobId, 'failed');
    }
  };
  return {
    async start(input) {
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
