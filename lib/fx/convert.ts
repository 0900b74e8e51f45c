/**
 * Amounts converted between currencies at a table's published rates, through its base (cross
 * rates): `amount × (to per base) ÷ (from per base)`. The rates stay exactly as published; the one
 * division is rounded once, half to even, at {@link CONVERSION_SCALE} decimal places (as the gains
 * engine's own divisions are); amounts are rounded to the cent only where a report shows them.
 */
import { Big, mulDiv, text } from '../domain/index.ts';
import { lookupRate, type RateQuote, type RateTable } from './table.ts';

/** Decimal places of a converted amount (the division's one rounding, half to even). */
export const CONVERSION_SCALE = 18;

/** The rates that convert `from` into `to` on one day. */
export interface Conversion {
  from: RateQuote;
  to: RateQuote;
  /** The day looked up (`YYYY-MM-DD`). */
  day: string;
}

/**
 * The rates converting `from` into `to` on `day`. Throws `MissingRateError` (naming the day and
 * the currency) when the table has no rate for either.
 */
export function conversionOn(table: RateTable, from: string, to: string, day: string): Conversion {
  return { from: lookupRate(table, from, day), to: lookupRate(table, to, day), day };
}

/** `amount` (exact decimal text) converted: `amount × to.perBase ÷ from.perBase`, see {@link CONVERSION_SCALE}. */
export function convertAmount(amount: string, conversion: Conversion): string {
  if (conversion.from.currency === conversion.to.currency) return amount;
  return text(
    mulDiv(
      new Big(amount),
      new Big(conversion.to.perBase),
      new Big(conversion.from.perBase),
      CONVERSION_SCALE,
    ),
  );
}

/** Units of `to` per 1 unit of `from`, for people reading the conversions (amounts use {@link convertAmount}). */
export function crossRate(conversion: Conversion): string {
  return convertAmount('1', conversion);
}
