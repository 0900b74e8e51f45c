/**
 * DATEV's Kurs from the run's ECB rates (no `eurRates` setting): every booking of a USD batch
 * carries the ECB's USD per 1 EUR of its booking day, or of the latest fixing before a day without
 * one (weekends, 1 January), and its Basis-Umsatz is the amount at that Kurs. The expected Kurs is
 * read from the file's own lines here, not through the project's rate lookup.
 */
import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { OUTSIDE_HISTORY, runJournal, WALLETS_HISTORY } from '../../../test/support/journal.ts';
import { readDatevBuchungsstapel } from '../../../test/support/ledger-parsers/datev.ts';
import { ValidationError } from '../../errors.ts';
import { loadRates } from '../../fx/index.ts';

const HISTORY = [...WALLETS_HISTORY, ...OUTSIDE_HISTORY].sort((a, b) => a.date.localeCompare(b.date));

/**
 * An ECB eurofxref-hist CSV with a fixing on Mondays and Thursdays from 2024-12-02 to `last` (so
 * most booking days have none and take the one before, at most 3 days back).
 */
function ecbFile(last: string): { text: string; usd: Map<string, string> } {
  const usd = new Map<string, string>();
  for (let ms = Date.parse('2024-12-02'); ms <= Date.parse(last); ms += 86_400_000) {
    const day = new Date(ms).toISOString().slice(0, 10);
    const weekday = new Date(ms).getUTCDay();
    if (weekday !== 1 && weekday !== 4) continue;
    // A different rate each day: 1.0 plus the day of the month and the month as decimals.
    usd.set(day, `1.${day.slice(5, 7)}${day.slice(8, 10)}`);
  }
  const lines = [...usd].reverse().map(([day, rate]) => `${day},${rate},0.8${day.slice(8, 10)},`);
  return { text: `Date,USD,GBP,\n${lines.join('\n')}\n`, usd };
}

/** The latest fixing at or before `day` in `usd`, found by walking back day by day. */
function fixingOn(usd: Map<string, string>, day: string): string {
  for (let ms = Date.parse(day); ; ms -= 86_400_000) {
    const rate = usd.get(new Date(ms).toISOString().slice(0, 10));
    if (rate !== undefined) return rate;
  }
}

const SETTINGS = { consultantNumber: 1001, clientNumber: 1, chartOfAccounts: 'SKR04' };

describe('DATEV Kurs from the ECB rates of the run', () => {
  it("gives every booking of a USD batch the ECB's USD per EUR of its day (the fixing before, on a day without one)", async () => {
    const { text, usd } = ecbFile('2025-12-31');
    const rates = loadRates([{ name: 'eurofxref-hist.csv', bytes: Buffer.from(text), source: 'ecb' }]);
    const run = await runJournal(
      HISTORY,
      { journal: { formats: ['csv', 'datev'], settings: { datev: SETTINGS } } },
      rates,
    );
    const read = readDatevBuchungsstapel(run.files[0]?.body as Uint8Array);
    expect(read.bookings.length).toBeGreaterThan(0);
    const days = new Set<string>();
    for (const b of read.bookings) {
      const day = `2025-${b.belegdatum.slice(2)}-${b.belegdatum.slice(0, 2)}`;
      days.add(day);
      expect(b.kurs).toBe(new Big(fixingOn(usd, day)).toFixed(6));
      expect(b.basisUmsatz).toBe(new Big(b.umsatz).div(b.kurs).round(2, Big.roundHalfUp).toFixed(2));
      expect(b.wkzBasisUmsatz).toBe('EUR');
    }
    // Most bookings fall on days without a fixing: they took the fixing before.
    expect([...days].filter((day) => !usd.has(day)).length).toBeGreaterThan(0);
  });

  it('takes the setting eurRates before the ECB rates, and refuses a booking day the ECB file does not reach', async () => {
    const { text } = ecbFile('2025-01-31');
    const rates = loadRates([{ name: 'eurofxref-hist.csv', bytes: Buffer.from(text), source: 'ecb' }]);
    const months = Object.fromEntries(
      Array.from({ length: 12 }, (_, m) => [`2025-${String(m + 1).padStart(2, '0')}`, '1.5']),
    );
    const withSetting = await runJournal(
      HISTORY,
      { journal: { formats: ['csv', 'datev'], settings: { datev: { ...SETTINGS, eurRates: months } } } },
      rates,
    );
    const read = readDatevBuchungsstapel(withSetting.files[0]?.body as Uint8Array);
    expect(new Set(read.bookings.map((b) => b.kurs))).toEqual(new Set(['1.500000']));
    const short = await runJournal(
      HISTORY,
      { journal: { formats: ['csv', 'datev'], settings: { datev: SETTINGS } } },
      rates,
    ).catch((error: unknown) => error);
    expect(short).toBeInstanceOf(ValidationError);
    // One message: the field once, the day and currency, why, and the entry that needed it.
    expect((short as ValidationError).field).toBe('gains.rates');
    expect((short as ValidationError).message).toMatch(
      /^gains\.rates: no rate for USD on (2025-\d\d-\d\d): the ECB rates given end on 2025-01-30 \(DATEV's Kurs of entry "[^"]+" of \1\)$/,
    );
  });
});
