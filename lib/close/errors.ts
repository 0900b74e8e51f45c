import { PbsExportError } from '../errors.ts';
import type { CloseRecord } from './records.ts';

/** A close in words, for error messages: `demo 2025-10 (run 2025…-ab12cd), closed by ann on 2025-11-03`. */
export function closeInWords(close: CloseRecord): string {
  return `${close.profile} ${close.period} (run ${close.runId}), closed by ${close.by} at ${close.at}`;
}

/**
 * A project path tried to write or delete a set that is closed: closed sets are never replaced or
 * deleted. `close` names the record that closed it.
 */
export class SetClosedError extends PbsExportError {
  readonly close: CloseRecord;
  readonly location: string;

  constructor(location: string, close: CloseRecord, options?: { cause?: unknown }) {
    super(
      'set_closed',
      `${location}: refused, the set is closed (${closeInWords(close)}); reopen it first`,
      options,
    );
    this.close = close;
    this.location = location;
  }
}

/** The period is closed already: a second close is refused (reopen first). */
export class PeriodAlreadyClosedError extends PbsExportError {
  readonly close: CloseRecord;

  constructor(close: CloseRecord) {
    super('period_closed', `${close.profile} ${close.period} is closed already (${closeInWords(close)})`);
    this.close = close;
  }
}

/** A reopen of a period that is not closed. */
export class PeriodNotClosedError extends PbsExportError {
  constructor(profile: string, period: string) {
    super('period_not_closed', `${profile} ${period} is not closed`);
  }
}

/** The run to close has no finished set (no manifest) where the close looked. */
export class RunNotFoundError extends PbsExportError {
  readonly location: string;

  constructor(location: string, options?: { cause?: unknown }) {
    super('run_not_found', `${location}: no finished set (no manifest.json) to close`, options);
    this.location = location;
  }
}

/** A close record, a closed set's manifest or snapshot that cannot be read as written. */
export class CloseDataError extends PbsExportError {
  constructor(location: string, problem: string, options?: { cause?: unknown }) {
    super('invalid_close_data', `${location}: ${problem}`, options);
  }
}

/**
 * The place of a restatement in its close's chain (its record's key) was taken by another check
 * between reading the chain and recording the restatement: the restatement set is discarded.
 */
export class RestatementPlaceTakenError extends PbsExportError {
  readonly location: string;

  constructor(location: string, options?: { cause?: unknown }) {
    super(
      'restatement_conflict',
      `${location}: another check recorded a restatement of this period at the same time`,
      options,
    );
    this.location = location;
  }
}

/**
 * The key of a new close record was taken by another writer between reading the period's history
 * and creating the record (two closes or reopens at once): the records are read again and the
 * action decided again; after a few such rounds the action is refused with this error.
 */
export class CloseRecordTakenError extends PbsExportError {
  readonly location: string;

  constructor(location: string, options?: { cause?: unknown }) {
    super(
      'close_conflict',
      `${location}: another close or reopen of this period was recorded at the same time; look at the period's records and try again`,
      options,
    );
    this.location = location;
  }
}
