/**
 * Failures that are the input's fault, not the code's: a request found invalid, or the
 * adjustments a job applies (a document that does not validate, adjustments that contradict each
 * other, one naming a transaction or token the data does not have, one the data does not fit).
 * Such a failure is logged as one line naming the field and the reason, without a stack trace:
 * the job's reason already tells its reader what to correct.
 */
import {
  AdjustmentMismatchError,
  ContradictoryAdjustmentsError,
  InvalidAdjustmentsError,
  UnknownReferenceError,
} from '../adjustments/index.ts';
import { ValidationError } from '../errors.ts';

/** What the log line of an input's fault says: its message and keys. */
export interface InputFault {
  message: 'invocation failed: invalid request' | 'invocation failed: invalid adjustments';
  /** The field at fault (`gains.currency`, `adjustments[2].txId`, `txId`, …). */
  field: string;
  reason: string;
  /** The adjustment (its id, or the ids that contradict) whose field it is, when one is. */
  adjustment?: string;
}

/** The fault of `error` when it is the input's; `null` when the code or a service is at fault. */
export function inputFaultOf(error: unknown): InputFault | null {
  if (error instanceof ValidationError)
    return { message: 'invocation failed: invalid request', field: error.field, reason: error.reason };
  const message = 'invocation failed: invalid adjustments';
  if (error instanceof InvalidAdjustmentsError) return { message, field: error.field, reason: error.reason };
  if (error instanceof AdjustmentMismatchError)
    return { message, adjustment: error.id, field: error.field, reason: error.reason };
  if (error instanceof UnknownReferenceError)
    return { message, adjustment: error.id, field: error.field, reason: error.message };
  if (error instanceof ContradictoryAdjustmentsError)
    return { message, adjustment: error.ids.join(' and '), field: 'adjustments', reason: error.message };
  return null;
}
