/**
 * Months that chain (issue 42, item 3; docs/accountant/reconciliation.md): the opening balances of
 * a period, per ledger and token, against the closing balances of the previous closed period of
 * the same profile, as that closed set's manifest records them. Equal: the set says it continues
 * that set; different: one warning per ledger and token naming both sets, the two figures and what
 * to do. No closed period before it, or one whose balances cannot be compared: said, never silence.
 */
import {
  type BalanceBreak,
  type BalancesAt,
  balanceBreaks,
  pairCount,
  type RecordedBalance,
} from '../../proof/index.ts';
import { instantWords } from '../plan/index.ts';

/** The closed set of the period before, as its close record and its manifest give it. */
export interface ClosedPrevious {
  /** The set's folder relative to the sink's root: `reports/{profile}/{period}/{runId}`. */
  prefix: string;
  runId: string;
  /** SHA-256 of its `manifest.json` as the close recorded it. */
  manifestSha256: string;
  period: { label: string; start: string; end: string };
  /** When and by whom it was closed (the close record). */
  closedAt: string;
  closedBy: string;
  /** Its manifest's closing balances; null when it records none. */
  closing: BalancesAt | null;
  /** Its manifest.json is not the one the close recorded (then it is not compared). */
  manifestChanged?: true;
}

/**
 * `continues`: every opening balance equals the closed set's closing one; `break`: some do not;
 * `no-closed-previous`: no closed period of the profile ends where this one begins;
 * `not-checked`: there is one, but its balances cannot be compared (`note` says why).
 */
export type OpeningStatus = 'continues' | 'break' | 'no-closed-previous' | 'not-checked';

/** The manifest's `reconciliation.opening`. */
export interface OpeningRecord {
  status: OpeningStatus;
  /** The result in one line of words (the Read me's first lines), its instants days in the period's zone. */
  note: string;
  /** ISO instant of the opening balances (the period's start; the machine's field). */
  periodStart: string;
  /** The closed set compared with; null when there is none. */
  previousSet: Omit<ClosedPrevious, 'closing' | 'manifestChanged'> | null;
  /** Each ledger and token whose opening differs from the closed set's closing (status `break`). */
  breaks: BalanceBreak[];
}

/** This set, as a break's warning names it. */
export interface ThisSet {
  profile: string;
  periodLabel: string;
  runId: string;
  /** The period's time zone: the notes and warnings say their instants as days in it. */
  timeZone: string;
}

/** What to do about a break, said with every one. */
export const OPENING_ACTION =
  "the service's history before this period changed after the previous period was closed (a transaction added, changed, " +
  "deleted or left out of its listings): check the service's history of this ledger and token; if the change is right, " +
  'book the restatement `check-closes` publishes for the closed period, or reopen it and export it again; if it is not, ' +
  'have the service corrected and export this period again';

/** The opening check of balances at `periodStart` against `previous` (null: no closed period before). */
export function openingRecord(
  opening: readonly RecordedBalance[],
  periodStart: string,
  previous: ClosedPrevious | null,
  self: Pick<ThisSet, 'profile' | 'periodLabel' | 'timeZone'>,
): OpeningRecord {
  const base = { periodStart, breaks: [] };
  const start = instantWords(periodStart, self.timeZone, 'start');
  if (previous === null) {
    return {
      ...base,
      status: 'no-closed-previous',
      note: `opening balances not checked: no closed period of ${self.profile} ends at ${start}, where ${self.periodLabel} begins`,
      previousSet: null,
    };
  }
  const { closing, manifestChanged, ...previousSet } = previous;
  const named = `the closed ${previous.period.label} (run ${previous.runId})`;
  const notChecked = (why: string): OpeningRecord => ({
    ...base,
    status: 'not-checked',
    note: `opening balances not checked against ${named}: ${why}`,
    previousSet,
  });
  if (manifestChanged) return notChecked('its manifest.json is not the one its close recorded');
  if (closing === null) return notChecked('its manifest records no closing balances');
  if (Date.parse(closing.at) !== Date.parse(periodStart)) {
    return notChecked(
      `its closing balances hold at ${instantWords(closing.at, self.timeZone, 'end')}, not at ${start} (it was exported before its period was over)`,
    );
  }
  const breaks = balanceBreaks(opening, closing.balances);
  const pairs = pairCount(opening, closing.balances);
  return {
    ...base,
    status: breaks.length === 0 ? 'continues' : 'break',
    note:
      breaks.length === 0
        ? `opening balances continue ${named}: ${pairs} ledger balance${pairs === 1 ? '' : 's'} at ${start} equal its closing balances`
        : `opening balances break: ${breaks.length} of ${pairs} ledger balances at ${start} differ from the closing balances of ${named}`,
    previousSet,
    breaks,
  };
}

/** One warning per break: both sets, the ledger and token, both figures, and what to do. */
export function openingWarnings(record: OpeningRecord, self: ThisSet): string[] {
  const previous = record.previousSet;
  if (previous === null) return [];
  const start = instantWords(record.periodStart, self.timeZone, 'start');
  return record.breaks.map(
    (b) =>
      `opening balance break: ledger ${b.ledgerId}, token ${b.symbol}: this set (${self.profile} ${self.periodLabel}, ` +
      `run ${self.runId}) opens at ${start} with ${b.opening}; the closed set it continues ` +
      `(${self.profile} ${previous.period.label}, run ${previous.runId}, manifest SHA-256 ${previous.manifestSha256}, ` +
      `${previous.prefix}) closed with ${b.previousClosing}: difference ${b.difference}. What to do: ${OPENING_ACTION}.`,
  );
}

/**
 * The opening check of a run: the closed period before looked up (`lookup`), compared, and the
 * warnings to give. A lookup that fails (close records the credentials may not read) is said in
 * the record and warned about; the export stands.
 */
export async function checkOpening(
  opening: readonly RecordedBalance[],
  periodStart: string,
  self: ThisSet,
  lookup: () => Promise<ClosedPrevious | null>,
): Promise<{ record: OpeningRecord; warnings: string[] }> {
  let previous: ClosedPrevious | null;
  try {
    previous = await lookup();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const note = `opening balances not checked: the closed periods of ${self.profile} could not be read: ${reason}`;
    return {
      record: { status: 'not-checked', note, periodStart, previousSet: null, breaks: [] },
      warnings: [note],
    };
  }
  const record = openingRecord(opening, periodStart, previous, self);
  return { record, warnings: openingWarnings(record, self) };
}
