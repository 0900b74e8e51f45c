/**
 * Money an accountant can add up: each line of the gains reports is rounded once, half to even,
 * to its currency's minor unit (ISO 4217, see `toMinorUnit`), and every total is the sum of the
 * rounded lines. A disposal line's gain is the rounded proceeds minus the rounded cost, so
 * `gain = proceeds − cost` holds on every line as shown (rounding the exact gain instead could
 * differ by a cent). The exact figures stay in the `_exact` companion tables.
 */
import { Big, moneyHeader, text, toMinorUnit } from '../domain/index.ts';
import type { DisposalLine, IncomeLine } from './types.ts';

/** How the gains reports show money: the currency whose minor unit they round to. */
export interface GainsMoney {
  /** The currency of the reports (the first value currency of the history); null when unknown. */
  currency: string | null;
  /** An amount as shown: rounded half to even to the minor unit, or as it is without one. */
  show(amount: string): string;
  /** {@link GainsMoney.show} of an exact decimal (a plain function: it may be passed around unbound). */
  showBig(amount: Big): string;
  /** A money column's header with its unit: `Proceeds (USD)`, or `Proceeds` without a currency. */
  header(base: string): string;
}

/** The money of gains reports in `currency` (null: amounts as they are, headers without a unit). */
export function gainsMoney(currency: string | null): GainsMoney {
  return {
    currency,
    show: (amount) => toMinorUnit(amount, currency),
    showBig: (amount) => toMinorUnit(text(amount), currency),
    header: (base) => (currency === null ? base : moneyHeader(base, new Set([currency]))),
  };
}

/** The exact figures, unrounded: what the `_exact` companion tables show. */
export const EXACT_MONEY: GainsMoney = gainsMoney(null);

/**
 * `line` as the reports show it: proceeds and cost rounded once to the minor unit, the gain their
 * difference (so it too is exact at the minor unit). A line already at the minor unit is returned
 * as it is.
 */
export function roundDisposal(line: DisposalLine, money: GainsMoney): DisposalLine {
  const proceeds = money.show(line.proceeds);
  const cost = money.show(line.cost);
  // A gain of amounts already at the minor unit may still lack its decimals (`310590`).
  if (proceeds === line.proceeds && cost === line.cost && money.show(line.gain) === line.gain) return line;
  return { ...line, proceeds, cost, gain: money.showBig(new Big(proceeds).minus(cost)) };
}

/** `line` with its value (and its expenses, when it has them) rounded once to the minor unit. */
export function roundIncome(line: IncomeLine, money: GainsMoney): IncomeLine {
  const value = money.show(line.value);
  const expenses = line.expenses === undefined ? undefined : money.show(line.expenses);
  if (value === line.value && expenses === line.expenses) return line;
  return { ...line, value, ...(expenses === undefined ? {} : { expenses }) };
}
