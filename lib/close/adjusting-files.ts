/**
 * A restatement's adjusting entries as files: the generic journal CSV (a table, in the closed
 * set's CSV dialect, also a sheet of the workbook) and every other journal format the closed set
 * asked for (hledger, Beancount, QuickBooks, Xero, DATEV) from the formats' registry.
 */
import { DateTime } from 'luxon';
import type { TableSource } from '../domain/index.ts';
import { isZeroDecimal, subtractDecimal } from '../domain/index.ts';
import { JOURNAL_SPEC, journalRows, type LedgerFile, ledgerFormat } from '../ledger/index.ts';
import { type Restatement, type RestatementJournal, usedBy } from './restatement.ts';
import { periodWords, signedAmount, signedMoney } from './words.ts';

/** What a restatement's manifest records of its adjusting entries. */
export interface AdjustingManifest {
  date: string;
  entries: number;
  postings: number;
  formats: string[];
  /**
   * The accounts and tokens declared once these entries' files are read with the closed journal
   * and the earlier restatements' (a superseding restatement's files declare only the others).
   */
  declared?: { accounts: string[]; tokens: string[] };
}

/** The adjusting entries as a table (`adjusting_journal`): the journal CSV's columns. */
export function adjustingTable(journal: RestatementJournal): TableSource {
  return {
    spec: {
      ...JOURNAL_SPEC,
      name: 'adjusting_journal',
      title: 'Adjusting entries',
      description:
        "one posting of the adjusting entries: the closed journal's balances plus these are the corrected journal's",
    },
    async *rows() {
      for (const entry of journal.entries) yield* journalRows(entry);
    },
  };
}

/** The adjusting entries in the closed set's formats other than the generic CSV (the table). */
export function adjustingFiles(restatement: Restatement, journal: RestatementJournal): LedgerFile[] {
  if (journal.entries.length === 0) return [];
  const accounts = new Map(
    journal.entries.flatMap((entry) => entry.postings.map((p) => [p.account.code, p.account] as const)),
  );
  return journal.formats
    .filter((id) => id !== 'csv')
    .flatMap((id) => {
      const format = ledgerFormat(id);
      if (format === undefined) return [];
      return format.files(journal.entries, {
        currency: journal.currency,
        period: { start: journal.date, end: journal.date },
        settings: (journal.settings[id] ?? {}) as Record<string, unknown>,
        // The check's instant, not the clock: an offline rebuild writes the same bytes.
        createdAt: new Date(restatement.info.checkedAt),
        balances: [],
        accounts: [...accounts.values()],
        // Read with the closed journal and the earlier restatements' (Beancount includes them): what
        // those declare is not declared again.
        declared: journal.declared,
      });
    });
}

/** `2025-11-01` → `1 November 2025`. */
function dateWords(date: string): string {
  return DateTime.fromISO(date, { zone: 'UTC', locale: 'en' }).toFormat('d LLLL yyyy');
}

/**
 * The Read me's line on the adjusting entries: "Adjusting entries dated 1 November 2025 bring the
 * ledger to the corrected October 2025: 1100 Assets:Crypto:ETH +1 234.56 USD (+0.5 ETH), …"
 * (superseding: "bring the ledger, as the restatement checked at … left it, to …").
 */
export function adjustingWords(restatement: Restatement, journal: RestatementJournal): string {
  const period = periodWords(restatement.period);
  const superseded = restatement.info.supersedes;
  if (journal.entries.length === 0) {
    return superseded === undefined
      ? `none: the corrected ${period} leaves every balance of the journal as closed`
      : `none: the corrected ${period} leaves every balance as the restatement checked at ${superseded.checkedAt} left it`;
  }
  const lines = journal.entries.flatMap((entry) =>
    entry.postings.map((p) => {
      const net = subtractDecimal(p.debit, p.credit);
      const tokens = p.quantity === undefined ? '' : `${signedAmount(p.quantity)} ${p.token ?? ''}`;
      // The tokens of a split posting (moved at no value) alone.
      if (tokens !== '' && isZeroDecimal(net)) return `${p.account.code} ${tokens}`;
      return `${p.account.code} ${signedMoney(net, p.currency)}${tokens === '' ? '' : ` (${tokens})`}`;
    }),
  );
  const from =
    superseded === undefined ? '' : `, as the restatement checked at ${superseded.checkedAt} left it,`;
  return `Adjusting entries dated ${dateWords(journal.date)} bring the ledger${from} to the corrected ${period}: ${lines.join(', ')} (debit +, credit −)`;
}

/** The manifest's `adjusting` block. */
export function adjustingManifest(journal: RestatementJournal): AdjustingManifest {
  const used = usedBy(journal.entries);
  return {
    date: journal.date,
    entries: journal.entries.length,
    postings: journal.entries.reduce((n, entry) => n + entry.postings.length, 0),
    formats: [...journal.formats],
    declared: {
      accounts: [...new Set([...journal.declared.accounts, ...used.accounts])],
      tokens: [...new Set([...journal.declared.tokens, ...used.tokens])],
    },
  };
}
