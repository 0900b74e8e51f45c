/**
 * Xero's manual journal import (Accounting → Manual journals → Import): the columns of Xero's
 * template; rows with the same narration and date are one journal; one signed amount per line
 * (positive a debit, negative a credit); at most 300 lines in one file, so a longer journal set
 * is split into `journal-xero-1.csv`, `journal-xero-2.csv`, … with never an entry across two
 * files. Xero's help: see README "Xero".
 */
import { z } from 'zod';
import { ValidationError } from '../../errors.ts';
import type {
  Account,
  AccountKind,
  JournalEntry,
  LedgerFile,
  LedgerFormat,
  LedgerFormatContext,
  Posting,
} from '../types.ts';
import {
  chunkByLines,
  csvRecord,
  localDate,
  moneyText,
  pad2,
  parseFormatSettings,
  type SidedPosting,
  safeText,
  sidedPostings,
} from './accounting-common.ts';
import { chartAccount, onDefaultChart, refuseAccount, XERO_DEFAULT_CHART } from './default-charts.ts';

/** Xero's account codes: at most 10 characters, letters, digits or symbols, not a symbol first. */
export const XERO_CODE_MAX = 10;

/** The columns of Xero's chart of accounts import, in order (`*` marks the mandatory ones). */
export const XERO_CHART_COLUMNS = ['*Code', '*Name', '*Type', '*Tax Code', 'Description'] as const;

/** Xero imports up to 300 lines from one manual journal template file. */
export const XERO_MAX_LINES_PER_FILE = 300;

/** The columns of Xero's manual journal template, in order (`*` marks the mandatory ones). */
export const XERO_COLUMNS = [
  '*Narration',
  '*Date',
  'Description',
  '*AccountCode',
  '*TaxRate',
  '*Amount',
  'TrackingName1',
  'TrackingOption1',
  'TrackingName2',
  'TrackingOption2',
] as const;

/** Settings of the Xero format (`LedgerFormatContext.settings`). */
export const xeroSettingsSchema = z.strictObject({
  /**
   * The tax rate's full name as in the organisation's tax settings; crypto movements carry no
   * sales tax, so the rate that says so in the organisation's region (`No VAT`, `No GST`,
   * `BAS Excluded`, `Tax Exempt`).
   */
  taxRate: z.string().trim().min(1, 'must name a tax rate of the organisation').max(50).default('Tax Exempt'),
  /** Lines (rows after the header) per file, at most Xero's 300. */
  maxLinesPerFile: z.number().int().min(1).max(XERO_MAX_LINES_PER_FILE).default(XERO_MAX_LINES_PER_FILE),
  /** A tracking category (name and option) put on every line, e.g. `Source` / `Crypto`. */
  tracking: z
    .strictObject({ name: z.string().trim().min(1).max(100), option: z.string().trim().min(1).max(100) })
    .optional(),
});

/** The parsed Xero settings. */
export type XeroSettings = z.output<typeof xeroSettingsSchema>;

/** The Xero manual journal import CSV (`--journal-format xero`). */
export const xeroFormat: LedgerFormat = {
  id: 'xero',
  description: `Xero manual journal import CSV (signed amounts; split into files of at most ${XERO_MAX_LINES_PER_FILE} lines)`,
  files: xeroFiles,
  settingsSchema: xeroSettingsSchema,
};

interface Prepared {
  entry: JournalEntry;
  at: number;
  lines: SidedPosting[];
}

/**
 * Writes the entries as Xero import files of at most `maxLinesPerFile` lines each, whole entries
 * per file; an entry longer than the limit is refused. No entries, no files.
 */
export function xeroFiles(entries: readonly JournalEntry[], context: LedgerFormatContext): LedgerFile[] {
  const settings = parseFormatSettings(xeroSettingsSchema, context.settings, 'journal.settings.xero');
  const used = new Set<AccountKind>();
  const booked = onDefaultChart(entries, (account) => {
    used.add(account.kind);
    return chartAccount(XERO_DEFAULT_CHART, account.kind);
  });
  for (const entry of booked) for (const p of entry.postings) checkXeroCode(p.account);
  const prepared = booked
    .map((entry, at): Prepared => ({ entry, at, lines: sidedPostings(entry, at) }))
    .filter((item) => item.lines.length > 0);
  const chunks = chunkByLines(
    prepared,
    settings.maxLinesPerFile,
    (item) => item.lines.length,
    (item, lines) => {
      throw new ValidationError(
        `entries[${item.at}].postings`,
        `entry ${JSON.stringify(item.entry.id)} has ${lines} lines; one Xero import file takes at most ${settings.maxLinesPerFile}`,
      );
    },
  );
  const journals = chunks.map((chunk, n) => ({
    name: `journal-xero-${n + 1}.csv`,
    contentType: 'text/csv; charset=utf-8',
    body: csvRecord(XERO_COLUMNS) + chunk.map((item) => entryRows(item, settings, context.currency)).join(''),
  }));
  return used.size === 0 || journals.length === 0 ? journals : [chartFile(used, settings), ...journals];
}

/**
 * The default chart's accounts the journals book on, as Xero's chart of accounts import takes
 * them: imported first, the journals then find every code.
 */
function chartFile(used: ReadonlySet<AccountKind>, settings: XeroSettings): LedgerFile {
  const accounts = new Map<string, (typeof XERO_DEFAULT_CHART)[AccountKind]>();
  for (const kind of used) accounts.set(XERO_DEFAULT_CHART[kind].code, XERO_DEFAULT_CHART[kind]);
  const rows = [...accounts.values()].map((a) =>
    csvRecord([a.code, a.name, a.type, settings.taxRate, 'Digital assets journal (pbs-export)']),
  );
  return {
    name: 'journal-xero-accounts.csv',
    contentType: 'text/csv; charset=utf-8',
    body: csvRecord(XERO_CHART_COLUMNS) + rows.join(''),
  };
}

/** Refuses a code Xero does not take (a path such as `Assets:Crypto:BTC`), naming the chart's setting. */
function checkXeroCode(account: Account): void {
  const code = account.code;
  if (code.length > XERO_CODE_MAX)
    refuseAccount('Xero', account, `Xero account codes are at most ${XERO_CODE_MAX} characters`);
  if (!/^[A-Za-z0-9]\S*$/.test(code) || code.includes(','))
    refuseAccount(
      'Xero',
      account,
      'a Xero account code starts with a letter or digit and has no spaces or commas',
    );
}

function entryRows({ entry, at, lines }: Prepared, settings: XeroSettings, currency: string): string {
  // Xero groups rows by narration and date: the entry's id makes the narration unique, so two
  // entries of one day with the same description stay two journals.
  const narration = safeText(`${entry.description} [${entry.id}]`);
  const { year, month, day } = localDate(entry.date, `entries[${at}].date`);
  const date = `${pad2(day)}/${pad2(month)}/${year}`;
  return lines
    .map(({ posting, index, side, amount }) => {
      const code = posting.account.code.trim();
      if (code === '' || /[\s,]/.test(code)) {
        throw new ValidationError(
          `entries[${at}].postings[${index}].account.code`,
          `Xero needs the account's code from the chart of accounts (such as 200), got ${JSON.stringify(posting.account.code)}`,
        );
      }
      return csvRecord([
        narration,
        date,
        safeText(lineDescription(posting)),
        code,
        settings.taxRate,
        `${side === 'debit' ? '' : '-'}${moneyText(amount, posting.currency || currency)}`,
        settings.tracking?.name ?? '',
        settings.tracking?.option ?? '',
        '',
        '',
      ]);
    })
    .join('');
}

/** The account's name, and the tokens moved and their transaction when the posting has them. */
function lineDescription(posting: Posting): string {
  const parts = [posting.account.name];
  if (posting.quantity && posting.token) parts.push(`${posting.quantity} ${posting.token}`);
  if (posting.txId) parts.push(`tx ${posting.txId}`);
  return parts.join(' · ');
}
