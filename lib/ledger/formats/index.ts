/**
 * The ledger formats a journal can be written in, by id (`--journal-format`, `journal.formats`).
 * Each format lives in its own file; the QuickBooks Online, Xero and DATEV formats join here.
 */
import type { LedgerFormat } from '../types.ts';
import { beancountFormat } from './beancount.ts';
import { csvFormat } from './csv.ts';
import { hledgerFormat } from './hledger.ts';

/** Every registered format, in the order `--help` lists them. */
export const LEDGER_FORMATS: readonly LedgerFormat[] = [
  csvFormat,
  beancountFormat,
  hledgerFormat,
  // ledgerfmt: QuickBooks Online, Xero and DATEV formats go here.
];

/** The format of an id, or undefined. */
export function ledgerFormat(id: string): LedgerFormat | undefined {
  return LEDGER_FORMATS.find((format) => format.id === id);
}
