/**
 * QuickBooks Online's journal entry import (Settings → Import data → Journal entries): a CSV with
 * one row per journal line, the lines of one journal entry sharing its journal number; accounts by
 * name (account numbers turned off, sub-accounts as `Parent:Sub`); a line's amount in Debits or
 * in Credits, the other left blank. Intuit's help: see README "QuickBooks Online".
 */
import { z } from 'zod';
import { ValidationError } from '../../errors.ts';
import { cutPoints, mapNames, wellFormed } from '../names.ts';
import type {
  Account,
  AccountKind,
  AccountNamePart,
  JournalEntry,
  LedgerFile,
  LedgerFormat,
  LedgerFormatContext,
} from '../types.ts';
import {
  csvRecord,
  localDate,
  moneyText,
  pad2,
  parseFormatSettings,
  safeText,
  sidedPostings,
} from './accounting-common.ts';
import { onDefaultChart, QUICKBOOKS_BUILT_IN, QUICKBOOKS_DEFAULT_CHART } from './default-charts.ts';

/** The columns of the accounts file (QuickBooks' chart of accounts import: name, type, detail type). */
export const QUICKBOOKS_ACCOUNT_COLUMNS = ['Account Name', 'Type', 'Detail Type'] as const;

/** QuickBooks Online keeps at most 21 characters of a journal number (its `DocNumber`). */
export const QUICKBOOKS_JOURNAL_NO_MAX = 21;

/** QuickBooks Online keeps at most 100 characters of an account's name (each part of `Parent:Sub`). */
export const QUICKBOOKS_ACCOUNT_NAME_MAX = 100;

/**
 * What a `:` inside a name from the data (a wallet id, a token symbol) becomes in an account name:
 * QuickBooks reads every `:` as the line between an account and its sub-account ("the fully
 * qualified name … separated by colons", `Parent:Account1:SubAccount1`, and an account's own name
 * may not hold one: Intuit's Account entity, see README "QuickBooks Online"), so the chart's own
 * `:` stay and the data's are mapped. Two names that become one this way (`a:b`, `a-b`) each get a
 * hash ({@link accountNames}), so the mapping stays injective.
 */
export const QUICKBOOKS_DATA_COLON = '-';

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
  const kinds = new Map<string, AccountKind>();
  const booked = onDefaultChart(entries, (account) => {
    const mapped = defaultAccount(account);
    kinds.set(mapped.code, account.kind);
    return mapped;
  });
  const names = accountNames(booked);
  let rows = '';
  booked.forEach((entry, at) => {
    const journalNo = `${prefix}${String(at + 1).padStart(digits, '0')}`;
    if (journalNo.length > QUICKBOOKS_JOURNAL_NO_MAX) {
      throw new ValidationError(
        'quickbooks.journalNoPrefix',
        `journal number ${journalNo} is longer than QuickBooks' ${QUICKBOOKS_JOURNAL_NO_MAX} characters: choose a shorter prefix`,
      );
    }
    rows += entryRows(entry, at, journalNo, settings, context.currency, names);
  });
  // Nothing to post, nothing to import: no file rather than a header alone.
  if (rows === '') return [];
  const body = csvRecord(QUICKBOOKS_COLUMNS) + rows;
  const journal = { name: 'journal-quickbooks.csv', contentType: 'text/csv; charset=utf-8', body };
  return kinds.size === 0 ? [journal] : [accountsFile(kinds, names), journal];
}

/** The default chart's account for a default-chart account: one asset account per token. */
function defaultAccount(account: Account): Account {
  const preset = QUICKBOOKS_DEFAULT_CHART[account.kind];
  if (account.kind !== 'asset') return { code: preset.code, name: preset.name, kind: account.kind };
  const data = (account.nameParts ?? []).filter((part) => typeof part !== 'string');
  const [first, second] = data;
  const nameParts: AccountNamePart[] = [
    ...(first === undefined ? [preset.name] : [`${preset.name} - `, first]),
    ...(second === undefined ? [] : [' (', second, ')']),
  ];
  // Keyed by the path, which tells the tokens (and wallets) apart.
  return {
    code: `${preset.code}\u0000${account.code}`,
    name: nameParts.map((part) => (typeof part === 'string' ? part : part.data)).join(''),
    kind: 'asset',
    ...(data.length > 0 ? { nameParts } : {}),
  };
}

/**
 * The default chart's accounts the journal books on (QuickBooks' own Opening Balance Equity
 * aside), as QuickBooks' chart of accounts import takes them: imported first, the journal then
 * finds every name.
 */
function accountsFile(
  kinds: ReadonlyMap<string, AccountKind>,
  names: ReadonlyMap<string, string>,
): LedgerFile {
  const rows = [...kinds]
    .map(([code, kind]) => ({ name: names.get(code) as string, preset: QUICKBOOKS_DEFAULT_CHART[kind] }))
    .filter(({ name }) => !QUICKBOOKS_BUILT_IN.has(name))
    .map(({ name, preset }) => csvRecord([name, preset.type, preset.detail ?? '']));
  return {
    name: 'journal-quickbooks-accounts.csv',
    contentType: 'text/csv; charset=utf-8',
    body: csvRecord(QUICKBOOKS_ACCOUNT_COLUMNS) + [...new Set(rows)].join(''),
  };
}

function entryRows(
  entry: JournalEntry,
  at: number,
  journalNo: string,
  settings: QuickbooksSettings,
  currency: string,
  names: ReadonlyMap<string, string>,
): string {
  const date = quickbooksDate(entry.date, settings.dateFormat, `entries[${at}].date`);
  // The entry's id rides on every line: QuickBooks shows a line's description, not the entry's.
  const description = safeText(`${entry.description} [${entry.id}]`);
  return sidedPostings(entry, at)
    .map(({ posting, index, side, amount }) => {
      if (posting.account.name.trim() === '') {
        throw new ValidationError(
          `entries[${at}].postings[${index}].account.name`,
          'QuickBooks needs an account name',
        );
      }
      const name = names.get(posting.account.code) as string;
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

/**
 * A chart's account name as QuickBooks takes it: one line (control characters and line separators
 * a space), a double quote (which an account name may not hold) as `'`, a `:` of a name from the
 * data as {@link QUICKBOOKS_DATA_COLON} (the chart's own `:` mark its sub-accounts), each part of
 * `Parent:Sub` at most 100 characters, without spaces at the ends.
 */
function quickbooksName(account: Pick<Account, 'name' | 'nameParts'>): string {
  const name =
    account.nameParts === undefined
      ? account.name
      : account.nameParts
          .map((part) => (typeof part === 'string' ? part : part.data.replaceAll(':', QUICKBOOKS_DATA_COLON)))
          .join('');
  return (
    wellFormed(name)
      .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
      .replace(/"/g, "'")
      .split(':')
      // QuickBooks reads `Parent:Sub` with no space on either side of the colon.
      .map((part) => cutPoints(part.trim(), QUICKBOOKS_ACCOUNT_NAME_MAX).trim())
      .join(':')
  );
}

/**
 * The QuickBooks name of each account the entries post to, by code: {@link quickbooksName} of its
 * name, and where two accounts would share one (QuickBooks tells names apart without case, e.g. the
 * wallets `w.1` and `W.1`), each with a hash of its code after the last part. So no two accounts
 * of the journal are one in QuickBooks.
 */
function accountNames(entries: readonly JournalEntry[]): Map<string, string> {
  const named = new Map<string, Account>();
  for (const entry of entries) for (const p of entry.postings) named.set(p.account.code, p.account);
  const natural = (code: string) => quickbooksName(named.get(code) ?? { name: '' });
  const mapped = mapNames(
    named.keys(),
    {
      target: 'QuickBooks account name',
      natural,
      distinct: (code, suffix) => {
        const parts = natural(code).split(':');
        const last = cutPoints(parts.pop() ?? '', QUICKBOOKS_ACCOUNT_NAME_MAX - suffix.length - 1);
        return [...parts, `${last} ${suffix}`].join(':');
      },
      key: (name) => name.toLowerCase(),
    },
    'account name',
  );
  return new Map([...mapped].map(([code, n]) => [code, n.name]));
}

function quickbooksDate(value: string, format: QuickbooksSettings['dateFormat'], field: string): string {
  const { year, month, day } = localDate(value, field);
  return format === 'MM/DD/YYYY'
    ? `${pad2(month)}/${pad2(day)}/${year}`
    : `${pad2(day)}/${pad2(month)}/${year}`;
}
