import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { CHART, cr, dr, JANUARY, manyEntries, netByAccount } from '../../../test/support/ledger-fixtures.ts';
import {
  readXeroManualJournals,
  XERO_DOCUMENTED_LINE_LIMIT,
  type XeroFile,
} from '../../../test/support/ledger-parsers/xero.ts';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, LedgerFile, LedgerFormatContext } from '../types.ts';
import { xeroFormat } from './xero.ts';

const context = (settings: Record<string, unknown> = {}): LedgerFormatContext => ({
  currency: 'EUR',
  period: { start: '2024-01-01', end: '2024-12-31' },
  settings,
});

const write = (entries: readonly JournalEntry[], settings: Record<string, unknown> = {}): LedgerFile[] =>
  xeroFormat.files(entries, context(settings));

const read = (files: LedgerFile[]): XeroFile[] =>
  files.map((file) => readXeroManualJournals(file.body as string));

/** Each journal's net per account code, keyed by the narration's entry id. */
function journalsById(
  files: XeroFile[],
): Map<string, { file: number; net: Map<string, Big>; sum: Big; date: string }> {
  const found = new Map<string, { file: number; net: Map<string, Big>; sum: Big; date: string }>();
  files.forEach((file, n) => {
    for (const journal of file.journals) {
      const id = /\[([^\]]+)\]$/.exec(journal.narration)?.[1] as string;
      expect(found.has(id), `entry ${id} in two files or twice`).toBe(false);
      const net = new Map<string, Big>();
      for (const line of journal.lines) {
        net.set(line.accountCode, (net.get(line.accountCode) ?? new Big(0)).plus(line.amount));
      }
      const sum = journal.lines.reduce((s, l) => s.plus(l.amount), new Big(0));
      found.set(id, { file: n, net, sum, date: journal.date });
    }
  });
  return found;
}

describe('Xero manual journal import', () => {
  it('reads back one journal per entry, summing to zero, each account’s signed amounts equal to the entry’s postings', () => {
    const files = write(JANUARY);
    expect(files.map((f) => f.name)).toEqual(['journal-xero-1.csv']);
    const journals = journalsById(read(files));
    expect(journals.size).toBe(JANUARY.length);
    for (const entry of JANUARY) {
      const journal = journals.get(entry.id);
      expect(journal?.sum.eq(0), entry.id).toBe(true);
      expect(journal?.date).toBe(entry.date);
      const expected = netByAccount(entry);
      expect([...(journal?.net.keys() ?? [])].sort()).toEqual([...expected.keys()].sort());
      for (const [code, net] of expected)
        expect(journal?.net.get(code)?.eq(net), `${entry.id} ${code}`).toBe(true);
    }
  });

  it('splits many entries into files of at most 300 lines, never an entry across two files, all lines kept', () => {
    // Seven lines an entry: 300 is not a multiple of 7, so a split at exactly 300 rows would cut one.
    const entries = manyEntries(100, 7);
    const files = write(entries);
    expect(files.map((f) => f.name)).toEqual([
      'journal-xero-1.csv',
      'journal-xero-2.csv',
      'journal-xero-3.csv',
    ]);
    const read_ = read(files);
    for (const file of read_) expect(file.lineCount).toBeLessThanOrEqual(XERO_DOCUMENTED_LINE_LIMIT);
    expect(read_.reduce((n, f) => n + f.lineCount, 0)).toBe(700);
    const journals = journalsById(read_);
    expect(journals.size).toBe(100);
    for (const entry of entries) {
      const journal = journals.get(entry.id);
      expect(journal?.sum.eq(0), entry.id).toBe(true);
      expect(journal?.net.get(CHART.bank.code)?.eq(netByAccount(entry).get(CHART.bank.code) as Big)).toBe(
        true,
      );
    }
    // Files are filled in entry order: the first holds as many whole entries as fit.
    expect(read_[0]?.lineCount).toBe(Math.floor(300 / 7) * 7);
  });

  it('honours a smaller line limit and refuses an entry longer than it, by field', () => {
    const files = write(manyEntries(5, 4), { maxLinesPerFile: 10 });
    expect(files).toHaveLength(3);
    expect(read(files).map((f) => f.lineCount)).toEqual([8, 8, 4]);
    const refused = (() => {
      try {
        write(manyEntries(2, 12), { maxLinesPerFile: 10 });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).field).toBe('entries[0].postings');
  });

  it('keeps the template’s columns, dd/mm/yyyy dates, the tax rate and tracking on every line, and text intact in a csv-parse read-back', () => {
    const [file] = write(JANUARY, { taxRate: 'No VAT', tracking: { name: 'Source', option: 'Crypto' } });
    const rows: Record<string, string>[] = parse(file?.body as string, { columns: true });
    expect(Object.keys(rows[0] ?? {})).toEqual([
      '*Narration',
      '*Date',
      'Description',
      '*AccountCode',
      '*TaxRate',
      '*Amount',
      'TrackingName1',
      'TrackingOption1',
      'TrackingName2',
      'TrackingOption2',
    ]);
    expect(
      rows.every(
        (r) => r['*TaxRate'] === 'No VAT' && r.TrackingName1 === 'Source' && r.TrackingOption1 === 'Crypto',
      ),
    ).toBe(true);
    expect(rows[0]).toMatchObject({
      '*Date': '03/01/2024',
      '*AccountCode': '1510',
      '*Amount': '20000.00',
      Description: 'Digital assets:BTC · 0.5 BTC · tx buy-1',
    });
    expect(rows[1]?.['*Amount']).toBe('-20000.00');
    const staking = rows.find((r) => r['*Narration']?.includes('tx:stake-1'));
    expect(staking?.['*Narration']).toBe(
      'Staking-Ertrag für "Müller & Söhne", Straße ÄÖÜ ß – 5 € Bonus [tx:stake-1]',
    );
    const move = rows.find((r) => r['*Narration']?.includes('tx:move-1'));
    expect(move?.['*Narration']?.startsWith("'=SUM(A1)")).toBe(true);
  });

  it('keeps two entries of one day with the same description as two journals (the id makes the narration unique)', () => {
    const twin = (id: string): JournalEntry => ({
      id,
      date: '2024-02-02',
      txIds: [id],
      description: 'Kauf',
      postings: [dr(CHART.btc, '1.00'), cr(CHART.bank, '1.00')],
    });
    const [file] = read(write([twin('a'), twin('b')]));
    expect(file?.journals).toHaveLength(2);
  });

  it('writes no file when there is nothing to post, and refuses bad settings and codes by field', () => {
    expect(write([])).toEqual([]);
    const field = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        return (error as ValidationError).field;
      }
      return 'not refused';
    };
    expect(field(() => write(JANUARY, { maxLinesPerFile: 301 }))).toBe(
      'journal.settings.xero.maxLinesPerFile',
    );
    expect(field(() => write(JANUARY, { taxRate: ' ' }))).toBe('journal.settings.xero.taxRate');
    expect(field(() => write(JANUARY, { tracking: { name: 'Source' } }))).toBe(
      'journal.settings.xero.tracking.option',
    );
    const blank = { ...CHART.bank, code: '' };
    const entry: JournalEntry = {
      ...(JANUARY[0] as JournalEntry),
      postings: [dr(CHART.btc, '1.00'), cr(blank, '1.00')],
    };
    expect(field(() => write([entry]))).toBe('journal.chart.cash.code');
  });
});
