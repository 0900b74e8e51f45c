/**
 * QuickBooks Online's journal entry import (Settings → Import data → Journal entries): a CSV with
 * one row per journal line, the lines of one journal entry sharing its journal number; accounts by
 * name (account numbers turned off, sub-accounts as `Parent:Sub`); a line's amount in Debits or
 * in Credits, the other left blank. Intuit's help: see README "QuickBooks Online".
 */
import { z } from 'zod';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, LedgerFile, LedgerFormat, LedgerFormatContext } from '../types.ts';
import {
  csvRecord,
  localDate,
  moneyText,
  pad2,
  parseFormatSettings,
  safeText,
  sidedPostings,
} from './accounting-common.ts';

/** QuickBooks Online keeps at most 21 characters of a journal number (its `DocNumber`). */
export const QUICKBOOKS_JOURNAL_NO_MAX = 21;

/** The columns written, in order (the names of Intuit's sample file, which the import maps). */
export const QUICKBOOKS_COLUMNS = [
  'JournalNo',
  'JournalDate',
  'AccountName',
  'Debits',
  'Credits',
  'Description',
  'Name',
  'Currency',
] as const;

/** Settings of the QuickBooks Online format (`LedgerFormatContext.settings`). */
export const quickbooksSettingsSchema = z.strictObject({
  /** The company's date format as set in QuickBooks (Settings → Advanced → Date format). */
  dateFormat: z.enum(['MM/DD/YYYY', 'DD/MM/YYYY']).default('MM/DD/YYYY'),
  /**
   * Journal numbers are this prefix and the entry's number in the file (`0001`…); by default
   * `PBS` and the period's first day, so the numbers of two months never collide.
   */
  journalNoPrefix: z
    .string()
    .regex(/^[A-Za-z0-9-]*$/, 'only letters, digits and "-"')
    .max(QUICKBOOKS_JOURNAL_NO_MAX - 4, `at most ${QUICKBOOKS_JOURNAL_NO_MAX - 4} characters`)
    .optional(),
});

/** The parsed QuickBooks Online settings. */
export type QuickbooksSettings = z.output<typeof quickbooksSettingsSchema>;

/** The QuickBooks Online journal entry import CSV (`--journal-format quickbooks`). */
export const quickbooksFormat: LedgerFormat = {
  id: 'quickbooks',
  description: 'QuickBooks Online journal entry import CSV (one journal number per entry, accounts by name)',
  files: quickbooksFiles,
  settingsSchema: quickbooksSettingsSchema,
};

/**
 * Writes the entries as one QuickBooks Online import file (none when no entry has a non-zero
 * posting); refuses bad settings, unbalanced entries and nameless accounts by field.
 */
export function quickbooksFiles(
  entries: readonly JournalEntry[],
  context: LedgerFormatContext,
): LedgerFile[] {
  const settings = parseFormatSettings(
    quickbooksSettingsSchema,
    context.settings,
    'journal.settings.quickbooks',
  );
  const prefix = settings.journalNoPrefix ?? `PBS${context.period.start.replaceAll('-', '')}-`;
  const digits = Math.max(4, String(entries.length).length);
  let rows = '';
  entries.forEach((entry, at) => {
    const journalNo = `${prefix}${String(at + 1).padStart(digits, '0')}`;
    if (journalNo.length > QUICKBOOKS_JOURNAL_NO_MAX) {
      throw new ValidationError(
        'quickbooks.journalNoPrefix',
        `journal number ${journalNo} is longer than QuickBooks' ${QUICKBOOKS_JOURNAL_NO_MAX} characters: choose a shorter prefix`,
      );
    }
    rows += entryRows(entry, at, journalNo, settings, context.currency);
  });
  // Nothing to post, nothing to import: no file rather than a header alone.
  if (rows === '') return [];
  const body = csvRecord(QUICKBOOKS_COLUMNS) + rows;
  return [{ name: 'journal-quickbooks.csv', contentType: 'text/csv; charset=utf-8', body }];
}

function entryRows(
  entry: JournalEntry,
  at: number,
  journalNo: string,
  settings: QuickbooksSettings,
  currency: string,
): string {
  const date = quickbooksDate(entry.date, settings.dateFormat, `entries[${at}].date`);
  // The entry's id rides on every line: QuickBooks shows a line's description, not the entry's.
  const description = safeText(`${entry.description} [${entry.id}]`);
  return sidedPostings(entry, at)
    .map(({ posting, index, side, amount }) => {
      const name = posting.account.name.trim();
      if (name === '') {
        throw new ValidationError(
          `entries[${at}].postings[${index}].account.name`,
          'QuickBooks needs an account name',
        );
      }
      const money = moneyText(amount, posting.currency || currency);
      return csvRecord([
        journalNo,
        date,
        name,
        side === 'debit' ? money : '',
        side === 'credit' ? money : '',
        description,
        '',
        posting.currency || currency,
      ]);
    })
    .join('');
}

function quickbooksDate(value: string, format: QuickbooksSettings['dateFormat'], field: string): string {
  const { year, month, day } = localDate(value, field);
  return format === 'MM/DD/YYYY'
    ? `${pad2(month)}/${pad2(day)}/${year}`
    : `${pad2(day)}/${pad2(month)}/${year}`;
}
