/** Typed errors of the local stack (`npm run serve`). */
import { PbsExportError } from '../errors.ts';

/** The export state machine could not be synthesized from `infra/` (in its child process). */
export class MachineSynthesisError extends PbsExportError {
  constructor(reason: string, options?: { cause?: unknown }) {
    super('machine_synthesis_failed', `synthesizing the export state machine: ${reason}`, options);
  }
}

/**
 * A definition uses something the local runner would run differently from AWS (or cannot run):
 * refused when the machine is loaded, never skipped, so that a change to the synthesized
 * definitions fails the local runs and their tests instead of running otherwise.
 */
export class LocalDefinitionError extends PbsExportError {
  /** Where in the definition, e.g. `States.ExportScheduledProfiles.ItemReader`. */
  readonly where: string;

  constructor(where: string, reason: string, options?: { cause?: unknown }) {
    super('local_definition_refused', `state machine definition, ${where}: ${reason}`, options);
    this.where = where;
  }
}

/** A local execution ended in failure (a Fail state, an error no catcher handled, its timeout). */
export class LocalExecutionError extends PbsExportError {
  /** The States Language error name it failed with (`PbsHttpError`, `States.Timeout`, …). */
  readonly error: string;
  /** Its cause text. */
  readonly causeText: string;

  constructor(error: string, causeText: string, options?: { cause?: unknown }) {
    super('local_execution_failed', `execution failed with ${error}: ${causeText}`, options);
    this.error = error;
    this.causeText = causeText;
  }
}

/**
 * What a local Task handler's error becomes, as Lambda reports a function's error to Step
 * Functions: the error's name (what Retry and Catch match) and, for a Lambda resource, a Cause
 * that is the JSON of `{ errorType, errorMessage }`. Not a PbsExportError: its `name` must stay
 * the handler's error's.
 */
export class LocalTaskError extends Error {
  constructor(thrown: unknown, lambda: boolean) {
    const name = thrown instanceof Error ? thrown.name : 'Error';
    const message = thrown instanceof Error ? thrown.message : String(thrown);
    super(lambda ? JSON.stringify({ errorType: name, errorMessage: message }) : message, { cause: thrown });
    this.name = name;
  }
}

/**
 * `serve` was stopped (Ctrl-C, SIGTERM) while this export still waited for its turn: it is not
 * started, and its job fails with this reason.
 */
export class ServeStoppedError extends PbsExportError {
  constructor() {
    super(
      'serve_stopped',
      'serve stopped before this export started (it was queued); ask for it again once serve runs',
    );
  }
}
