import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { leg, tx } from '../../../test/support/gains.ts';
import { runJournal } from '../../../test/support/journal.ts';
import { CHART, cr, dr, JANUARY, totalDebits } from '../../../test/support/ledger-fixtures.ts';
import {
  quickbooksAccountPath,
  readQuickbooksJournals,
} from '../../../test/support/ledger-parsers/quickbooks.ts';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, LedgerFormatContext } from '../types.ts';
import { quickbooksFormat } from './quickbooks.ts';

const context = (settings: Record<string, unknown> = {}): LedgerFormatContext => ({
  currency: 'EUR',
  period: { start: '2024-01-01', end: '2024-01-31' },
  settings,
});

function only(entries: readonly JournalEntry[], settings: Record<string, unknown> = {}): string {
  const files = quickbooksFormat.files(entries, context(settings));
  expect(files).toHaveLength(1);
  expect(files[0]?.name).toBe('journal-quickbooks.csv');
  return files[0]?.body as string;
}

describe('QuickBooks Online journal entry import', () => {
  it('reads back, by a reader written from Intuit’s help, one journal number per entry whose debits equal its credits and the entry’s total', () => {
    const journals = readQuickbooksJournals(only(JANUARY), 'MM/DD/YYYY');
    expect(journals).toHaveLength(JANUARY.length);
    expect(new Set(journals.map((j) => j.journalNo)).size).toBe(JANUARY.length);
    journals.forEach((journal, i) => {
      const entry = JANUARY[i] as JournalEntry;
      expect(journal.date).toBe(entry.date);
      const debits = journal.lines.reduce((sum, l) => sum.plus(l.debit || 0), new Big(0));
      const credits = journal.lines.reduce((sum, l) => sum.plus(l.credit || 0), new Big(0));
      expect(debits.eq(credits), journal.journalNo).toBe(true);
      expect(debits.eq(totalDebits(entry)), journal.journalNo).toBe(true);
      // Each posting is one line, on its account by name, on its side.
      expect(journal.lines.map((l) => [l.account, l.debit, l.credit])).toEqual(
        entry.postings.map((p) => [
          p.account.name,
          p.debit === '0' ? '' : p.debit,
          p.credit === '0' ? '' : p.credit,
        ]),
      );
      expect(journal.lines.every((l) => l.currency === 'EUR' && l.name === '')).toBe(true);
    });
  });

  it('keeps umlauts, quotes and commas of a description, guards a leading "=" and flattens line breaks, in a csv-parse read-back', () => {
    const body = only(JANUARY);
    const rows: Record<string, string>[] = parse(body, { columns: true, bom: true });
    expect(Object.keys(rows[0] ?? {})).toEqual([
      'JournalNo',
      'JournalDate',
      'AccountName',
      'Debits',
      'Credits',
      'Description',
      'Name',
      'Currency',
    ]);
    expect(rows).toHaveLength(JANUARY.reduce((n, e) => n + e.postings.length, 0));
    const staking = rows.filter((r) => r.Description?.includes('Staking'));
    expect(staking[0]?.Description).toBe(
      'Staking-Ertrag für "Müller & Söhne", Straße ÄÖÜ ß – 5 € Bonus [tx:stake-1]',
    );
    const move = rows.find((r) => r.Description?.includes('[tx:move-1]'));
    expect(move?.Description?.startsWith("'=SUM(A1) Übertrag")).toBe(true);
    expect(move?.Description).not.toMatch(/[\r\n]/);
    expect(move?.Description).toContain('zweite Zeile 🚀');
    expect(body.endsWith('\r\n')).toBe(true);
    expect(body.replaceAll('\r\n', '')).not.toMatch(/\n/);
  });

  it('writes dates as MM/DD/YYYY by default and DD/MM/YYYY when the company uses it; journal numbers fit QuickBooks’ 21 characters', () => {
    const us = parse(only(JANUARY.slice(0, 1)), { columns: true }) as Record<string, string>[];
    expect(us[0]?.JournalDate).toBe('01/03/2024');
    expect(us[0]?.JournalNo).toBe('PBS20240101-0001');
    const uk = parse(only(JANUARY.slice(0, 1), { dateFormat: 'DD/MM/YYYY', journalNoPrefix: 'JAN-' }), {
      columns: true,
    }) as Record<string, string>[];
    expect(uk[0]?.JournalDate).toBe('03/01/2024');
    expect(uk[0]?.JournalNo).toBe('JAN-0001');
    expect(readQuickbooksJournals(only(JANUARY, { dateFormat: 'DD/MM/YYYY' }), 'DD/MM/YYYY')[1]?.date).toBe(
      '2024-01-15',
    );
  });

  it('pads amounts to the currency’s minor unit and never rounds them', () => {
    const entry: JournalEntry = {
      id: 'e',
      date: '2024-01-05',
      txIds: [],
      description: 'x',
      postings: [dr(CHART.btc, '12.5'), cr(CHART.bank, '12.5')],
    };
    const rows = parse(only([entry]), { columns: true }) as Record<string, string>[];
    expect(rows.map((r) => [r.Debits, r.Credits])).toEqual([
      ['12.50', ''],
      ['', '12.50'],
    ]);
  });

  it('writes no file when there is nothing to post', () => {
    expect(quickbooksFormat.files([], context())).toEqual([]);
  });

  it('refuses bad settings and unbalanced entries by field', () => {
    const refusal = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).field;
      }
      throw new Error('not refused');
    };
    expect(refusal(() => only(JANUARY, { dateFormat: 'YYYY-MM-DD' }))).toBe(
      'journal.settings.quickbooks.dateFormat',
    );
    expect(refusal(() => only(JANUARY, { journalNoPrefix: 'a prefix that is far too long' }))).toBe(
      'journal.settings.quickbooks.journalNoPrefix',
    );
    expect(refusal(() => only(JANUARY, { colour: 'blue' }))).toBe('journal.settings.quickbooks.colour');
    const unbalanced: JournalEntry = {
      ...(JANUARY[0] as JournalEntry),
      postings: [dr(CHART.btc, '1.00'), cr(CHART.bank, '0.99')],
    };
    expect(refusal(() => only([JANUARY[1] as JournalEntry, unbalanced]))).toBe('entries[1]');
    const both: JournalEntry = { ...unbalanced, postings: [{ ...dr(CHART.btc, '1.00'), credit: '1.00' }] };
    expect(refusal(() => only([both]))).toBe('entries[0].postings[0]');
  });

  it("keeps a ':' of a wallet id or token symbol inside its account's own name, read as QuickBooks splits Parent:Sub, the chart's own ':' marking the sub-accounts", async () => {
    const wallets = ['x:y', 'x-y', 'a:b:c', ':', 'plain'];
    const tokens = ['LP:ETH', 'LP-ETH'];
    const history = wallets.flatMap((wallet, w) =>
      tokens.map((token, t) =>
        tx({
          id: `buy-${w}-${t}`,
          date: new Date(Date.parse('2025-01-02T00:00:00.000Z') + (w * 2 + t) * 60_000).toISOString(),
          accountId: wallet,
          movements: [leg(token, String(w + 1), String(10 * (t + 1)))],
        }),
      ),
    );
    const named = (code: string, name: string) => ({ code, name });
    const run = await runJournal(history, {
      gains: { pooling: 'account' },
      journal: {
        formats: ['csv', 'quickbooks'],
        chart: {
          defaults: 'none',
          // A chart's own sub-account: Digital assets under Crypto.
          asset: { ...named('1500', 'Crypto:Digital assets'), perWallet: true },
          cash: named('1200', 'Bank'),
          fee: named('4970', 'Fees'),
          gain: named('4900', 'Gains'),
          loss: named('6900', 'Losses'),
          income: named('4800', 'Income'),
          opening: named('9000', 'Opening'),
          rounding: named('6990', 'Rounding'),
          unclassified: named('1590', 'Unclassified'),
          'transfer-out': named('1591', 'Transfers out'),
        },
      },
    });
    const file = run.files.find((f) => f.name === 'journal-quickbooks.csv');

    const paths = readQuickbooksJournals(file?.body as string, 'MM/DD/YYYY')
      .flatMap((j) => j.lines.map((l) => quickbooksAccountPath(l.account)))
      .filter((path) => path[0] === 'Crypto');
    const accounts = new Set(paths.map((path) => JSON.stringify(path).toLowerCase()));
    // Each wallet's each token: an account of its own, two levels under the chart's Crypto:Digital assets.
    expect(accounts.size).toBe(wallets.length * tokens.length);
    for (const path of paths) expect(path.slice(0, 2)).toEqual(['Crypto', 'Digital assets']);
    for (const path of paths) expect(path).toHaveLength(3);
  });
});
