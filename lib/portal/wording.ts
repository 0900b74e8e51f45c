/**
 * What the portal tells an accountant in words: why an export failed (the job's `reason` is the
 * error's class and message, for engineers) and what each file of a set holds.
 */

/** A failure as the portal shows it: what happened and what to do, and the recorded detail. */
export interface FailureInWords {
  summary: string;
  detail: string;
}

/** `Name: message` → name and message (a reason without a name is all message). */
function splitReason(reason: string): { name: string; message: string } {
  const match = /^([A-Za-z][\w.]*): ?(.*)$/s.exec(reason);
  return match ? { name: match[1] ?? '', message: match[2] ?? '' } : { name: '', message: reason };
}

/** Sentences by the error's name, first match wins. */
const FAILURES: readonly [RegExp, (message: string) => string][] = [
  [
    /^(Request)?ValidationError$/,
    (message) =>
      `The export request could not be carried out: ${message.replace(/^([\w.[\]]+): /, '$1 — ')}. Change it and request the export again.`,
  ],
  [/^UnknownProfileError$/, () => 'This client is not registered (any more). Ask your administrator.'],
  [
    /^SecretError$/,
    () => "The client's access to the Portfolio Balance Service is not set up. Ask your administrator.",
  ],
  [
    /^PbsHttpError$/,
    (message) =>
      /HTTP (401|403)/.test(message)
        ? "The Portfolio Balance Service refused the client's credentials. Ask your administrator to check them."
        : 'The Portfolio Balance Service answered with an error. Request the export again later; if it keeps failing, tell your administrator.',
  ],
  [
    /^Pbs(Network|Timeout|Response|Listing|Redirect|ResponseTooLarge)Error$/,
    () =>
      'The Portfolio Balance Service could not be reached or answered unexpectedly. Request the export again later.',
  ],
  [
    /^(ExecutionTimedOut|States\.Timeout)$/,
    () => 'The export took too long and was stopped. A shorter period may finish in time.',
  ],
  [
    /^ExecutionAborted$/,
    () => 'The export was stopped before it ended. Request it again if you still need it.',
  ],
];

/** Why an export failed, in words, from the job's recorded `reason`. */
export function failureInWords(reason: string | undefined): FailureInWords {
  if (reason === undefined || reason.trim() === '') {
    return { summary: 'The export failed; no reason was recorded. Request it again.', detail: '' };
  }
  const { name, message } = splitReason(reason);
  const sentence = FAILURES.find(([pattern]) => pattern.test(name))?.[1](message);
  return {
    summary:
      sentence ??
      'The export failed unexpectedly. Request it again; if it keeps failing, tell your administrator.',
    detail: reason,
  };
}

/** What a file of a set holds, by the end of its name, first match wins. */
const FILE_DESCRIPTIONS: readonly [RegExp, string][] = [
  [/\.xlsx$/, 'The workbook: every report as a sheet, the Read me first. Start here.'],
  [/_tax_pack\.pdf$/, "The tax pack to print: the return's figures, income, holdings and warnings."],
  [/README\.txt$/, 'Read me: what the set covers and how to read its files.'],
  [/manifest\.json$/, 'Sizes and checksums of the files, to check that a copy is complete.'],
  [
    /_snapshot\.ndjson\.gz$/,
    'The data exactly as the service sent it: the audit record the reports are made from.',
  ],
  // Before the exact twins' pattern: this file has no rounded twin.
  [
    /_fx_conversions_exact\.csv$/,
    'Each value converted into the gains currency, with the rate used and its day (exact amounts).',
  ],
  [/_exact\.csv$/, 'The same figures with every digit kept (exact amounts).'],
  [/_journal\.csv$/, 'Journal entries for the general ledger, one posting a row.'],
  [/_journal\.beancount$/, 'Journal entries as a Beancount file (check it with bean-check).'],
  [/_journal\.hledger$/, 'Journal entries as an hledger journal (check it with hledger check).'],
  [/journal-quickbooks\.csv$/, 'Journal entries as a QuickBooks Online journal entry import.'],
  [/journal-xero(-\d+)?\.csv$/, 'Journal entries as a Xero manual journal import.'],
  [/journal-(xero|quickbooks)-accounts\.csv$/, 'The accounts to import into the chart of accounts first.'],
  [/EXTF_Buchungsstapel[^/]*\.csv$/, 'Journal entries as a DATEV Buchungsstapel (EXTF).'],
  [/_transactions\.csv$/, 'Every transaction of the period, one a row.'],
  // Before the movements' pattern, which this name also matches.
  [
    /_reconciliation_movements\.csv$/,
    'The movements after the period end that carry the reported balances back to it.',
  ],
  [
    /_reconciliation\.csv$/,
    "Each ledger's balances at the period end against the service's: the difference.",
  ],
  [/_adjustments\.csv$/, "The preparer's adjustments applied, and what they changed."],
  [/_movements\.csv$/, 'Every balance movement, in and out by asset, one a row.'],
  [/_summary_by_month\.csv$/, 'Transactions by month, protocol and category: count, value and fees.'],
  // Before the by-asset summary, whose pattern their names also match.
  [/_gains_summary\.csv$/, 'Gains and losses totalled.'],
  [/_tax_summary\.csv$/, 'The figures for the tax return.'],
  [/_summary(_by_token)?\.csv$/, 'Movements by asset: quantity and value in, out and net.'],
  [/_changes\.csv$/, 'What changed since the date asked for (deleted transactions marked).'],
  [/_disposals\.csv$/, 'Each sale or disposal with its cost and gain or loss.'],
  [/_gains\.csv$/, 'Realised gains and losses, lot by lot.'],
  [/_income\.csv$/, 'Income: staking, interest and other rewards.'],
  [/_holdings\.csv$/, 'Holdings at the start and end, and what changed them.'],
  [/_gains_warnings\.csv$/, 'What the gains calculation could not settle, and what it assumed.'],
  [/_pool_history\.csv$/, 'Share pool history (UK rules).'],
  [/8949[^/]*\.csv$/, 'Form 8949 lines (US).'],
  [/schedule-d[^/]*\.csv$/, 'Schedule D lines: one per Form 8949 box, then lines 7, 15 and 16 (US).'],
  [/schedule-1[^/]*\.csv$/, 'Schedule 1 line 8v: digital assets received as income (US).'],
  [/basis-allocation-2025[^/]*\.csv$/, 'How the basis was allocated to the wallets on 1 January 2025 (US).'],
  [/\.csv$/, 'A report as CSV, one row a line.'],
];

/** A one-line description of a file of a report set, by its name. */
export function describeFile(name: string): string {
  return FILE_DESCRIPTIONS.find(([pattern]) => pattern.test(name))?.[1] ?? 'A file of the set.';
}

/**
 * Files in the order a person needs them: the workbook, the tax pack, the Read me, the reports,
 * the checksums last.
 */
export function fileOrder(name: string): number {
  if (name.endsWith('.xlsx')) return 0;
  if (name.endsWith('.pdf')) return 1;
  if (name.endsWith('README.txt')) return 2;
  if (name.endsWith('manifest.json')) return 4;
  return 3;
}

/** `12.3 kB`: sizes as people read them (the exact byte count is in the title). */
export function formatBytes(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let value = bytes / 1000;
  let unit = 0;
  while (value >= 1000 && unit < units.length - 1) {
    value /= 1000;
    unit += 1;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
