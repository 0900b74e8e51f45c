/**
 * Hand-built journal entries for the ledger format tests: a chart with four-digit numbers (as
 * DATEV's SKR charts have) and names (as QuickBooks matches them), entries with several
 * postings, fees, a rounding line, umlauts, quotes and long descriptions, and a generator of
 * many entries. Expected totals are computed here from the postings, independently of any writer.
 */
import Big from 'big.js';
import type { Account, AccountKind, JournalEntry, Posting } from '../../lib/ledger/types.ts';

const account = (code: string, name: string, kind: AccountKind): Account => ({ code, name, kind });

/** The chart the fixtures post to. */
export const CHART = {
  btc: account('1510', 'Digital assets:BTC', 'asset'),
  ethA: account('1511', 'Digital assets:ETH wallet A', 'asset'),
  ethB: account('1512', 'Digital assets:ETH wallet B', 'asset'),
  bank: account('1200', 'Bank', 'cash'),
  fee: account('4970', 'Crypto fees', 'fee'),
  gain: account('2520', 'Realised gains', 'gain'),
  loss: account('2320', 'Realised losses', 'loss'),
  staking: account('8100', 'Staking income', 'income'),
  rounding: account('4999', 'Rounding differences', 'rounding'),
} as const;

/** A debit posting in EUR. */
export const dr = (acc: Account, amount: string, extra: Partial<Posting> = {}): Posting => ({
  account: acc,
  debit: amount,
  credit: '0',
  currency: 'EUR',
  ...extra,
});

/** A credit posting in EUR. */
export const cr = (acc: Account, amount: string, extra: Partial<Posting> = {}): Posting => ({
  account: acc,
  debit: '0',
  credit: amount,
  currency: 'EUR',
  ...extra,
});

/** January 2024: every case the formats must carry. */
export const JANUARY: JournalEntry[] = [
  {
    id: 'tx:buy-1',
    date: '2024-01-03',
    txIds: ['buy-1'],
    description: 'Kauf 0.5 BTC',
    postings: [
      dr(CHART.btc, '20000.00', { quantity: '0.5', token: 'BTC', txId: 'buy-1' }),
      cr(CHART.bank, '20000.00'),
    ],
  },
  {
    id: 'tx:sell-1',
    date: '2024-01-15',
    txIds: ['sell-1'],
    description: 'Verkauf 0.2 BTC mit Gebühr',
    postings: [
      dr(CHART.bank, '9190.00'),
      dr(CHART.fee, '10.00'),
      cr(CHART.btc, '8000.00', { quantity: '-0.2', token: 'BTC', txId: 'sell-1' }),
      cr(CHART.gain, '1200.00'),
    ],
  },
  {
    id: 'tx:sell-2',
    date: '2024-01-20',
    txIds: ['sell-2'],
    description: 'Verkauf ETH mit Verlust, Rundung',
    postings: [
      dr(CHART.bank, '299.99'),
      dr(CHART.loss, '100.00'),
      dr(CHART.rounding, '0.01'),
      cr(CHART.ethA, '400.00', { quantity: '-0.25', token: 'ETH' }),
    ],
  },
  {
    id: 'tx:stake-1',
    date: '2024-01-21',
    txIds: ['stake-1'],
    description: 'Staking-Ertrag für "Müller & Söhne", Straße ÄÖÜ ß – 5 € Bonus',
    postings: [dr(CHART.ethA, '12.34', { quantity: '0.004', token: 'ETH' }), cr(CHART.staking, '12.34')],
  },
  {
    id: 'tx:move-1',
    date: '2024-01-22',
    txIds: ['move-out-1', 'move-in-1'],
    description: `=SUM(A1) ${'Übertrag zwischen eigenen Wallets, sehr lange Beschreibung; '.repeat(4)}\nzweite Zeile 🚀`,
    postings: [dr(CHART.ethB, '500.00'), cr(CHART.ethA, '500.00')],
  },
  {
    id: 'rollup:2024-01:very-long-entry-identifier-beyond-thirty-six-characters',
    date: '2024-01-31',
    txIds: ['a', 'b', 'c'],
    description: 'Monatssumme mit drei Soll- und zwei Habenbuchungen',
    postings: [
      dr(CHART.btc, '700.00'),
      dr(CHART.fee, '3.33'),
      dr(CHART.loss, '96.67'),
      cr(CHART.bank, '450.00'),
      cr(CHART.gain, '350.00'),
    ],
  },
];

/** `count` entries of `postings` lines each (one credit, the rest debits), one a day from `start`. */
export function manyEntries(count: number, postings: number, start = '2024-03-01'): JournalEntry[] {
  const first = Date.parse(`${start}T00:00:00Z`);
  return Array.from({ length: count }, (_, n) => {
    const debits = Array.from({ length: postings - 1 }, (_, k) =>
      dr(CHART.btc, `${n + 1}.${String(k).padStart(2, '0')}`),
    );
    const total = debits.reduce((sum, p) => sum.plus(p.debit), new Big(0));
    return {
      id: `tx:many-${n + 1}`,
      date: new Date(first + (n % 28) * 86_400_000).toISOString().slice(0, 10),
      txIds: [`many-${n + 1}`],
      description: 'Kauf',
      postings: [...debits, cr(CHART.bank, total.toFixed(2))],
    };
  });
}

/** Net (debit − credit) per account code of one entry, the fixture's own figures. */
export function netByAccount(entry: JournalEntry): Map<string, Big> {
  const net = new Map<string, Big>();
  for (const p of entry.postings) {
    const value = new Big(p.debit).minus(p.credit);
    net.set(p.account.code, (net.get(p.account.code) ?? new Big(0)).plus(value));
  }
  return net;
}

/** The entry's total debits. */
export function totalDebits(entry: JournalEntry): Big {
  return entry.postings.reduce((sum, p) => sum.plus(p.debit), new Big(0));
}
