/**
 * DATEV's fields 4–6 as the portal's Buchungsstapel description gives them, read back by the
 * reader written from it (test/support/ledger-parsers/datev.ts): the Kurs in the documented
 * pattern (units of the foreign currency per 1 EUR, "WKZ-Umsatz : WKZ-Basisumsatz"), the
 * Basis-Umsatz the Umsatz divided by that Kurs to the cent; a Kurs the pattern cannot hold (GBP
 * per EUR, below 1) refused naming baseCurrency; a Mandant kept in GBP books GBP without a Kurs.
 */
import { describe, expect, it } from 'vitest';
import { JANUARY } from '../../../test/support/ledger-fixtures.ts';
import { DOCUMENTED_KURS, readDatevBuchungsstapel } from '../../../test/support/ledger-parsers/datev.ts';
import { ValidationError } from '../../errors.ts';
import type { LedgerFile, LedgerFormatContext } from '../types.ts';
import { createDatevFormat } from './datev.ts';

const NUMBERS = { consultantNumber: 29098, clientNumber: 55003 };
const datev = createDatevFormat({ now: () => new Date('2024-02-01T09:30:15.250Z') });
const PERIOD = { start: '2024-01-01', end: '2024-01-31' };

const write = (
  currency: string,
  settings: Record<string, unknown>,
  extra: Partial<LedgerFormatContext> = {},
) => datev.files(JANUARY, { currency, period: PERIOD, settings: { ...NUMBERS, ...settings }, ...extra });

const body = (files: LedgerFile[]): Uint8Array => files[0]?.body as Uint8Array;

function refused(fn: () => unknown): ValidationError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('not refused');
}

describe('DATEV Kurs, Basis-Umsatz and WKZ Basis-Umsatz (fields 4–6)', () => {
  it('writes a USD batch in the documented pattern, the Basis-Umsatz from the Kurs as written, to the cent', () => {
    // An ECB-like rate with more decimals than DATEV's 6: written 1,082500 and converted at that.
    const eurRate = () => ({ rate: '1.08249951', of: '2024-01-03' });
    const read = readDatevBuchungsstapel(body(write('USD', {}, { eurRate })));
    expect(read.header.fieldCount).toBe(31);
    expect(read.columns).toHaveLength(125);
    expect(read.bookings.length).toBeGreaterThan(0);
    for (const b of read.bookings) {
      expect(b.byName.get('Kurs')).toMatch(DOCUMENTED_KURS);
      expect(b.byName.get('Kurs')).toBe('1,082500');
      expect(b.wkzBasisUmsatz).toBe('EUR');
    }
    // By hand: 20 000.00 USD ÷ 1.0825 = 18 475.7505… EUR; 10.00 ÷ 1.0825 = 9.2378… EUR.
    const basis = (umsatz: string) => read.bookings.find((b) => b.umsatz === umsatz)?.basisUmsatz;
    expect(basis('20000.00')).toBe('18475.75');
    expect(basis('10.00')).toBe('9.24');
  });

  it('refuses a GBP batch for a EUR Mandant: GBP per EUR is below 1, which field 4 cannot hold', () => {
    const error = refused(() => write('GBP', { eurRates: { '2024-01': '0.8465' } }));
    expect(error.field).toBe('journal.settings.datev.baseCurrency');
    expect(error.message).toMatch(/GBP per EUR, is 0\.8465.*from 1,00 to 9999,999999.*baseCurrency "GBP"/);
  });

  it('refuses a USD Kurs below 1 (USD per EUR in late 2022) the same way', () => {
    const error = refused(() => write('USD', { eurRates: { '2024-01': '0.9700' } }));
    expect(error.field).toBe('journal.settings.datev.baseCurrency');
  });

  it('refuses an amount whose Basis-Umsatz would be 0,00, which field 5 does not take', () => {
    const error = refused(() => write('JPY', { eurRates: { '2024-01': '9999' } }));
    expect(error.field).toMatch(/^entries\[\d+\]\.postings$/);
    expect(error.message).toMatch(/less than half a cent in EUR/);
  });

  it('books GBP without a Kurs for a Mandant kept in GBP, needing no rates', () => {
    const files = write('GBP', { baseCurrency: 'GBP' });
    const read = readDatevBuchungsstapel(body(files), { baseCurrency: 'GBP' });
    expect(read.header.wkz).toBe('GBP');
    for (const b of read.bookings) {
      expect([b.wkzUmsatz, b.kurs, b.basisUmsatz, b.wkzBasisUmsatz]).toEqual(['GBP', '', '', '']);
    }
    // Read as a EUR Mandant's file, the same lines lack fields 4–6.
    expect(() => readDatevBuchungsstapel(body(files))).toThrow(/Kurs/);
  });

  it('refuses a journal in neither EUR nor the Basiswährung, and a GBP journal without a source of Kurse, naming baseCurrency', () => {
    expect(refused(() => write('USD', { baseCurrency: 'GBP' })).field).toBe(
      'journal.settings.datev.baseCurrency',
    );
    const missing = refused(() => write('GBP', {}));
    expect(missing.field).toBe('journal.settings.datev.eurRates');
    expect(missing.message).toMatch(/baseCurrency "GBP"/);
  });
});
