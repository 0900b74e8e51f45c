/** Typed errors of the kept rates files (fetched on a schedule, read by the export jobs). */
import { PbsExportError } from '../errors.ts';

/**
 * One or more published rates files could not be fetched or were refused (not in a published
 * layout): the fetch kept every other file, then fails so the schedule's failure shows.
 */
export class RatesFetchError extends PbsExportError {
  /** What went wrong, per file: `name: reason`. */
  readonly failures: readonly string[];

  constructor(failures: readonly string[], options?: { cause?: unknown }) {
    super('rates_fetch', `rates files not kept: ${failures.join('; ')}`, options);
    this.failures = failures;
  }
}
