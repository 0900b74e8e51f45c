/** Typed errors of the local States Language interpreter (`lib/local/asl`). */

/**
 * A definition uses a state, field or value this interpreter does not implement (or an invalid
 * one): refused when the machine is loaded, never skipped, so that a change to the synthesized
 * definitions fails the local runs and their tests instead of running differently from AWS.
 */
export class AslDefinitionError extends Error {
  /** Where in the definition, e.g. `States.Export.Branches[0].States.Plan.Retry[1]`. */
  readonly where: string;

  constructor(where: string, reason: string, options?: { cause?: unknown }) {
    super(`${where}: ${reason}`, options);
    this.name = 'AslDefinitionError';
    this.where = where;
  }
}

/**
 * An error as a state reports it in the States Language: an error name (`PbsHttpError`,
 * `States.Runtime`, …) and a cause text. Retriers and catchers match on `error`.
 */
export class StatesError extends Error {
  readonly error: string;
  readonly causeText: string;

  constructor(error: string, causeText: string, options?: { cause?: unknown }) {
    super(causeText === '' ? error : `${error}: ${causeText}`, options);
    this.name = 'StatesError';
    this.error = error;
    this.causeText = causeText;
  }
}

/** An execution ended in failure (a Fail state, or an error no catcher handled). */
export class ExecutionFailedError extends Error {
  /** The error name the execution failed with. */
  readonly error: string;
  /** Its cause text. */
  readonly causeText: string;

  constructor(failure: StatesError) {
    super(`execution failed with ${failure.message}`, { cause: failure });
    this.name = 'ExecutionFailedError';
    this.error = failure.error;
    this.causeText = failure.causeText;
  }
}
