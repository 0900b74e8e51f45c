/**
 * The default chart in the accounting products' formats: each file read back by a reader written
 * from the product's documentation (test/support/ledger-parsers), every account found in the chart
 * the product is shipped with (Xero's and QuickBooks' chart import files beside the journals,
 * DATEV's standard SKR03 and SKR04), and every account's total equal to the journal's to the cent.
 * The expected accounts are the table of docs/reference/ledger-formats.md, written out here.
 */
import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { OUTSIDE_HISTORY, runJournal, WALLETS_HISTORY } from '../../../test/support/journal.ts';
import { checkDatevFileName, readDatevBuchungsstapel } from '../../../test/support/ledger-parsers/datev.ts';
import {
  readQuickbooksAccounts,
  readQuickbooksJournals,
} from '../../../test/support/ledger-parsers/quickbooks.ts';
import {
  readXeroChartOfAccounts,
  readXeroManualJournals,
} from '../../../test/support/ledger-parsers/xero.ts';
import { ValidationError } from '../../errors.ts';
import { ledgerFileName } from '../types.ts';

const HISTORY = [...WALLETS_HISTORY, ...OUTSIDE_HISTORY].sort((a, b) => a.date.localeCompare(b.date));

/** The default chart's kinds by path (README's chart table). */
function kindOf(path: string): string {
  const plain: Record<string, string> = {
    'Assets:Cash-Clearing': 'cash',
    'Expenses:Crypto:Fees': 'fee',
    'Income:Crypto:Realised-Gains': 'gain',
    'Expenses:Crypto:Realised-Losses': 'loss',
    'Equity:Opening-Balances': 'opening',
    'Expenses:Rounding': 'rounding',
    'Equity:Unclassified': 'unclassified',
    'Equity:Transfers-Out': 'transfer-out',
    'Expenses:Crypto:Spent': 'spent',
  };
  if (plain[path] !== undefined) return plain[path];
  if (path.startsWith('Assets:Crypto:')) return 'asset';
  if (path.startsWith('Income:Crypto:')) return 'income';
  throw new Error(`not a default path: ${path}`);
}

/** The journal's totals (debit − credit) summed into the product's accounts by `account(path)`. */
function expectedTotals(
  accounts: Record<string, string>,
  account: (path: string) => string,
): Map<string, string> {
  const out = new Map<string, Big>();
  for (const [path, net] of Object.entries(accounts)) {
    const code = account(path);
    out.set(code, (out.get(code) ?? new Big(0)).plus(net));
  }
  return new Map([...out].filter(([, net]) => !net.eq(0)).map(([code, net]) => [code, net.toFixed(2)]));
}

/** Totals read back, without the accounts that net to zero. */
function nonZero(totals: Map<string, Big>): Map<string, string> {
  return new Map([...totals].filter(([, net]) => !net.eq(0)).map(([code, net]) => [code, net.toFixed(2)]));
}

const RATES = Object.fromEntries(
  Array.from({ length: 12 }, (_, m) => [`2025-${String(m + 1).padStart(2, '0')}`, `1.0${m + 1}5`]),
);

describe('the default chart in Xero', () => {
  it("writes codes Xero takes, all in the chart of accounts file shipped beside the journals, totals as the journal's", async () => {
    const run = await runJournal(HISTORY, { journal: { formats: ['csv', 'xero'] } });
    const chart = run.files.find((f) => f.name === 'journal-xero-accounts.csv');
    const accounts = readXeroChartOfAccounts(chart?.body as string);
    const codes = new Set(accounts.map((a) => a.code));
    const totals = new Map<string, Big>();
    for (const file of run.files.filter((f) => /^journal-xero-\d+\.csv$/.test(f.name))) {
      for (const journal of readXeroManualJournals(file.body as string).journals)
        for (const line of journal.lines) {
          expect(codes).toContain(line.accountCode);
          totals.set(line.accountCode, (totals.get(line.accountCode) ?? new Big(0)).plus(line.amount));
        }
    }
    const XERO: Record<string, string> = {
      asset: 'CRYASSET',
      cash: 'CRYCLEAR',
      fee: 'CRYFEES',
      gain: 'CRYGAIN',
      loss: 'CRYLOSS',
      income: 'CRYINCOME',
      opening: 'CRYOPEN',
      rounding: 'CRYROUND',
      unclassified: 'CRYREVIEW',
      'transfer-out': 'CRYOUT',
      spent: 'CRYSPENT',
    };
    expect(nonZero(totals)).toEqual(
      expectedTotals(run.manifest.totals.accounts, (path) => XERO[kindOf(path)] as string),
    );
  });
});

describe('the default chart in QuickBooks Online', () => {
  it("writes names without a space beside a colon, all in the accounts file shipped beside the journal, totals as the journal's", async () => {
    const run = await runJournal(HISTORY, { journal: { formats: ['csv', 'quickbooks'] } });
    const accounts = readQuickbooksAccounts(
      run.files.find((f) => f.name === 'journal-quickbooks-accounts.csv')?.body as string,
    );
    const names = new Set([...accounts.map((a) => a.name), 'Opening Balance Equity']);
    const totals = new Map<string, Big>();
    const journal = run.files.find((f) => f.name === 'journal-quickbooks.csv')?.body as string;
    for (const entry of readQuickbooksJournals(journal, 'MM/DD/YYYY'))
      for (const line of entry.lines) {
        expect(names).toContain(line.account);
        const net = new Big(line.debit || 0).minus(line.credit || 0);
        totals.set(line.account, (totals.get(line.account) ?? new Big(0)).plus(net));
      }
    const QUICKBOOKS: Record<string, string> = {
      cash: 'Crypto cash clearing',
      fee: 'Crypto transaction fees',
      gain: 'Realised gains on digital assets',
      loss: 'Realised losses on digital assets',
      income: 'Crypto income',
      opening: 'Opening Balance Equity',
      rounding: 'Crypto rounding differences',
      unclassified: 'Crypto to be reviewed',
      'transfer-out': 'Crypto sent out of the portfolio',
      spent: 'Goods and services paid in crypto',
    };
    const account = (path: string) =>
      kindOf(path) === 'asset'
        ? `Digital assets - ${path.slice('Assets:Crypto:'.length)}`
        : (QUICKBOOKS[kindOf(path)] as string);
    expect(nonZero(totals)).toEqual(expectedTotals(run.manifest.totals.accounts, account));
  });
});

describe('the default chart in DATEV', () => {
  const SKR: Record<'SKR03' | 'SKR04', Record<string, string>> = {
    SKR03: {
      asset: '1500',
      cash: '1360',
      fee: '4970',
      gain: '2725',
      loss: '2325',
      income: '2650',
      opening: '9000',
      rounding: '4900',
      unclassified: '1590',
      'transfer-out': '1590',
      spent: '4900',
    },
    SKR04: {
      asset: '1300',
      cash: '1460',
      fee: '6855',
      gain: '4905',
      loss: '6905',
      income: '7100',
      opening: '9000',
      rounding: '6300',
      unclassified: '1370',
      'transfer-out': '1370',
      spent: '6300',
    },
  };

  it.each(['SKR03', 'SKR04'] as const)(
    'books on the %s accounts, a USD batch with Kurs, Basis-Umsatz and WKZ Basis-Umsatz, named EXTF_ first',
    async (skr) => {
      const settings = { consultantNumber: 1001, clientNumber: 1, chartOfAccounts: skr, eurRates: RATES };
      const run = await runJournal(HISTORY, {
        journal: { formats: ['csv', 'datev'], settings: { datev: settings } },
      });
      const [file, ...more] = run.files;
      expect(more).toEqual([]);
      checkDatevFileName(ledgerFileName('acme_2025_', file as { name: string; head?: string }));
      const read = readDatevBuchungsstapel(file?.body as Uint8Array);
      expect(read.header.sachkontenrahmen).toBe(skr.slice(3));
      const totals = new Map<string, Big>();
      for (const b of read.bookings) {
        totals.set(b.konto, (totals.get(b.konto) ?? new Big(0)).plus(b.umsatz));
        totals.set(b.gegenkonto, (totals.get(b.gegenkonto) ?? new Big(0)).minus(b.umsatz));
        expect(b.wkzUmsatz).toBe('USD');
        const month = `2025-${b.belegdatum.slice(2)}`;
        expect(b.kurs).toBe(new Big(RATES[month] as string).toFixed(6));
        // Basis-Umsatz: the USD amount at the month's Kurs (USD per EUR), to the cent.
        expect(b.basisUmsatz).toBe(new Big(b.umsatz).div(b.kurs).round(2, Big.roundHalfUp).toFixed(2));
        expect(b.wkzBasisUmsatz).toBe('EUR');
      }
      expect(nonZero(totals)).toEqual(
        expectedTotals(run.manifest.totals.accounts, (path) => SKR[skr][kindOf(path)] as string),
      );
    },
  );

  it('refuses the default chart without a standard chart, and a USD journal without Kurse, naming the setting', async () => {
    const field = async (datev: Record<string, unknown>) => {
      try {
        await runJournal(HISTORY, { journal: { formats: ['csv', 'datev'], settings: { datev } } });
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).field;
      }
      return 'not refused';
    };
    const numbers = { consultantNumber: 1001, clientNumber: 1 };
    expect(await field({ ...numbers, eurRates: RATES })).toBe('journal.settings.datev.chartOfAccounts');
    expect(await field({ ...numbers, chartOfAccounts: 'SKR03' })).toBe('journal.settings.datev.eurRates');
    expect(await field({ ...numbers, chartOfAccounts: 'SKR03', eurRates: { '2025-01': '1.04' } })).toBe(
      'journal.settings.datev.eurRates.2025-02',
    );
  });
});
