import type { TableSpec } from '../../domain/index.ts';

/** The rounding of a run's money tables, as the manifest records it. */
export interface MoneyRounding {
  currency: string | null;
  /** Decimals of the currency's minor unit; null: amounts kept as computed. */
  minorUnit: number | null;
  rule: string;
  /** Report name → its file of exact figures (CSV only), or why there is none. */
  exact: Record<string, string>;
}

/**
 * The manifest's record of the tables whose money is rounded (`TableSpec.rounding`): their
 * currency and minor unit, the rule, and for each the CSV file with its exact figures (`fileOf`
 * names a table's CSV file; null when no CSV was written). Null when no table is rounded.
 */
export function moneyRounding(
  specs: readonly TableSpec[],
  fileOf: ((name: string) => string) | null,
): MoneyRounding | null {
  const rounded = specs.filter((spec) => spec.rounding !== undefined);
  const first = rounded[0]?.rounding;
  if (first === undefined) return null;
  const exact: Record<string, string> = {};
  for (const spec of rounded) {
    const companion = spec.rounding?.exact;
    if (companion === undefined) continue;
    exact[spec.name] =
      fileOf === null
        ? 'not written: the exact figures come as CSV, which was not asked for'
        : fileOf(companion);
  }
  return {
    currency: first.currency,
    minorUnit: first.minorUnit,
    rule: "each line rounded once, half to even, to the minor unit; every total is the sum of the rounded lines; a disposal's gain is its rounded proceeds minus its rounded cost",
    exact,
  };
}
