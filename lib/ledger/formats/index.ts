/**
 * The ledger formats a journal can be written in, by id (`--journal-format`, `journal.formats`).
 * Each format lives in its own file.
 */
import type { LedgerFormat } from '../types.ts';
import { beancountFormat } from './beancount.ts';
import { csvFormat } from './csv.ts';
import { datevFormat } from './datev.ts';
import { hledgerFormat } from './hledger.ts';
import { quickbooksFormat } from './quickbooks.ts';
import { xeroFormat } from './xero.ts';

/** Every registered format, in the order `--help` lists them. */
export const LEDGER_FORMATS: readonly LedgerFormat[] = [
  csvFormat,
  beancountFormat,
  hledgerFormat,
  quickbooksFormat,
  xeroFormat,
  datevFormat,
];

/** The format of an id, or undefined. */
export function ledgerFormat(id: string): LedgerFormat | undefined {
  return LEDGER_FORMATS.find((format) => format.id === id);
}
