/**
 * The chart of accounts of a journal in words, for the Read me (file and sheet): which account
 * each kind of posting goes to, and how an entry is made of them.
 */
import { findLotMethod } from '../gains/index.ts';
import { type ChartSettings, createChart } from './chart.ts';
import type { JournalRequest } from './request.ts';

/**
 * One line per topic: the mapping of a request's journal, and the conventions of its entries;
 * with a lot `method` that has journal extras (`hmrc`), how it is posted.
 */
export function journalReadmeLines(journal: JournalRequest, method?: string): string[] {
  const chart = createChart(journal.chart as ChartSettings);
  const code = (kind: Parameters<typeof chart.account>[0]) => chart.account(kind).code;
  const { perToken, perWallet } = journal.chart.asset;
  const assetExample = chart.asset('BTC', 'wallet-1').code;
  const extras = method === undefined ? undefined : findLotMethod(method)?.journal;
  return [
    `journal: ${journal.rollup ? 'one entry per month, summed per account and side' : 'one entry per transaction'}, in the reporting currency to its minor unit, formats ${journal.formats.join(', ')}`,
    `journal accounts: digital assets ${perToken ? 'one account per token' : 'one account for every token'}${perWallet ? ' and wallet' : ''} (e.g. ${assetExample}), at carrying value (cost from the lots, by the gains method and pools)`,
    `journal: an acquisition debits the asset at cost (fees included) and credits cash clearing ${code('cash')}; a disposal debits ${code('cash')} with the proceeds (a fee deducted from them as a credit), credits the asset with the carrying value of the lots it took, and posts the difference to realised gains ${code('gain')} or losses ${code('loss')} (as the gains summary shows it)`,
    journal.chart.defaults === 'none'
      ? `journal: income debits the asset at its value and credits the income account of its category (e.g. staking ${chart.income('staking')?.code ?? code('unclassified')}), a category the chart's categories do not name the income account ${journal.chart.income.code ?? ''}; a deposit from outside the portfolio goes to ${code('unclassified')} for review`
      : `journal: income debits the asset at its value and credits the income account of its category (e.g. staking ${chart.income('staking')?.code ?? code('unclassified')}); a category the chart does not name, and a deposit from outside the portfolio, go to ${code('unclassified')} for review`,
    `journal: a move between own wallets is posted only with per-wallet accounts (at carrying value); a transfer to outside the portfolio credits the asset and debits ${code('transfer-out')}; gas paid in a token (a fee field, a fee transaction's out movements, what a transfer between own wallets lost on the way) is a disposal of it, its value an expense on ${code('fee')} unless it is already in the transaction's proceeds or cost`,
    spentLine(journal, chart),
    `journal: opening balances at the period start against ${code('opening')}; what rounding each line to the minor unit leaves over goes to ${code('rounding')}; the Beancount and hledger journals assert every asset account's quantity of each token at each month end`,
    "journal tie-out: realised gains equal the gains summary, income per category the income report, and each month end's asset balances (quantity and carrying value) the holdings; the manifest records the totals and the checks, and a run that does not tie out fails",
    ...(extras === undefined ? [] : [extras.readme(code)]),
    ...productsLine(journal),
  ];
}

/** How the journal posts tokens spent on goods or services (README "Into the books"). */
function spentLine(journal: JournalRequest, chart: ReturnType<typeof createChart>): string {
  // A numbered chart may leave the account out while the period has no such transaction.
  const named = journal.chart.defaults !== 'none' || journal.chart.spent?.code !== undefined;
  const where = named
    ? `debited to ${chart.account('spent').code}`
    : 'debited to the spent account (the chart names none: none in the period)';
  return `journal: tokens spent on goods or services (transactions of category "expense") are a disposal at their value, its gain or loss posted as for a sale, and that value (what was bought) is ${where}, not to cash clearing, for the accountant to classify; a fiat fee of the payment is a cost of the disposal, paid through ${chart.account('cash').code}`;
}

/** Where the accounting products book the default chart's accounts (docs/reference/ledger-formats.md). */
function productsLine(journal: JournalRequest): string[] {
  const products = journal.formats.filter((id) => ['quickbooks', 'xero', 'datev'].includes(id));
  if (products.length === 0) return [];
  return [
    `journal: ${products.join(', ')} book the default chart's accounts (those the chart leaves to the defaults) on a chart of their own: Xero's CRY… codes and QuickBooks' account names, each with a file to import into the chart of accounts first (journal-xero-accounts.csv, journal-quickbooks-accounts.csv), DATEV the standard SKR03 or SKR04 (journal.settings.datev.chartOfAccounts); a journal not in the Mandant's Basiswährung (journal.settings.datev.baseCurrency, EUR unless set) gives DATEV its Kurs (units per EUR), Basis-Umsatz and WKZ Basis-Umsatz from journal.settings.datev.eurRates or the run's ECB rates`,
  ];
}
