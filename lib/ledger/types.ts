/**
 * The journal's entry model: what the entries builder produces and every ledger format writes.
 * Amounts are exact plain decimal strings; money is rounded to the reporting currency's minor unit.
 */
import type { ZodType } from 'zod';
import type { JournalName } from './names.ts';

/** What an account of the chart is for; a mapping names each kind it needs. */
export const ACCOUNT_KINDS = [
  'asset',
  'cash',
  'fee',
  'gain',
  'loss',
  'income',
  'opening',
  'unclassified',
  'rounding',
  'transfer-out',
  'thirty-day',
  'spent',
] as const;

/** One of {@link ACCOUNT_KINDS}. */
export type AccountKind = (typeof ACCOUNT_KINDS)[number];

/** A piece of an account's name: the chart's own text, or a name from the data (`{ data }`). */
export type AccountNamePart = string | { data: string };

/** An account of the client's chart. */
export interface Account {
  /** The ledger's number (DATEV, QuickBooks) or path (`Assets:Crypto:BTC` for hledger/Beancount). */
  code: string;
  /** Its name as the accountant reads it. */
  name: string;
  kind: AccountKind;
  /**
   * `name` in pieces when it holds names from the data (a token symbol, a wallet id); joined,
   * they are `name`. A format whose account names have a syntax (QuickBooks' `Parent:Sub`) maps
   * the data's characters, never the chart's own. Absent: `name` is the chart's own text.
   */
  nameParts?: AccountNamePart[];
  /**
   * The account is the default chart's (an hledger/Beancount path the request did not give): a
   * format with a chart of its own (QuickBooks, Xero, DATEV SKR03/SKR04) books it on that chart's
   * account of the same kind (formats/default-charts.ts).
   */
  standard?: true;
}

/** One line of an entry: one of `debit` and `credit` is `'0'`. */
export interface Posting {
  account: Account;
  /** Exact decimal in `currency`, to its minor unit. */
  debit: string;
  credit: string;
  /** The reporting currency (ISO 4217). */
  currency: string;
  /** Token quantity moved (signed: positive into the account), for asset postings. */
  quantity?: string;
  token?: string;
  /** Carrying value per unit, exact, for asset postings (the commodity's cost in journals). */
  costPerUnit?: string;
  txId?: string;
}

/** One balanced journal entry. */
export interface JournalEntry {
  id: string;
  /** `YYYY-MM-DD` in the report's time zone. */
  date: string;
  txIds: string[];
  /** In words an accountant understands. */
  description: string;
  postings: Posting[];
}

/** One file a ledger format writes. */
export interface LedgerFile {
  /** File name inside the set, e.g. `journal-xero-1.csv`. */
  name: string;
  /**
   * The start the importer requires of the file's name (DATEV's `EXTF_`): a run's own prefix goes
   * after it, not before ({@link ledgerFileName}).
   */
  head?: string;
  contentType: string;
  body: string | Uint8Array;
}

/** What a format needs besides the entries. */
export interface LedgerFormatContext {
  /** Reporting currency (ISO 4217). */
  currency: string;
  /** Period reported, local dates `[start, end]` inclusive, `YYYY-MM-DD`. */
  period: { start: string; end: string };
  /** Format-specific settings from the request's journal block (e.g. DATEV numbers). */
  settings: Readonly<Record<string, unknown>>;
  /** The run's time, for a format that stamps its file (DATEV's "Erzeugt am"); absent: now. */
  createdAt?: Date;
  /**
   * The asset accounts' balances at each month end of the period (every account and token the
   * journal has held, a month without activity included): the journals' balance assertions.
   */
  balances?: readonly BalanceAssertion[];
  /** Every account the entries post to, when known before the entries are read (streaming). */
  accounts?: readonly Account[];
  /** Every token the entries and balances hold, when known before the entries are read (streaming). */
  tokens?: readonly string[];
  /**
   * What a journal read together with this one declares already (the closed journal, for the
   * adjusting entries of its restatement): account codes and tokens, in that journal's order.
   * Beancount refuses a second `open` or `commodity` of the same name, so its file declares only
   * the others, and names the tokens as that journal does.
   */
  declared?: { accounts: readonly string[]; tokens: readonly string[] };
  /**
   * The wallet ids and token symbols whose account name segment the chart made distinct with a
   * hash (names that would have shared one): the plain-text journals list them in their header.
   */
  names?: readonly JournalName[];
  /**
   * The run's published EUR rates, when it has the ECB's: units of `currency` per 1 EUR on a
   * booking day (`YYYY-MM-DD`; a day without a fixing takes the latest fixing before it, up to 7
   * days back), with the fixing day used. Throws when the rates do not cover the day. DATEV's
   * Kurs of a journal not in EUR, when its settings give no `eurRates`.
   */
  eurRate?: (currency: string, day: string) => { rate: string; of: string };
}

/** One asset account's balance of one token at a month end. */
export interface BalanceAssertion {
  /** Last local day of the month (of the period's last month: the period's last day), `YYYY-MM-DD`. */
  date: string;
  account: Account;
  token: string;
  /** Exact. */
  quantity: string;
  /** Carrying value as posted (minor unit). */
  cost: string;
}

/** A ledger output format: an id for `--journal-format` and the files it writes. */
export interface LedgerFormat {
  id: string;
  /** One line for the Read me and `--help`. */
  description: string;
  files(entries: readonly JournalEntry[], context: LedgerFormatContext): LedgerFile[];
  /**
   * The shape of the format's own settings block, `journal.settings.<id>`; checked when the request
   * is (so a bad DATEV number fails before anything is fetched). Absent: the format takes none.
   */
  settingsSchema?: ZodType;
  /**
   * Optional: the same files written as the entries are read, so a long period's entries need not
   * all be in memory (`context.accounts` and `context.tokens` are given). Without it the entries
   * are read into an array for {@link LedgerFormat.files}.
   */
  stream?(entries: AsyncIterable<JournalEntry>, context: LedgerFormatContext): LedgerStream[];
}

/** A file a format writes chunk by chunk ({@link LedgerFormat.stream}). */
export interface LedgerStream {
  name: string;
  /** As {@link LedgerFile.head}. */
  head?: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

/**
 * The name a file of a format is written under in a set whose names start with `prefix`
 * (`demo_2025_`): the prefix before the format's name, or after the start its importer requires
 * (`EXTF_demo_2025_Buchungsstapel_20250101_20251231.csv`).
 */
export function ledgerFileName(prefix: string, file: { name: string; head?: string }): string {
  const head = file.head ?? '';
  const rest = head !== '' && file.name.startsWith(head) ? file.name.slice(head.length) : file.name;
  return `${head}${prefix}${rest}`;
}
