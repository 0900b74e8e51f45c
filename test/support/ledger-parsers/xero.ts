/**
 * A reader of Xero manual journal import files, written from Xero's help ("Enter multiple
 * manual journals using an import template"): the template's columns, Narration, Date,
 * AccountCode, TaxRate and Amount mandatory, the date dd/mm/yyyy, the amount positive for a
 * debit and negative for a credit, rows with the same narration and date one journal, at most
 * 300 lines in one file. Independent of the project's writer.
 */
import { readDelimited } from './delimited.ts';

/** One journal line as read. */
export interface XeroLine {
  description: string;
  accountCode: string;
  taxRate: string;
  /** Signed: positive debit, negative credit. */
  amount: string;
  trackingName1: string;
  trackingOption1: string;
}

/** One manual journal: the rows of one narration and date. */
export interface XeroJournal {
  narration: string;
  /** `YYYY-MM-DD`. */
  date: string;
  lines: XeroLine[];
}

/** A file read back. */
export interface XeroFile {
  lineCount: number;
  journals: XeroJournal[];
}

/** The columns of Xero's manual journal template. */
export const XERO_TEMPLATE_COLUMNS = [
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
];

/** Xero's documented limit of lines in one template file. */
export const XERO_DOCUMENTED_LINE_LIMIT = 300;

/** Reads one import file; throws on the first rule it breaks. */
export function readXeroManualJournals(text: string): XeroFile {
  const [header, ...rows] = readDelimited(text, ',').map((record) => record.map((field) => field.value));
  if (header?.join(',') !== XERO_TEMPLATE_COLUMNS.join(','))
    throw new Error(`header ${JSON.stringify(header)}`);
  if (rows.length > XERO_DOCUMENTED_LINE_LIMIT)
    throw new Error(`${rows.length} lines: Xero takes ${XERO_DOCUMENTED_LINE_LIMIT}`);
  const journals = new Map<string, XeroJournal>();
  rows.forEach((row, i) => {
    const where = `row ${i + 2}`;
    if (row.length !== header.length) throw new Error(`${where}: ${row.length} fields`);
    const [narration, date, description, accountCode, taxRate, amount, trackingName1, trackingOption1] =
      row as string[];
    for (const [name, value] of [
      ['Narration', narration],
      ['AccountCode', accountCode],
      ['TaxRate', taxRate],
    ]) {
      if (!value) throw new Error(`${where}: ${name} is mandatory`);
    }
    checkCode(accountCode as string, where);
    if (!/^-?\d+(\.\d+)?$/.test(amount ?? '') || /^-?[0.]+$/.test(amount ?? '')) {
      throw new Error(`${where}: amount ${JSON.stringify(amount)} is not a signed non-zero number`);
    }
    const iso = readDate(date ?? '', where);
    const key = `${narration}\u0000${iso}`;
    const journal = journals.get(key) ?? { narration: narration as string, date: iso, lines: [] };
    journals.set(key, journal);
    journal.lines.push({
      description: description ?? '',
      accountCode: accountCode as string,
      taxRate: taxRate as string,
      amount: amount as string,
      trackingName1: trackingName1 ?? '',
      trackingOption1: trackingOption1 ?? '',
    });
  });
  return { lineCount: rows.length, journals: [...journals.values()] };
}

function readDate(value: string, where: string): string {
  const match = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(value);
  if (!match) throw new Error(`${where}: date ${JSON.stringify(value)} is not dd/mm/yyyy`);
  const iso = `${match[3]}-${(match[2] as string).padStart(2, '0')}-${(match[1] as string).padStart(2, '0')}`;
  const probe = new Date(`${iso}T00:00:00Z`);
  if (Number.isNaN(probe.getTime()) || probe.toISOString().slice(0, 10) !== iso)
    throw new Error(`${where}: ${value} is not a day`);
  return iso;
}

/**
 * An account code as Xero takes it (Xero's help, "Import a chart of accounts": letters, numbers
 * or symbols, up to 10 characters, a symbol not at the start); the manual journal template takes
 * the code of an account of the chart.
 */
function checkCode(code: string, where: string): void {
  if (Array.from(code).length > 10)
    throw new Error(`${where}: account code ${JSON.stringify(code)} is longer than 10`);
  if (!/^[A-Za-z0-9]/.test(code) || /\s/.test(code))
    throw new Error(`${where}: account code ${JSON.stringify(code)} starts with a symbol or has a space`);
}

/** Xero's chart of accounts account types, as its import names them. */
export const XERO_ACCOUNT_TYPES = [
  'Bank',
  'Current Asset',
  'Current Liability',
  'Depreciation',
  'Direct Costs',
  'Equity',
  'Expense',
  'Fixed Asset',
  'Inventory',
  'Liability',
  'Non-current Asset',
  'Non-current Liability',
  'Other Income',
  'Overhead',
  'Prepayment',
  'Revenue',
  'Sales',
];

/** One account of a chart of accounts import file. */
export interface XeroAccount {
  code: string;
  name: string;
  type: string;
  taxCode: string;
}

/**
 * Reads a chart of accounts import file, written from Xero's help ("Import a chart of
 * accounts"): *Code, *Name, *Type and *Tax Code mandatory, codes and names unique, a code of at
 * most 10 characters, a name of at most 150, the type one of Xero's.
 */
export function readXeroChartOfAccounts(text: string): XeroAccount[] {
  const [header, ...rows] = readDelimited(text, ',').map((record) => record.map((field) => field.value));
  for (const column of ['*Code', '*Name', '*Type', '*Tax Code'])
    if (!header?.includes(column)) throw new Error(`no ${column} column`);
  const col = (row: string[], name: string) => row[(header as string[]).indexOf(name)] ?? '';
  const codes = new Set<string>();
  const names = new Set<string>();
  return rows.map((row, i) => {
    const where = `row ${i + 2}`;
    const account = {
      code: col(row, '*Code'),
      name: col(row, '*Name'),
      type: col(row, '*Type'),
      taxCode: col(row, '*Tax Code'),
    };
    checkCode(account.code, where);
    if (account.name === '' || Array.from(account.name).length > 150) throw new Error(`${where}: name`);
    if (!XERO_ACCOUNT_TYPES.includes(account.type))
      throw new Error(`${where}: type ${JSON.stringify(account.type)}`);
    if (account.taxCode === '') throw new Error(`${where}: no tax code`);
    if (codes.has(account.code) || names.has(account.name)) throw new Error(`${where}: code or name twice`);
    codes.add(account.code);
    names.add(account.name);
    return account;
  });
}
