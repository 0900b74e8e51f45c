/**
 * Errors of the gains engine. Invalid options and data raise the project's `ValidationError`
 * (naming the field); the errors here are about how the engine is fed.
 */
import { PbsExportError } from '../errors.ts';

/**
 * A transaction arrived at or before an instant the caller had already declared complete
 * ({@link EventStream.advance}): the events before it may already have been processed, so the
 * result would depend on how the history was split into windows.
 */
export class GainsOrderError extends PbsExportError {
  readonly transactionId: string;

  constructor(transactionId: string, date: string, complete: number) {
    super(
      'gains_order',
      `transaction ${JSON.stringify(transactionId)} at ${date} arrived after every transaction up to ${new Date(complete).toISOString()} was declared complete`,
    );
    this.transactionId = transactionId;
  }
}
