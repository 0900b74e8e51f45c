/**
 * The journal's errors: a chart that cannot post an entry, a name in the data the journal cannot
 * name injectively, an entry that does not balance, a journal that does not tie out to the gains
 * reports, and a format that cannot write an entry.
 */
import { PbsExportError, ValidationError } from '../errors.ts';

/** Root of the journal's errors. */
export class LedgerError extends PbsExportError {}

/** The chart of accounts is refused: `field` names the setting (e.g. `journal.chart.fee`). */
export class ChartError extends ValidationError {}

/** What a name is, as a {@link JournalNameError} names it (an account name: a chart's, with its code). */
export type NameField = 'token symbol' | 'wallet id' | 'account name';

/**
 * A name in the data (a token symbol, a wallet id) the journal cannot give an account or commodity
 * of its own: `field` is what it is, `value` the name, and the message shows it escaped.
 */
export class JournalNameError extends ValidationError {
  readonly value: string;

  constructor(field: NameField, value: string, reason: string, options?: { cause?: unknown }) {
    super(field, `${shownName(value)} ${reason}`, options);
    this.value = value;
  }
}

/**
 * A name as a record or an error shows it: JSON-escaped (quotes, backslashes, control characters,
 * line separators and lone surrogates as escapes), on one line, the first 100 characters.
 */
export function shownName(value: string): string {
  const points = Array.from(value);
  const cut = points.length > 100 ? `${points.slice(0, 100).join('')}…` : value;
  const shown = JSON.stringify(cut).replace(
    /[\u0080-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
  return points.length > 100 ? `${shown} (${points.length} characters)` : shown;
}

/** An entry does not balance to the minor unit (a bug: the builder posts every difference). */
export class UnbalancedEntryError extends LedgerError {
  readonly entryId: string;

  constructor(entryId: string, difference: string) {
    super(
      'journal_unbalanced',
      `journal entry ${entryId} does not balance: debits − credits = ${difference}`,
    );
    this.entryId = entryId;
  }
}

/** One difference the tie-out found. */
export interface TieOutDifference {
  /** What was compared, e.g. `asset balance 2025-03-31`. */
  check: string;
  /** The journal's account (code), or the total compared. */
  account: string;
  token?: string;
  journal: string;
  report: string;
  difference: string;
}

/** The journal does not tie out to the reports: the run fails naming the account and the difference. */
export class TieOutError extends LedgerError {
  readonly differences: readonly TieOutDifference[];

  constructor(differences: readonly [TieOutDifference, ...TieOutDifference[]]) {
    const [first] = differences;
    const more = differences.length > 1 ? ` (and ${differences.length - 1} more)` : '';
    super(
      'journal_tie_out',
      `the journal does not tie out: ${first.check}, account ${first.account}${first.token === undefined ? '' : ` (${first.token})`}: journal ${first.journal}, reports ${first.report}, difference ${first.difference}${more}`,
    );
    this.differences = differences;
  }
}

/** A format cannot write an entry (an account or commodity name its tool refuses). */
export class LedgerFormatError extends LedgerError {
  constructor(format: string, reason: string, options?: { cause?: unknown }) {
    super('journal_format', `${format}: ${reason}`, options);
  }
}
