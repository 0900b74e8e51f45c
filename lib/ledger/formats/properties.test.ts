import Big from 'big.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CHART, cr, dr, netByAccount } from '../../../test/support/ledger-fixtures.ts';
import { readDatevBuchungsstapel } from '../../../test/support/ledger-parsers/datev.ts';
import { readQuickbooksJournals } from '../../../test/support/ledger-parsers/quickbooks.ts';
import { readXeroManualJournals } from '../../../test/support/ledger-parsers/xero.ts';
import type { JournalEntry, LedgerFormatContext } from '../types.ts';
import { createDatevFormat } from './datev.ts';
import { quickbooksFormat } from './quickbooks.ts';
import { xeroFormat } from './xero.ts';

const RUNS = { numRuns: 60 };
const ACCOUNTS = Object.values(CHART);
const cents = (n: number) => new Big(n).div(100).toFixed(2);

/** A balanced entry: debits of random cents, their total cut into random credits (some may be 0). */
const entryArb = (id: number) =>
  fc
    .record({
      debits: fc.array(fc.tuple(fc.nat(ACCOUNTS.length - 1), fc.integer({ min: 1, max: 10_000_000_000 })), {
        minLength: 1,
        maxLength: 6,
      }),
      credits: fc.array(fc.tuple(fc.nat(ACCOUNTS.length - 1), fc.integer({ min: 1, max: 1000 })), {
        minLength: 1,
        maxLength: 6,
      }),
      day: fc.integer({ min: 1, max: 31 }),
    })
    .map(({ debits, credits, day }): JournalEntry => {
      const total = debits.reduce((sum, [, c]) => sum + c, 0);
      const weight = credits.reduce((sum, [, w]) => sum + w, 0);
      let left = total;
      const creditCents = credits.map(([, w], i) => {
        const part = i === credits.length - 1 ? left : Math.floor((total * w) / weight);
        left -= part;
        return part;
      });
      return {
        id: `e${id}`,
        date: `2024-01-${String(day).padStart(2, '0')}`,
        txIds: [`t${id}`],
        description: `Eintrag ${id}`,
        postings: [
          ...debits.map(([a, c]) => dr(ACCOUNTS[a] as (typeof ACCOUNTS)[number], cents(c))),
          ...credits.map(([a], i) =>
            cr(ACCOUNTS[a] as (typeof ACCOUNTS)[number], cents(creditCents[i] as number)),
          ),
        ],
      };
    });

const entriesArb = fc
  .integer({ min: 0, max: 25 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, i) => entryArb(i + 1))));

const context = (settings: Record<string, unknown>): LedgerFormatContext => ({
  currency: 'EUR',
  period: { start: '2024-01-01', end: '2024-01-31' },
  settings,
});

const nonZero = (net: Map<string, Big>) =>
  [...net]
    .filter(([, v]) => !v.eq(0))
    .map(([k, v]) => `${k}:${v.toFixed(2)}`)
    .sort();

describe('ledger formats of accounting products, on random balanced entries', () => {
  it('DATEV: every entry’s accounts net to their postings with at most debits + credits − 1 booking lines', () => {
    const datev = createDatevFormat({ now: () => new Date('2024-02-01T00:00:00Z') });
    fc.assert(
      fc.property(entriesArb, (entries) => {
        const [file] = datev.files(entries, context({ consultantNumber: 1001, clientNumber: 1 }));
        const read = readDatevBuchungsstapel(file?.body as Uint8Array);
        for (const entry of entries) {
          const lines = read.bookings.filter((b) => b.byName.get('Beleginfo - Inhalt 1') === entry.id);
          const net = new Map<string, Big>();
          for (const b of lines) {
            const signed = new Big(b.umsatz).times(b.sollHaben === 'S' ? 1 : -1);
            net.set(b.konto, (net.get(b.konto) ?? new Big(0)).plus(signed));
            net.set(b.gegenkonto, (net.get(b.gegenkonto) ?? new Big(0)).minus(signed));
          }
          expect(nonZero(net)).toEqual(nonZero(netByAccount(entry)));
          const sides = entry.postings.filter((p) => !new Big(p.debit).plus(p.credit).eq(0)).length;
          expect(lines.length).toBeLessThanOrEqual(Math.max(0, sides - 1));
        }
      }),
      RUNS,
    );
  });

  it('Xero: files under the limit, whole entries, each summing to zero, all lines kept', () => {
    fc.assert(
      fc.property(entriesArb, fc.integer({ min: 12, max: 300 }), (entries, limit) => {
        const files = xeroFormat.files(entries, context({ maxLinesPerFile: limit }));
        const read = files.map((f) => readXeroManualJournals(f.body as string));
        const seen = new Set<string>();
        for (const file of read) {
          expect(file.lineCount).toBeLessThanOrEqual(limit);
          for (const journal of file.journals) {
            expect(seen.has(journal.narration)).toBe(false);
            seen.add(journal.narration);
            expect(journal.lines.reduce((s, l) => s.plus(l.amount), new Big(0)).eq(0)).toBe(true);
          }
        }
        const nonZeroPostings = entries
          .flatMap((e) => e.postings)
          .filter((p) => !new Big(p.debit).plus(p.credit).eq(0));
        expect(read.reduce((n, f) => n + f.lineCount, 0)).toBe(nonZeroPostings.length);
      }),
      RUNS,
    );
  });

  it('QuickBooks: each journal number’s debits equal its credits and the entry’s total', () => {
    fc.assert(
      fc.property(entriesArb, (entries) => {
        const files = quickbooksFormat.files(entries, context({}));
        expect(files).toHaveLength(entries.length === 0 ? 0 : 1);
        if (files.length === 0) return;
        const journals = readQuickbooksJournals(files[0]?.body as string, 'MM/DD/YYYY');
        const withLines = entries.filter((e) =>
          e.postings.some((p) => !new Big(p.debit).plus(p.credit).eq(0)),
        );
        expect(journals).toHaveLength(withLines.length);
        journals.forEach((journal, i) => {
          const debits = journal.lines.reduce((s, l) => s.plus(l.debit || 0), new Big(0));
          const credits = journal.lines.reduce((s, l) => s.plus(l.credit || 0), new Big(0));
          expect(debits.eq(credits)).toBe(true);
          const entry = withLines[i] as JournalEntry;
          expect(debits.eq(entry.postings.reduce((s, p) => s.plus(p.debit), new Big(0)))).toBe(true);
        });
      }),
      RUNS,
    );
  });
});
