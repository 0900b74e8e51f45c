/**
 * The fail task (`functions/export-fail.ts`): the state machine's catch, and the execution-end
 * rule's target, marking a job failed with a short reason. It runs no stage of the pipeline.
 */
import { ValidationError } from '../errors.ts';
import type { Notifier } from './notify.ts';
import { failureReason } from './redact.ts';
import type { TaskDeps } from './task-deps.ts';
import { EXECUTION_END_STATUSES, type FailTask } from './tasks.ts';

/** What the fail task uses. */
export interface FailTaskDeps extends Pick<TaskDeps, 'jobs' | 'now' | 'metrics' | 'onJob'> {
  /** Tells the profile's subscribers that its export ended (`notify.ts`); never throws. */
  notify?: Notifier;
}

/** The fail task: a job still queued or running → failed, its subscribers told. */
export function createFailTask(deps: FailTaskDeps): FailTask {
  const { jobs } = deps;
  return async ({ jobId, error, executionStatus }) => {
    // From the execution-end rule, the state machine's own catch may have marked the job already
    // (with the precise reason, kept) or the job may have ended otherwise: only a job still
    // queued or running is marked, so a repeated or late event changes nothing.
    const ended = executionStatus !== undefined;
    const reason = ended ? executionEndReason(executionStatus) : failureReason(error);
    if (!ended) deps.metrics?.addMetric('ExportFailures', 'Count', 1);
    const job = await jobs.get(jobId);
    if (job === null) return { jobId, state: 'failed' };
    deps.onJob?.(job);
    let marked = false;
    const updated = await jobs.update(jobId, (current) => {
      if (current.state === 'succeeded' || (ended && current.state === 'failed')) return current;
      marked = true;
      return { ...current, state: 'failed', reason, updatedAt: deps.now().toISOString() };
    });
    if (ended && marked) deps.metrics?.addMetric('ExportFailures', 'Count', 1);
    if (marked) await deps.notify?.(updated);
    return { jobId, state: 'failed' };
  };
}

/**
 * The reason recorded for an execution that ended without its catch running: in words, since
 * Step Functions' event carries no error for a timeout or an abort.
 */
export function executionEndReason(status: string): string {
  if (!(EXECUTION_END_STATUSES as readonly string[]).includes(status)) {
    throw new ValidationError('executionStatus', `expected one of ${EXECUTION_END_STATUSES.join(', ')}`);
  }
  if (status === 'TIMED_OUT') {
    return 'ExecutionTimedOut: the export ran longer than the state machine allows and was stopped; a smaller period or fewer filters per request may finish in time';
  }
  if (status === 'ABORTED') {
    return 'ExecutionAborted: the export was stopped (its execution aborted) before it ended';
  }
  return 'ExecutionFailed: the export execution failed before it could record why (see the execution of this job in Step Functions)';
}
