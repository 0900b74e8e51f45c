/**
 * A reader of QuickBooks Online journal entry import files, written from Intuit's help
 * ("Import journal entries": Journal No., Journal Date, Account Name, Debits, Credits,
 * Description, Name): comma-separated, one row per line, the rows of one journal entry sharing
 * its journal number and date, an amount in Debits or Credits and the other blank, plain
 * numbers. Independent of the project's writer.
 */
import { readDelimited } from './delimited.ts';

/** One journal line as read. */
export interface QuickbooksLine {
  account: string;
  debit: string;
  credit: string;
  description: string;
  name: string;
  currency: string;
}

/** One journal entry (all rows of one journal number). */
export interface QuickbooksJournal {
  journalNo: string;
  /** `YYYY-MM-DD`, read with the stated date format. */
  date: string;
  lines: QuickbooksLine[];
}

/** The columns the import maps, as Intuit's sample file names them. */
export const QUICKBOOKS_REQUIRED_COLUMNS = [
  'JournalNo',
  'JournalDate',
  'AccountName',
  'Debits',
  'Credits',
  'Description',
  'Name',
];

const PLAIN = /^\d+(\.\d+)?$/;

/** Reads an import file; throws on the first row that breaks a rule. */
export function readQuickbooksJournals(
  text: string,
  dateFormat: 'MM/DD/YYYY' | 'DD/MM/YYYY',
): QuickbooksJournal[] {
  const [header, ...rows] = readDelimited(text, ',').map((record) => record.map((field) => field.value));
  if (!header) throw new Error('no header row');
  for (const column of QUICKBOOKS_REQUIRED_COLUMNS) {
    if (!header.includes(column)) throw new Error(`no ${column} column`);
  }
  const col = (row: string[], name: string) => row[header.indexOf(name)] ?? '';
  const journals: QuickbooksJournal[] = [];
  const seen = new Set<string>();
  rows.forEach((row, i) => {
    const where = `row ${i + 2}`;
    if (row.length !== header.length) throw new Error(`${where}: ${row.length} fields, not ${header.length}`);
    const journalNo = col(row, 'JournalNo');
    if (journalNo === '' || journalNo.length > 21)
      throw new Error(`${where}: journal number ${JSON.stringify(journalNo)}`);
    const date = readDate(col(row, 'JournalDate'), dateFormat, where);
    const debit = col(row, 'Debits');
    const credit = col(row, 'Credits');
    if ((debit === '') === (credit === ''))
      throw new Error(`${where}: exactly one of Debits and Credits must be filled`);
    if (!PLAIN.test(debit || credit))
      throw new Error(`${where}: amount ${JSON.stringify(debit || credit)} is not a plain number`);
    const account = col(row, 'AccountName');
    if (account === '') throw new Error(`${where}: no account name`);
    // Parent:Sub with no space on either side of the colon, no empty part (Intuit: the fully
    // qualified name, "separated by colons"; import guides: no space around the colon).
    if (/\s:|:\s/.test(account) || account.split(':').some((part) => part === ''))
      throw new Error(`${where}: account ${JSON.stringify(account)} has a space or nothing beside a ":"`);
    let journal = journals.at(-1);
    if (journal?.journalNo !== journalNo) {
      if (seen.has(journalNo)) throw new Error(`${where}: the rows of journal ${journalNo} are not together`);
      seen.add(journalNo);
      journal = { journalNo, date, lines: [] };
      journals.push(journal);
    }
    if (journal.date !== date) throw new Error(`${where}: journal ${journalNo} has two dates`);
    journal.lines.push({
      account,
      debit,
      credit,
      description: col(row, 'Description'),
      name: col(row, 'Name'),
      currency: col(row, 'Currency'),
    });
  });
  return journals;
}

function readDate(value: string, format: 'MM/DD/YYYY' | 'DD/MM/YYYY', where: string): string {
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value);
  if (!match) throw new Error(`${where}: date ${JSON.stringify(value)} is not ${format}`);
  const [first, second, year] = [match[1], match[2], match[3]] as [string, string, string];
  const [month, day] = format === 'MM/DD/YYYY' ? [first, second] : [second, first];
  const iso = `${year}-${month}-${day}`;
  if (
    Number.isNaN(Date.parse(`${iso}T00:00:00Z`)) ||
    new Date(`${iso}T00:00:00Z`).toISOString().slice(0, 10) !== iso
  ) {
    throw new Error(`${where}: date ${JSON.stringify(value)} is not a day`);
  }
  return iso;
}

/**
 * An account name as QuickBooks reads it: the path from the top account down to the account,
 * split at every `:`. Intuit's Account entity: the fully qualified name is "the topmost parent,
 * followed by each subaccount separated by colons" (`Parent:Account1:SubAccount1:SubAccount2`),
 * and an account's own name may not hold a colon
 * (https://developer.intuit.com/app/developer/qbo/docs/api/accounting/all-entities/account).
 * A part is read without the spaces at its ends.
 */
export function quickbooksAccountPath(name: string): string[] {
  return name.split(':').map((part) => part.trim());
}

/** QuickBooks Online's account types, as its chart of accounts import takes them. */
export const QUICKBOOKS_ACCOUNT_TYPES = [
  'Bank',
  'Accounts receivable (A/R)',
  'Other Current Assets',
  'Fixed Assets',
  'Other Assets',
  'Accounts payable (A/P)',
  'Credit Card',
  'Other Current Liabilities',
  'Long Term Liabilities',
  'Equity',
  'Income',
  'Cost of Goods Sold',
  'Expenses',
  'Other Income',
  'Other Expense',
];

/** One account of a chart of accounts import file. */
export interface QuickbooksAccount {
  name: string;
  type: string;
  detailType: string;
}

/**
 * Reads a chart of accounts import file, written from Intuit's help ("Import your chart of
 * accounts": Account Name and Type required, Detail Type; the import takes no colon, so no
 * sub-account; names at most 100 characters, Intuit's Account entity). Throws on the first rule
 * a row breaks, and on a name given twice (QuickBooks tells names apart without case).
 */
export function readQuickbooksAccounts(text: string): QuickbooksAccount[] {
  const [header, ...rows] = readDelimited(text, ',').map((record) => record.map((field) => field.value));
  if (!header?.includes('Account Name') || !header.includes('Type'))
    throw new Error(`header ${JSON.stringify(header)}: needs Account Name and Type`);
  const col = (row: string[], name: string) => row[header.indexOf(name)] ?? '';
  const seen = new Set<string>();
  return rows.map((row, i) => {
    const where = `row ${i + 2}`;
    const name = col(row, 'Account Name');
    if (name === '' || Array.from(name).length > 100 || /[:"]/.test(name) || name !== name.trim())
      throw new Error(`${where}: account name ${JSON.stringify(name)}`);
    if (seen.has(name.toLowerCase())) throw new Error(`${where}: ${name} twice`);
    seen.add(name.toLowerCase());
    const type = col(row, 'Type');
    if (!QUICKBOOKS_ACCOUNT_TYPES.includes(type)) throw new Error(`${where}: type ${JSON.stringify(type)}`);
    return { name, type, detailType: col(row, 'Detail Type') };
  });
}
