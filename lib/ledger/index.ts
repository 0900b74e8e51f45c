/**
 * The journal report: entries for the accountant's general ledger, built from the gains engine
 * (README "Into the books"). The entry model is `types.ts`; each output format is a
 * `LedgerFormat` in `formats/` and registered in `formats/index.ts`.
 */
export {
  ACCOUNT_SEGMENT,
  type Chart,
  type ChartInput,
  type ChartSettings,
  chartSchema,
  createChart,
  DEFAULT_ACCOUNTS,
  DEFAULT_INCOME_CATEGORIES,
  parseChart,
  pathComponent,
} from './chart.ts';
export {
  createEntriesBuilder,
  type EntriesBuilder,
  type EntriesOptions,
  type Holding,
  lastDay,
  lineGains,
  type MonthEnd,
} from './entries.ts';
export {
  ChartError,
  JournalNameError,
  LedgerError,
  LedgerFormatError,
  type NameField,
  type TieOutDifference,
  TieOutError,
  UnbalancedEntryError,
} from './errors.ts';
export { beancountFormat, beancountText } from './formats/beancount.ts';
export { csvFormat, JOURNAL_COLUMNS, JOURNAL_SPEC, journalRows } from './formats/csv.ts';
export { hledgerFormat, hledgerSymbol, hledgerSymbols, hledgerText } from './formats/hledger.ts';
export { LEDGER_FORMATS, ledgerFormat } from './formats/index.ts';
export { type JournalName, mapNames, type NameRule, nameRegistry } from './names.ts';
export {
  DEFAULT_JOURNAL_FORMATS,
  type JournalIssue,
  type JournalRequest,
  type JournalRequestInput,
  journalProblems,
  journalSchema,
  parseJournalOptions,
} from './request.ts';
export type * from './types.ts';
export { ACCOUNT_KINDS, ledgerFileName } from './types.ts';
export { journalReadmeLines } from './words.ts';
