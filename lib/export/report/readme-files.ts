/**
 * The Read me's lines on the files that are not tables: the tax pack and the journal in the
 * formats beyond CSV (Beancount, hledger, QuickBooks, Xero, DATEV), named as their writers name
 * them (`lib/ledger/formats/`), each with what it is for.
 */
import type { ExportRequest } from '../plan/request.ts';
import { TAX_PACK_SUFFIX } from './writers/pdf-pack.ts';

/** What each journal format's files are, by format id: their name after the base name, and their use. */
const JOURNAL_FILES: Readonly<Record<string, (base: string) => string>> = {
  beancount: (base) =>
    `${base}_journal.beancount: the journal as a Beancount file (check it with bean-check, view it with fava)`,
  hledger: (base) =>
    `${base}_journal.hledger: the journal as an hledger journal (check it with hledger check)`,
  quickbooks: (base) =>
    `${base}_journal-quickbooks.csv: the journal as QuickBooks Online's journal entry import (CSV)`,
  xero: (base) =>
    `${base}_journal-xero-1.csv (-2, -3, … when split): the journal as Xero's manual journal import (CSV)`,
  datev: () =>
    'the file(s) named EXTF_Buchungsstapel_<first day>_<last day>.csv (-1, -2, … when split): the journal as a DATEV Buchungsstapel (EXTF format, Windows-1252)',
};

/**
 * The Read me's lines of the tax pack (when `taxPack`) and of the journal's files in each format
 * of `request.journal` beyond CSV (whose entries are the `journal` table, listed with the tables).
 */
export function extraFileLines(request: ExportRequest, baseName: string, taxPack: boolean): string[] {
  const lines: string[] = [];
  if (taxPack)
    lines.push(
      `${baseName}${TAX_PACK_SUFFIX}: the tax pack to print and file from (PDF): the tax forms' figures, income, holdings at the end of the period and the warnings`,
    );
  for (const format of request.journal?.formats ?? []) {
    const words = JOURNAL_FILES[format];
    if (words !== undefined) lines.push(words(baseName));
  }
  return lines;
}
