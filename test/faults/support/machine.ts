/**
 * The export state machine's order and retry policy, replayed in-process over the worker tasks:
 * Plan → every shard → Finish, each task retried as the stack's retriers do (none for the
 * permanent errors, else up to `retries` more attempts), and on a final failure the fail task
 * with `{ Error, Cause }` as Step Functions hands it (MarkFailed).
 */
import { PERMANENT_ERRORS } from '../../../infra/state-machines.ts';
import type { Workers } from '../../../lib/workflow/index.ts';

/** What one execution did. */
export interface MachineRun {
  state: 'succeeded' | 'failed';
  /** Task attempts that failed and were retried. */
  retries: number;
  /** The error that ended a failed execution. */
  error?: unknown;
  /** Every task failure, in order, as `task: Error name: message`. */
  failures: string[];
}

/** Options of {@link runExportMachine}. */
export interface MachineOptions {
  /** Retries per task after its first attempt (the stack's default is 2). */
  retries?: number;
}

const permanent = new Set<string>(PERMANENT_ERRORS);

/** Runs one execution of the export state machine for `jobId` over `workers`. */
export async function runExportMachine(
  workers: Workers,
  jobId: string,
  options: MachineOptions = {},
): Promise<MachineRun> {
  const retries = options.retries ?? 2;
  const failures: string[] = [];
  let retried = 0;
  const task = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    for (let attempt = 0; ; attempt += 1) {
      try {
        return await run();
      } catch (error) {
        const errorName = error instanceof Error ? error.name : 'Error';
        failures.push(`${name}: ${errorName}: ${error instanceof Error ? error.message : String(error)}`);
        if (permanent.has(errorName) || attempt >= retries) throw error;
        retried += 1;
      }
    }
  };
  try {
    const plan = await task('plan', () => workers.plan({ jobId }));
    for (const shard of plan.shards) {
      await task(`fetchShard ${shard}`, () => workers.fetchShard({ jobId, shard }));
    }
    await task('finish', () => workers.finish({ jobId }));
    return { state: 'succeeded', retries: retried, failures };
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    const cause = JSON.stringify({ errorType: failure.name, errorMessage: failure.message });
    await workers.fail({ jobId, error: { Error: failure.name, Cause: cause } });
    return { state: 'failed', retries: retried, error, failures };
  }
}
