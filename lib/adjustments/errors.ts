/**
 * Errors of the adjustments: a document that does not validate, two adjustments that contradict
 * each other, an adjustment the data does not fit, a stale or missing version, a stored version
 * that cannot be read, a file whose digest is not the one recorded, a bad opening-lots CSV. None
 * is a `ValidationError` of the command line: a run that meets one fails (exit 1) naming the
 * adjustment (or the file) and the reason.
 */
import { PbsExportError } from '../errors.ts';

/** Root of the adjustments' errors. */
export class AdjustmentsError extends PbsExportError {}

/** The document does not match the schema: `field` names the first problem (`adjustments[2].txId`). */
export class InvalidAdjustmentsError extends AdjustmentsError {
  readonly field: string;
  readonly reason: string;

  constructor(field: string, reason: string, options?: { cause?: unknown }) {
    super('invalid_adjustments', `adjustments: ${field}: ${reason}`, options);
    this.field = field;
    this.reason = reason;
  }
}

/** Two adjustments of one document contradict each other (or one contradicts itself). */
export class ContradictoryAdjustmentsError extends AdjustmentsError {
  /** The ids of the adjustments concerned. */
  readonly ids: readonly string[];

  constructor(ids: readonly string[], reason: string, options?: { cause?: unknown }) {
    super('contradictory_adjustments', `adjustments ${ids.join(' and ')} contradict: ${reason}`, options);
    this.ids = ids;
  }
}

/** An adjustment names a transaction or a token the data does not have. */
export class UnknownReferenceError extends AdjustmentsError {
  readonly id: string;
  /** `transaction` or `token`. */
  readonly what: 'transaction' | 'token';
  /** The transaction id or token named. */
  readonly reference: string;

  /** The adjustment's field that names it (`txId`, `outTxId`, `token`, …). */
  readonly field: string;

  constructor(
    id: string,
    what: 'transaction' | 'token',
    reference: string,
    options?: { cause?: unknown; field?: string },
  ) {
    super(
      'unknown_reference',
      `adjustment ${id} names ${what} ${JSON.stringify(reference)}, which the data does not have`,
      options,
    );
    this.id = id;
    this.what = what;
    this.reference = reference;
    this.field = options?.field ?? (what === 'token' ? 'token' : 'txId');
  }
}

/** An adjustment does not fit what the data holds (a basis for a transaction that is no transfer in, …). */
export class AdjustmentMismatchError extends AdjustmentsError {
  readonly id: string;
  /** The adjustment's field at fault (`txId`, `token`, `lots[0].acquiredAt`, …). */
  readonly field: string;
  /** Why, without the adjustment's id. */
  readonly reason: string;

  constructor(id: string, reason: string, options?: { cause?: unknown; field?: string }) {
    super('adjustment_mismatch', `adjustment ${id}: ${reason}`, options);
    this.id = id;
    this.field = options?.field ?? 'txId';
    this.reason = reason;
  }
}

/** A put based on a version that is no longer the latest (optimistic concurrency). */
export class StaleAdjustmentsError extends AdjustmentsError {
  readonly profile: string;
  readonly expected: number;
  readonly latest: number;

  constructor(profile: string, expected: number, latest: number, options?: { cause?: unknown }) {
    super(
      'stale_adjustments',
      `adjustments of ${profile}: the change was based on version ${expected}, but version ${latest} is the latest: read it and apply the change again`,
      options,
    );
    this.profile = profile;
    this.expected = expected;
    this.latest = latest;
  }
}

/** The version asked for does not exist. */
export class AdjustmentsNotFoundError extends AdjustmentsError {
  constructor(profile: string, version: number, options?: { cause?: unknown }) {
    super('adjustments_not_found', `adjustments of ${profile}: there is no version ${version}`, options);
  }
}

/**
 * A stored version that cannot be read: `file` names the file (or the object's key), the message
 * says why and what to do, the cause is the error met (a read error, `InvalidAdjustmentsError`, …).
 */
export class AdjustmentsFileError extends AdjustmentsError {
  readonly file: string;

  constructor(file: string, reason: string, options?: { cause?: unknown }) {
    super('adjustments_file', `adjustments file ${file} ${reason}`, options);
    this.file = file;
  }
}

/** An adjustments file whose bytes are not the ones a run recorded (its SHA-256 differs). */
export class AdjustmentsDigestError extends AdjustmentsError {
  constructor(file: string, expected: string, actual: string, options?: { cause?: unknown }) {
    super(
      'adjustments_digest',
      `adjustments file ${file} has SHA-256 ${actual}, but the run recorded ${expected}: give the version the run used`,
      options,
    );
  }
}

/** A row of an opening-lots CSV that cannot be read: `row` (1 = the first data row) and `column`. */
export class LotsCsvError extends AdjustmentsError {
  readonly row: number;
  readonly column: string;

  constructor(row: number, column: string, reason: string, options?: { cause?: unknown }) {
    super('lots_csv', `lots CSV row ${row}, column ${column}: ${reason}`, options);
    this.row = row;
    this.column = column;
  }
}

/** A withdrawal names an adjustment the latest version does not hold (`withdrawn`: it went before). */
export class UnknownAdjustmentError extends AdjustmentsError {
  readonly id: string;
  /** The earlier withdrawal of that id, when it was withdrawn already. */
  readonly withdrawn: { by: string; at: string } | null;

  constructor(
    profile: string,
    id: string,
    withdrawn: { by: string; at: string } | null,
    options?: { cause?: unknown },
  ) {
    super(
      'unknown_adjustment',
      withdrawn === null
        ? `adjustments of ${profile}: the latest version has no adjustment ${id}`
        : `adjustments of ${profile}: ${id} was withdrawn already, by ${withdrawn.by} at ${withdrawn.at}`,
      options,
    );
    this.id = id;
    this.withdrawn = withdrawn;
  }
}
