/**
 * The default charts of the accounting products: where QuickBooks Online, Xero and DATEV (SKR03,
 * SKR04) book an account of the default chart (an hledger/Beancount path the request did not
 * give, `Account.standard`). The request's own accounts (a numbered chart, a code it gives) are
 * kept as given and checked by each format. Sources and examples: docs/reference/ledger-formats.md.
 */
import { ValidationError } from '../../errors.ts';
import type { Account, AccountKind, JournalEntry, Posting } from '../types.ts';

/** One account of a product's default chart. */
export interface DefaultAccount {
  code: string;
  name: string;
  /** The product's account type (Xero: its chart import's Type; QuickBooks: Type and Detail Type). */
  type: string;
  detail?: string;
}

/**
 * Xero: codes of at most 10 letters and digits (Xero's chart of accounts import), none of them a
 * code of Xero's own starter chart (three digits); the types as Xero's chart import names them.
 */
export const XERO_DEFAULT_CHART: Readonly<Record<AccountKind, DefaultAccount>> = {
  asset: { code: 'CRYASSET', name: 'Digital assets', type: 'Current Asset' },
  cash: { code: 'CRYCLEAR', name: 'Crypto cash clearing', type: 'Current Asset' },
  fee: { code: 'CRYFEES', name: 'Crypto transaction fees', type: 'Expense' },
  gain: { code: 'CRYGAIN', name: 'Realised gains on digital assets', type: 'Other Income' },
  loss: { code: 'CRYLOSS', name: 'Realised losses on digital assets', type: 'Expense' },
  income: { code: 'CRYINCOME', name: 'Crypto income', type: 'Other Income' },
  opening: { code: 'CRYOPEN', name: 'Crypto opening balances', type: 'Equity' },
  rounding: { code: 'CRYROUND', name: 'Crypto rounding differences', type: 'Expense' },
  unclassified: { code: 'CRYREVIEW', name: 'Crypto to be reviewed', type: 'Equity' },
  'transfer-out': { code: 'CRYOUT', name: 'Crypto sent out of the portfolio', type: 'Equity' },
  'thirty-day': { code: 'CRY30DAY', name: 'Crypto 30-day rule adjustments', type: 'Other Income' },
  spent: { code: 'CRYSPENT', name: 'Goods and services paid in crypto', type: 'Expense' },
};

/**
 * QuickBooks Online: account names without a `:` (QuickBooks' chart import takes no sub-accounts),
 * one asset account per token (`Digital assets - BTC`); types and detail types as QuickBooks
 * lists them. The opening balances go to QuickBooks' own Opening Balance Equity.
 */
export const QUICKBOOKS_DEFAULT_CHART: Readonly<Record<AccountKind, DefaultAccount>> = {
  asset: {
    code: 'Digital assets',
    name: 'Digital assets',
    type: 'Other Current Assets',
    detail: 'Other Current Assets',
  },
  cash: {
    code: 'Crypto cash clearing',
    name: 'Crypto cash clearing',
    type: 'Other Current Assets',
    detail: 'Other Current Assets',
  },
  fee: {
    code: 'Crypto transaction fees',
    name: 'Crypto transaction fees',
    type: 'Expenses',
    detail: 'Bank Charges',
  },
  gain: {
    code: 'Realised gains on digital assets',
    name: 'Realised gains on digital assets',
    type: 'Other Income',
    detail: 'Other Miscellaneous Income',
  },
  loss: {
    code: 'Realised losses on digital assets',
    name: 'Realised losses on digital assets',
    type: 'Other Expense',
    detail: 'Other Miscellaneous Expense',
  },
  income: {
    code: 'Crypto income',
    name: 'Crypto income',
    type: 'Other Income',
    detail: 'Other Miscellaneous Income',
  },
  opening: {
    code: 'Opening Balance Equity',
    name: 'Opening Balance Equity',
    type: 'Equity',
    detail: 'Opening Balance Equity',
  },
  rounding: {
    code: 'Crypto rounding differences',
    name: 'Crypto rounding differences',
    type: 'Other Expense',
    detail: 'Other Miscellaneous Expense',
  },
  unclassified: {
    code: 'Crypto to be reviewed',
    name: 'Crypto to be reviewed',
    type: 'Equity',
    detail: "Owner's Equity",
  },
  'transfer-out': {
    code: 'Crypto sent out of the portfolio',
    name: 'Crypto sent out of the portfolio',
    type: 'Equity',
    detail: "Owner's Equity",
  },
  'thirty-day': {
    code: 'Crypto 30-day rule adjustments',
    name: 'Crypto 30-day rule adjustments',
    type: 'Other Income',
    detail: 'Other Miscellaneous Income',
  },
  spent: {
    code: 'Goods and services paid in crypto',
    name: 'Goods and services paid in crypto',
    type: 'Expenses',
    detail: 'Other Miscellaneous Service Cost',
  },
};

/** QuickBooks' own accounts, in every company: not in the accounts file the format writes. */
export const QUICKBOOKS_BUILT_IN: ReadonlySet<string> = new Set(['Opening Balance Equity']);

/** DATEV's standard charts: the account of each kind in SKR03 and in SKR04 (four digits). */
export const DATEV_DEFAULT_CHARTS: Readonly<Record<'SKR03' | 'SKR04', Record<AccountKind, DefaultAccount>>> =
  {
    SKR03: {
      asset: { code: '1500', name: 'Sonstige Vermögensgegenstände', type: 'Bilanz' },
      cash: { code: '1360', name: 'Geldtransit', type: 'Bilanz' },
      fee: { code: '4970', name: 'Nebenkosten des Geldverkehrs', type: 'GuV' },
      gain: {
        code: '2725',
        name: 'Erträge aus dem Abgang von Gegenständen des Umlaufvermögens',
        type: 'GuV',
      },
      loss: {
        code: '2325',
        name: 'Verluste aus dem Abgang von Gegenständen des Umlaufvermögens',
        type: 'GuV',
      },
      income: { code: '2650', name: 'Sonstige Zinsen und ähnliche Erträge', type: 'GuV' },
      opening: { code: '9000', name: 'Saldenvorträge, Sachkonten', type: 'Vortrag' },
      rounding: { code: '4900', name: 'Sonstige betriebliche Aufwendungen', type: 'GuV' },
      unclassified: { code: '1590', name: 'Durchlaufende Posten', type: 'Bilanz' },
      'transfer-out': { code: '1590', name: 'Durchlaufende Posten', type: 'Bilanz' },
      'thirty-day': {
        code: '2725',
        name: 'Erträge aus dem Abgang von Gegenständen des Umlaufvermögens',
        type: 'GuV',
      },
      spent: { code: '4900', name: 'Sonstige betriebliche Aufwendungen', type: 'GuV' },
    },
    SKR04: {
      asset: { code: '1300', name: 'Sonstige Vermögensgegenstände', type: 'Bilanz' },
      cash: { code: '1460', name: 'Geldtransit', type: 'Bilanz' },
      fee: { code: '6855', name: 'Nebenkosten des Geldverkehrs', type: 'GuV' },
      gain: {
        code: '4905',
        name: 'Erträge aus dem Abgang von Gegenständen des Umlaufvermögens',
        type: 'GuV',
      },
      loss: {
        code: '6905',
        name: 'Verluste aus dem Abgang von Gegenständen des Umlaufvermögens',
        type: 'GuV',
      },
      income: { code: '7100', name: 'Sonstige Zinsen und ähnliche Erträge', type: 'GuV' },
      opening: { code: '9000', name: 'Saldenvorträge, Sachkonten', type: 'Vortrag' },
      rounding: { code: '6300', name: 'Sonstige betriebliche Aufwendungen', type: 'GuV' },
      unclassified: { code: '1370', name: 'Durchlaufende Posten', type: 'Bilanz' },
      'transfer-out': { code: '1370', name: 'Durchlaufende Posten', type: 'Bilanz' },
      'thirty-day': {
        code: '4905',
        name: 'Erträge aus dem Abgang von Gegenständen des Umlaufvermögens',
        type: 'GuV',
      },
      spent: { code: '6300', name: 'Sonstige betriebliche Aufwendungen', type: 'GuV' },
    },
  };

/**
 * The entries with each default-chart account (`standard`) replaced by `map`'s account; the
 * request's own accounts stay. A format writes these.
 */
export function onDefaultChart(
  entries: readonly JournalEntry[],
  map: (account: Account, posting: Posting) => Account,
): JournalEntry[] {
  return entries.map((entry) =>
    entry.postings.some((p) => p.account.standard === true)
      ? {
          ...entry,
          postings: entry.postings.map((p) =>
            p.account.standard === true ? { ...p, account: map(p.account, p) } : p,
          ),
        }
      : entry,
  );
}

/** The account of `chart` for an account's kind, as an `Account` (no longer `standard`). */
export function chartAccount(
  chart: Readonly<Record<AccountKind, DefaultAccount>>,
  kind: AccountKind,
): Account {
  const found = chart[kind];
  return { code: found.code, name: found.name, kind };
}

/**
 * Refuses a request's own account the product cannot take, naming the chart's setting: the
 * request's chart gives the account (`journal.chart.<kind>.code`).
 */
export function refuseAccount(format: string, account: Account, reason: string): never {
  throw new ValidationError(
    `journal.chart.${account.kind}.code`,
    `${format} cannot book account ${JSON.stringify(account.code)} (${account.kind}): ${reason}; give the chart an account ${format} takes, or leave the kind out to use the ${format} default chart (docs/reference/ledger-formats.md)`,
  );
}
