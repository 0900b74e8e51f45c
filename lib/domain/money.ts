/**
 * Fiat money as an accountant reads it: every amount shown to its currency's minor unit (ISO 4217:
 * 2 for USD, EUR and GBP, 0 for JPY, 3 for KWD, …), rounded once, half to even.
 *
 * The minor units come from `currency-codes` (the ISO 4217 list, kept up to date by its authors).
 * A code that list does not know (a token symbol, a typo, an empty currency) has no minor unit:
 * its amounts keep the precision the service sent. So do the ISO codes whose minor unit is
 * "N.A." (precious metals, SDR, bond-market units, test and no-currency codes), which the package
 * lists with 0 digits but which have no smallest unit to round to.
 */
import { code } from 'currency-codes';
import { Big } from './decimal/index.ts';

/** ISO 4217 codes whose minor unit is "N.A." (`currency-codes` reports them as 0 digits). */
const NO_MINOR_UNIT = new Set([
  'XAG',
  'XAU',
  'XBA',
  'XBB',
  'XBC',
  'XBD',
  'XDR',
  'XPD',
  'XPT',
  'XSU',
  'XTS',
  'XUA',
  'XXX',
]);
const ISO_CODE = /^[A-Z]{3}$/;
const PLAIN = /^-?\d+(?:\.(\d+))?$/;

/**
 * The number of decimals of `currency`'s minor unit (`USD` → 2, `JPY` → 0), or null when the
 * code is not an ISO 4217 currency with a minor unit (then amounts keep their own precision).
 * Codes are matched as sent: upper-case three letters.
 */
export function minorUnit(currency: string | null): number | null {
  if (currency === null) return null;
  const known = minorUnits.get(currency);
  if (known !== undefined) return known;
  const digits =
    !ISO_CODE.test(currency) || NO_MINOR_UNIT.has(currency) ? null : (code(currency)?.digits ?? null);
  // Bounded: a hostile service could send a new "currency" with every transaction.
  if (minorUnits.size < MINOR_UNITS_KEPT) minorUnits.set(currency, digits);
  return digits;
}

/**
 * Minor units looked up so far. `currency-codes` searches its whole list on every call, which
 * cost ~0.4 s per 100k transactions (three amounts each, looked up twice) in a CPU profile.
 */
const minorUnits = new Map<string, number | null>();
const MINOR_UNITS_KEPT = 1_000;

/**
 * `amount` (a plain decimal string) shown to `currency`'s minor unit: padded with zeros or
 * rounded half to even (`2543.5` → `2543.50`, `0.125` → `0.12`, `-0.001` → `0.00` in USD).
 * An amount in a currency without a minor unit (see {@link minorUnit}) is returned unchanged.
 */
export function toMinorUnit(amount: string, currency: string | null): string {
  const digits = minorUnit(currency);
  if (digits === null) return amount;
  const match = PLAIN.exec(amount);
  const scale = match?.[1]?.length ?? 0;
  if (match !== null && scale === digits) return amount;
  if (match !== null && scale < digits) {
    return `${amount}${scale === 0 ? '.' : ''}${'0'.repeat(digits - scale)}`;
  }
  const text = new Big(amount).round(digits, Big.roundHalfEven).toFixed(digits);
  return /^-[0.]+$/.test(text) ? text.slice(1) : text;
}

/** {@link toMinorUnit} of a cell that may be empty. */
export function moneyCell(amount: string | null, currency: string | null): string | null {
  return amount === null ? null : toMinorUnit(amount, currency);
}

/**
 * The unit a money column's header names: the one currency of its rows (`USD`), or null when its
 * rows have several (or none, or amounts without a currency): then each row's currency column says.
 */
function soleCurrency(currencies: ReadonlySet<string>): string | null {
  if (currencies.size !== 1) return null;
  const [only] = currencies;
  return only === undefined || only === '' ? null : only;
}

/** A money column's header: `Value (USD)`, or `Value (in the row's currency)` when currencies mix. */
export function moneyHeader(base: string, currencies: ReadonlySet<string>): string {
  const currency = soleCurrency(currencies);
  return currency === null ? `${base} (in the row's currency)` : `${base} (${currency})`;
}
