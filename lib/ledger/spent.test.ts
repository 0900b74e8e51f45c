/**
 * Tokens spent on goods or services (transactions of category `expense`): the journal debits what
 * was bought, at the tokens' value, to the spent account (not to cash clearing: no money came in),
 * credits the asset at carrying value and posts the disposal's gain or loss as the gains reports
 * have it. A numbered chart must name the spent account once the period has such a transaction.
 * Figures computed by hand in the comments.
 */
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../test/support/gains.ts';
import { runJournal } from '../../test/support/journal.ts';
import { Big } from '../domain/index.ts';
import type { Row } from '../domain/table.ts';
import { ChartError } from './errors.ts';
import { parseJournalOptions } from './request.ts';
import { journalReadmeLines } from './words.ts';

const ETH = 'Assets:Crypto:ETH';
const USDC = 'Assets:Crypto:USDC';
const CASH = 'Assets:Cash-Clearing';
const GAINS = 'Income:Crypto:Realised-Gains';
const LOSSES = 'Expenses:Crypto:Realised-Losses';
const SPENT = 'Expenses:Crypto:Spent';

/**
 * 1 ETH at 100, 1 ETH at 300, 100 USDC at 100; then 1.5 ETH spent on goods worth 420 with a fiat
 * fee of 4 (e1), and 50 USDC spent on goods worth 55 paying gas of 0.01 ETH worth 1 (e2, as the
 * service reports it: the fee's value in `feeAmount`, the tokens in `feeSymbol`/`feeQuantity`).
 */
const HISTORY = [
  tx({ id: 'b1', date: '2025-01-05T10:00:00.000Z', movements: [leg('ETH', '1', '100')] }),
  tx({ id: 'b2', date: '2025-01-06T10:00:00.000Z', movements: [leg('ETH', '1', '300')] }),
  tx({ id: 'b3', date: '2025-01-07T10:00:00.000Z', movements: [leg('USDC', '100', '100')] }),
  tx({
    id: 'e1',
    date: '2025-02-10T10:00:00.000Z',
    category: 'expense',
    subType: 'payment',
    movements: [leg('ETH', '-1.5', '-420')],
    feeAmount: '4',
  }),
  tx({
    id: 'e2',
    date: '2025-03-01T10:00:00.000Z',
    category: 'expense',
    subType: 'payment',
    movements: [leg('USDC', '-50', '-55')],
    feeAmount: '1',
    feeSymbol: 'ETH',
    feeQuantity: '0.01',
  }),
];

/** The journal lines of transaction `id`: [account, debit, credit]. */
const linesOf = (rows: readonly Row[], id: string) =>
  rows.filter((row) => row[9] === id).map((row) => [row[2], row[4], row[5]]);

/** Debit − credit of `account` over the lines of transaction `id`. */
const netOf = (rows: readonly Row[], id: string, account: string) =>
  rows
    .filter((row) => row[9] === id && row[2] === account)
    .reduce((sum, row) => sum.plus(row[4] as string).minus(row[5] as string), new Big(0))
    .toFixed(2);

/** The disposals report's gain of transaction `id` (its lines summed). */
const reportedGain = (tables: Record<string, Row[]>, id: string) =>
  (tables.disposals ?? [])
    .filter((row) => row[11] === id)
    .reduce((sum, row) => sum.plus(row[6] as string), new Big(0))
    .toFixed(2);

/** The journal's gain of transaction `id`: credits − debits of the gain and loss accounts. */
const postedGain = (rows: readonly Row[], id: string) =>
  new Big(netOf(rows, id, GAINS))
    .plus(netOf(rows, id, LOSSES))
    .neg()
    .toFixed(2);

describe('tokens spent on goods or services', () => {
  it.each([
    // us, FIFO: carrying value 100 + 0.5 × 300 = 250; proceeds 420 − 4 = 416 over the lots:
    // 277.33 − 100 = 177.33 and 138.67 − 150 = −11.33, gain 166.00.
    ['us', '250.00', [GAINS, '0', '166.00']],
    // de: the fee a Veräußerungskosten, the same figures.
    ['de', '250.00', [GAINS, '0', '166.00']],
    // uk: section 104 pool 2 ETH / 400, cost 300; 420 − 4 − 300 = 116.00.
    ['uk', '300.00', [GAINS, '0', '116.00']],
  ])(
    '%s: debits the spent account with the value, credits the asset at carrying value, posts the gain as reported',
    async (rules, carrying, gain) => {
      const run = await runJournal(HISTORY, { gains: { taxRules: rules, currency: 'USD' } });
      expect(linesOf(run.rows, 'e1')).toEqual([
        [ETH, '0', carrying],
        gain,
        // What was bought, at the tokens' value; the fiat fee paid through cash clearing.
        [SPENT, '420.00', '0'],
        [CASH, '0', '4.00'],
      ]);
      expect(postedGain(run.rows, 'e1')).toBe(reportedGain(run.tables, 'e1'));
      // Gas paid in ETH for the fee: the fiat fee's credit and the ETH's value net out in cash.
      expect(netOf(run.rows, 'e2', SPENT)).toBe('55.00');
      expect(netOf(run.rows, 'e2', CASH)).toBe('0.00');
      expect(postedGain(run.rows, 'e2')).toBe(reportedGain(run.tables, 'e2'));
      expect(run.manifest.totals.accounts[SPENT]).toBe('475.00');
      expect(run.manifest.checks.every((check) => check.ok)).toBe(true);
    },
  );

  it('us: the gas paid in a token is its own disposal (USDC gain 55 − 1 − 50 = 4, ETH loss 1 − 3 = 2)', async () => {
    const run = await runJournal(HISTORY, { gains: { taxRules: 'us', currency: 'USD' } });
    expect(linesOf(run.rows, 'e2')).toEqual([
      [USDC, '0', '50.00'],
      [ETH, '0', '3.00'],
      [GAINS, '0', '4.00'],
      [SPENT, '55.00', '0'],
      [CASH, '0', '1.00'],
      [LOSSES, '2.00', '0'],
      [CASH, '1.00', '0'],
    ]);
    const words = run.rows.find((row) => row[9] === 'e2')?.[10];
    expect(words).toMatch(/^spent 50 USDC from A on goods or services worth 55\.00 USD/);
  });
});

/** A numbered chart giving every account but the occasional ones (30-day, spent). */
const NUMBERED = {
  defaults: 'none',
  asset: { code: '1510', tokens: { ETH: { code: '1511' }, USDC: { code: '1512' } } },
  cash: { code: '1200' },
  fee: { code: '4970' },
  gain: { code: '4900' },
  loss: { code: '6900' },
  income: { code: '4800' },
  opening: { code: '9000' },
  rounding: { code: '6990' },
  unclassified: { code: '1590' },
  'transfer-out': { code: '1591' },
};

describe('a numbered chart and the spent account', () => {
  it('is refused naming journal.chart.spent.code when the period has tokens spent', async () => {
    const error = await runJournal(HISTORY, { journal: { formats: ['csv'], chart: NUMBERED } }).catch(
      (caught) => caught,
    );
    expect(error).toBeInstanceOf(ChartError);
    expect((error as ChartError).field).toBe('journal.chart.spent.code');
    expect((error as ChartError).reason).toMatch(
      /required: .*category "expense".*\(the first: transaction e1\)$/,
    );
  });

  it('needs no spent account when the period has none', async () => {
    const run = await runJournal(HISTORY.slice(0, 3), { journal: { formats: ['csv'], chart: NUMBERED } });
    expect(run.manifest.checks.every((check) => check.ok)).toBe(true);
  });

  it('posts to the spent account it names, in every numbered format', async () => {
    const run = await runJournal(HISTORY, {
      gains: { taxRules: 'us', currency: 'USD' },
      journal: {
        formats: ['csv', 'quickbooks', 'xero', 'datev'],
        chart: { ...NUMBERED, spent: { code: '6300', name: 'Spent in crypto' } },
        settings: {
          datev: {
            consultantNumber: 1001,
            clientNumber: 1,
            eurRates: Object.fromEntries(
              Array.from({ length: 12 }, (_, m) => [`2025-${String(m + 1).padStart(2, '0')}`, '1.08']),
            ),
          },
        },
      },
    });
    expect(linesOf(run.rows, 'e1')).toContainEqual(['6300', '420.00', '0']);
    // DATEV's batches are EXTF_Buchungsstapel_….csv, in Windows-1252.
    for (const [format, prefix] of [
      ['quickbooks', 'journal-quickbooks'],
      ['xero', 'journal-xero'],
      ['datev', 'EXTF_'],
    ]) {
      const files = run.files.filter((file) => file.name.startsWith(prefix as string));
      expect(files.length, format).toBeGreaterThan(0);
      const text = files
        .map((file) =>
          typeof file.body === 'string' ? file.body : new TextDecoder('windows-1252').decode(file.body),
        )
        .join('\n');
      // The line of e1's purchase: the account (by code, or by name for QuickBooks) and the value.
      const line = text
        .split(/\r?\n/)
        .find((l) => (l.includes('6300') || l.includes('Spent in crypto')) && /420[.,]00/.test(l));
      expect(line, format).toBeDefined();
    }
  });
});

describe('the Read me of a journal', () => {
  it('says where tokens spent on goods or services go, with the chart as given', () => {
    const lines = (chart: Record<string, unknown>) =>
      journalReadmeLines(parseJournalOptions({ chart }))
        .filter((line) => line.includes('spent on goods or services'))
        .join('\n');
    expect(lines({})).toMatch(/category "expense".*debited to Expenses:Crypto:Spent, not to cash clearing/);
    expect(lines({ ...NUMBERED, spent: { code: '6300' } })).toMatch(/debited to 6300, not to cash clearing/);
    // A numbered chart without it (its period had none: the run would have been refused).
    expect(lines(NUMBERED)).toMatch(/the chart names none/);
  });
});
