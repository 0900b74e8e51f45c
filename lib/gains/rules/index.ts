/**
 * The registry of jurisdiction rule sets (each a behaviour object in its own folder: generic, us,
 * uk, de; what one is: types.ts) and of the matching rules they bring. A request's `taxRules`
 * (CLI `--tax-rules`) names its rule set; its `method` and `pooling` name matching rules, which
 * any rule set allowing them may use. Everything outside this folder asks here (what a law
 * fixes, how far past the period the matching reads, which summary, forms and journal extras
 * apply) instead of comparing names. Sources: README.md in lib/gains.
 */
import { DateTime } from 'luxon';
import type { LotMethod, Pooling, TaxRules } from '../types.ts';
import { DE } from './de/index.ts';
import { GENERIC } from './generic/index.ts';
import type { Fixed, LotMethodRules, PoolingRules, RuleChoices, TaxRuleSet } from './types.ts';
import { UK } from './uk/index.ts';
import { US } from './us/index.ts';

export type * from './types.ts';

/** The rule sets built in, `generic` first (the default: nothing fixed). */
const BUILT_IN: readonly TaxRuleSet[] = [GENERIC, US, UK, DE];

/** Every built-in rule set's id, `generic` first (what a request may name). */
export const TAX_RULES: readonly TaxRules[] = BUILT_IN.map((set) => set.id);

const registered = new Map<TaxRules, TaxRuleSet>(BUILT_IN.map((set) => [set.id, set]));

/**
 * Adds a rule set to the registry (the engine then accepts its id as `taxRules`); returns the
 * function that removes it again. Its id must be new.
 */
export function registerTaxRuleSet(set: TaxRuleSet): () => void {
  if (registered.has(set.id)) throw new Error(`a rule set "${set.id}" is registered already`);
  registered.set(set.id, set);
  return () => {
    if (registered.get(set.id) === set) registered.delete(set.id);
  };
}

/** The ids of every registered rule set, in the order registered. */
export function taxRuleIds(): TaxRules[] {
  return [...registered.keys()];
}

/** The rule set of `id`, or `undefined` when none is registered. */
export function findRuleSet(id: string): TaxRuleSet | undefined {
  return registered.get(id);
}

/** The rule set of `id` (a registered one: see {@link findRuleSet}). */
export function ruleSet(id: TaxRules): TaxRuleSet {
  const found = registered.get(id);
  if (found === undefined) throw new Error(`no rule set "${id}" is registered`);
  return found;
}

/** The lot method of `name` among the registered rule sets' methods, or `undefined`. */
export function findLotMethod(name: string): LotMethodRules | undefined {
  for (const set of registered.values()) {
    const found = set.methods?.find((method) => method.name === name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The lot method of `name` (a valid one: see `LOT_METHODS`). */
export function lotMethod(name: LotMethod): LotMethodRules {
  const found = findLotMethod(name);
  if (found === undefined) throw new Error(`no rule set brings the lot method "${name}"`);
  return found;
}

/** The pooling of `name` (a valid one: see `POOLINGS`). */
export function poolingRules(name: Pooling): PoolingRules {
  for (const set of registered.values()) {
    const found = set.poolings?.find((pooling) => pooling.name === name);
    if (found !== undefined) return found;
  }
  throw new Error(`no rule set brings the pooling "${name}"`);
}

/** Every registered pooling, in the order registered. */
export function poolingRulesList(): PoolingRules[] {
  return [...registered.values()].flatMap((set) => set.poolings ?? []);
}

/** One choice a rule set refuses: the field and the law's reason. */
export interface RuleConflict {
  field: keyof RuleChoices;
  reason: string;
}

/**
 * The choices in `given` that rule set `name` refuses, and the choices that are invalid with any
 * rules (a lot method that allows some poolings only: HMRC identification pools universally).
 */
export function ruleConflicts(name: TaxRules, given: Partial<RuleChoices>): RuleConflict[] {
  const rules = ruleSet(name);
  const conflicts: RuleConflict[] = [];
  for (const field of ['method', 'pooling', 'taxYearStart', 'longTermYears'] as const) {
    const value = given[field];
    const fixed = rules.fixed[field] as Fixed<unknown> | undefined;
    if (value !== undefined && fixed !== undefined && !fixed.allowed.includes(value)) {
      conflicts.push({ field, reason: fixed.reason });
    }
  }
  const { method, pooling } = resolveChoices(name, given);
  const poolings = findLotMethod(method)?.poolings;
  if (conflicts.length === 0 && poolings !== undefined && !poolings.allowed.includes(pooling)) {
    conflicts.push({ field: 'pooling', reason: poolings.reason });
  }
  return conflicts;
}

/** The choices of a run: the given ones, else the rule set's defaults. */
export function resolveChoices(name: TaxRules, given: Partial<RuleChoices>): RuleChoices {
  const { defaults } = ruleSet(name);
  return {
    method: given.method ?? defaults.method,
    pooling: given.pooling ?? defaults.pooling,
    taxYearStart: given.taxYearStart ?? defaults.taxYearStart,
    longTermYears: given.longTermYears ?? defaults.longTermYears,
  };
}

/**
 * How far the history of a run matched by `method` must reach for a period ending at `periodEnd`
 * (exclusive): local midnight, in `timeZone` (the zone of the matching days), after the last of
 * the days past the period the method reads (the 30-day rule: 30); `null` when it reads none.
 */
export function readingHorizon(method: LotMethod, periodEnd: Date, timeZone: string): Date | null {
  const days = lotMethod(method).readsPastPeriod;
  if (days === 0) return null;
  const lastDay = DateTime.fromMillis(periodEnd.getTime() - 1, { zone: timeZone }).startOf('day');
  return lastDay.plus({ days: days + 1 }).toJSDate();
}

/**
 * Why request option `option` is refused with rule set `name`, when only other rule sets take it
 * (`brokerReporting`: us); `null` when it is allowed.
 */
export function ruleOptionProblem(name: TaxRules, option: string): string | null {
  if (takesOption(name, option)) return null;
  const takers = [...registered.values()].filter((set) => set.options?.[option] !== undefined);
  const why = takers[0]?.options?.[option]?.why;
  const names = takers.map((set) => `"${set.id}"`).join(' or ');
  return `only allowed with taxRules ${names}${why === undefined ? '' : `: ${why}`}`;
}

/** Whether rule set `name` takes request option `option` (us: `brokerReporting`). */
export function takesOption(name: TaxRules, option: string): boolean {
  return findRuleSet(name)?.options?.[option] !== undefined;
}
