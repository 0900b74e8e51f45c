/**
 * DATEV's Kurs (Buchungsstapel field 4) and Basis-Umsatz (field 5) of an amount in a foreign
 * currency. DATEV's format description (developer portal, Buchungsstapel): "Der
 * Fremdwährungskurs (WKZ-Umsatz : WKZ-Basisumsatz) bestimmt, wie der angegebene Umsatz, der in
 * Fremdwährung übergeben wird, in die Basiswährung umzurechnen ist", pattern
 * `^([1-9]\d{0,3}[,]\d{2,6})$`, "Der Wert 0 ist unzulässig"; Basis-Umsatz
 * `^(?!0{1,10}\,00)\d{1,10}\,\d{2}$`. So the Kurs is units of the foreign currency per 1 unit of
 * the Basiswährung (USD per EUR, as the ECB quotes it), Umsatz : Basis-Umsatz = Kurs, and a Kurs
 * is written from 1,00 to 9999,999999: one below 1 (GBP per EUR) cannot be written and is refused
 * with what to do instead. See docs/reference/ledger-formats.md "DATEV".
 */
import Big from 'big.js';
import { ValidationError } from '../../errors.ts';
import type { JournalEntry, LedgerFormatContext } from '../types.ts';

/** The Kurs of an entry: units of the journal's currency per 1 EUR on its booking day. */
export type Kurs = (item: { entry: JournalEntry }) => Big;

/** The lowest and the first too high Kurs DATEV's pattern `^([1-9]\d{0,3}[,]\d{2,6})$` takes. */
const LOWEST = new Big(1);
const TOO_HIGH = new Big(10_000);

/**
 * Where the Kurs comes from: the setting `eurRates` when given (the day's, else the month's;
 * refused naming the missing key), else the run's ECB rates (`context.eurRate`: the booking day's
 * fixing, or the latest before it on a day without one; refused naming the day when not covered).
 */
export function kursOf(
  settings: { eurRates?: Record<string, string> | undefined },
  context: LedgerFormatContext,
): Kurs {
  const { eurRates } = settings;
  const { eurRate, currency } = context;
  if (eurRates === undefined && eurRate !== undefined) {
    return (item) => {
      try {
        return new Big(eurRate(currency, item.entry.date).rate);
      } catch (error) {
        // The lookup's own reason (the day, the currency, why), named once by the request's field.
        const reason = error instanceof ValidationError ? error.reason : (error as Error).message;
        throw new ValidationError(
          'gains.rates',
          `${reason} (DATEV's Kurs of entry ${JSON.stringify(item.entry.id)} of ${item.entry.date})`,
          { cause: error },
        );
      }
    };
  }
  return (item) => {
    const day = item.entry.date;
    const rate = eurRates?.[day] ?? eurRates?.[day.slice(0, 7)];
    if (rate === undefined)
      throw new ValidationError(
        `journal.settings.datev.eurRates.${day.slice(0, 7)}`,
        `required: entry ${JSON.stringify(item.entry.id)} of ${day} needs the Kurs of its month (or day)`,
      );
    return new Big(rate);
  };
}

/**
 * The Kurs as written (6 decimals, half up) and the Basis-Umsatz: the amount divided by that
 * Kurs, to the cent, half up. Refused, naming the setting to change, when the Kurs falls outside
 * what DATEV's pattern takes (below 1: GBP, CHF per EUR) or the Basis-Umsatz rounds to 0,00.
 */
export function converted(
  item: { entry: JournalEntry; at: number },
  amount: Big,
  rate: Big,
  currency: string,
): { rate: Big; basis: Big } {
  const written = rate.round(6, Big.roundHalfUp);
  const { id, date } = item.entry;
  if (written.lt(LOWEST) || written.gte(TOO_HIGH))
    throw new ValidationError(
      'journal.settings.datev.baseCurrency',
      `entry ${JSON.stringify(id)} of ${date}: its Kurs, ${currency} per EUR, is ${written.toFixed()}, and DATEV's Buchungsstapel takes a Kurs from 1,00 to 9999,999999 (field 4, pattern ^([1-9]\\d{0,3}[,]\\d{2,6})$), so this amount cannot be booked in a EUR Mandant with its Kurs; for a Mandant kept in ${currency} set baseCurrency "${currency}" (no Kurs needed), or write the journal in EUR (gains.currency "EUR", CLI --gains-currency EUR with --rates ecb:FILE)`,
    );
  const basis = amount.div(written).round(2, Big.roundHalfUp);
  if (basis.eq(0))
    throw new ValidationError(
      `entries[${item.at}].postings`,
      `${amount.toFixed(2)} ${currency} at the Kurs ${written.toFixed()} is less than half a cent in EUR, and DATEV takes no Basis-Umsatz of 0,00 (field 5)`,
    );
  return { rate: written, basis };
}
