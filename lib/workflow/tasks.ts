/**
 * Task payloads of the export state machine (input of each task → its output). Payloads stay
 * small: they carry ids and shard indexes, never rows.
 */
import type { ExportInput } from '../jobs/index.ts';

export type { ExportInput };

export interface PlanOutput {
  jobId: string;
  /** Shard indexes of `work/{jobId}/plan.json`, the Map's items. */
  shards: number[];
}
export interface FetchShardInput {
  jobId: string;
  shard: number;
}
export interface FetchShardOutput {
  jobId: string;
  shard: number;
  rows: number;
  totalReported: number | null;
}
export interface FinishOutput {
  jobId: string;
  state: 'succeeded';
  files: number;
}
/** How an export execution can end without success (Step Functions execution statuses). */
export const EXECUTION_END_STATUSES = ['FAILED', 'TIMED_OUT', 'ABORTED'] as const;

/**
 * What the stack's execution-end rule hands the fail function, from the Step Functions "Execution
 * Status Change" event: the execution's name (the job id) and how it ended.
 */
export interface ExecutionEndedInput {
  jobId: string;
  executionStatus: (typeof EXECUTION_END_STATUSES)[number];
}

/**
 * The fail task's input: from the state machine's catch, the error as Step Functions gives it
 * (`{ Error, Cause }`); from the execution-end rule, `executionStatus` instead.
 */
export interface FailInput {
  jobId: string;
  error?: { Error?: string; Cause?: string };
  executionStatus?: ExecutionEndedInput['executionStatus'];
}
export interface FailOutput {
  jobId: string;
  state: 'failed';
}

/** The plan task (`plan-task.ts`). */
export type PlanTask = (input: ExportInput) => Promise<PlanOutput>;
/** The fetch-shard task (`fetch-shard-task.ts`). */
export type FetchShardTask = (input: FetchShardInput) => Promise<FetchShardOutput>;
/** The finish task (`finish-task.ts`). */
export type FinishTask = (input: ExportInput) => Promise<FinishOutput>;
/** The fail task (`fail-task.ts`). */
export type FailTask = (input: FailInput) => Promise<FailOutput>;
