/**
 * The gains engine's options: the rule set and the defaults applied, validated; and what follows
 * from them for the event adapter and for the coverage of the tax years.
 */
import { IANAZone } from 'luxon';
import { ValidationError } from '../errors.ts';
import type { CoverageOptions } from './coverage.ts';
import type { AdapterOptions } from './event-options.ts';
import { findRuleSet, lotMethod, resolveChoices, ruleConflicts, ruleSet, taxRuleIds } from './rules/index.ts';
import { validTaxYearStart } from './tax-year.ts';
import type { GainsOptions, ResolvedGainsOptions, TaxYearStart } from './types.ts';
import { LOT_METHODS, POOLINGS as POOLING_NAMES, WALLET_ALLOCATIONS } from './types.ts';

/** `a, b, c or d`. */
const orList = (names: readonly string[]) =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1)}`;
const METHODS: ReadonlySet<string> = new Set(LOT_METHODS);
const POOLINGS: ReadonlySet<string> = new Set(POOLING_NAMES);
const ALLOCATIONS: ReadonlySet<string> = new Set(WALLET_ALLOCATIONS);
const ROUNDINGS = new Set(['half-even', 'half-up']);

function instantOption(field: string, value: string | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ValidationError(field, `is not an ISO instant: ${JSON.stringify(value)}`);
  return ms;
}

const monthDay = (start: TaxYearStart) =>
  `${String(start.month).padStart(2, '0')}-${String(start.day).padStart(2, '0')}`;

/**
 * Applies the rule set and the defaults, and validates the options. A rule set refuses a choice
 * its law contradicts ({@link ValidationError} naming the option and the law's reason) and fixes
 * the zone of its days and its rounding.
 */
export function resolveGainsOptions(options: GainsOptions = {}): ResolvedGainsOptions {
  const taxRules = options.taxRules ?? 'generic';
  if (findRuleSet(taxRules) === undefined)
    throw new ValidationError('taxRules', `must be ${orList(taxRuleIds())}`);
  const rules = ruleSet(taxRules);
  const given = {
    method: options.method,
    pooling: options.pooling,
    taxYearStart: options.taxYearStart === undefined ? undefined : monthDay(options.taxYearStart),
    longTermYears: options.longTermYears,
  };
  const [conflict] = ruleConflicts(taxRules, given);
  if (conflict !== undefined) throw new ValidationError(conflict.field, conflict.reason);
  const choices = resolveChoices(taxRules, given);
  const [month, day] = choices.taxYearStart.split('-').map(Number) as [number, number];
  const resolved: ResolvedGainsOptions = {
    method: choices.method,
    pooling: choices.pooling,
    walletAllocation: options.walletAllocation ?? 'records',
    timeZone: rules.timeZone ?? options.timeZone ?? 'UTC',
    taxYearStart: options.taxYearStart ?? { month, day },
    longTermYears: choices.longTermYears,
    longTermDays: options.longTermDays ?? null,
    fiatScale: rules.rounding?.scale ?? options.fiatScale ?? 18,
    periodStart: instantOption('period.start', options.period?.start),
    periodEnd: instantOption('period.end', options.period?.end),
    historyEnd: instantOption('historyEnd', options.historyEnd),
    rounding: rules.rounding?.mode ?? options.rounding ?? 'half-even',
    taxRules,
  };
  if (!METHODS.has(resolved.method))
    throw new ValidationError('method', 'must be fifo, lifo, hifo, average or hmrc');
  if (!POOLINGS.has(resolved.pooling))
    throw new ValidationError('pooling', 'must be account, universal or wallet-from-2025');
  if (!ALLOCATIONS.has(resolved.walletAllocation))
    throw new ValidationError('walletAllocation', 'must be records or account-order');
  if (rules.rounding === null && !ROUNDINGS.has(resolved.rounding))
    throw new ValidationError('rounding', 'must be half-even or half-up');
  if (!IANAZone.isValidZone(resolved.timeZone)) throw new ValidationError('timeZone', 'is not an IANA zone');
  if (!validTaxYearStart(resolved.taxYearStart))
    throw new ValidationError('taxYearStart', 'is not a day that exists every year');
  if (!Number.isInteger(resolved.longTermYears) || resolved.longTermYears < 0)
    throw new ValidationError('longTermYears', 'must be a whole number of years');
  if (
    resolved.longTermDays !== null &&
    (!Number.isInteger(resolved.longTermDays) || resolved.longTermDays < 0)
  )
    throw new ValidationError('longTermDays', 'must be a whole number of days');
  // 0 places: whole units (pounds), as HMRC's examples round.
  if (!Number.isInteger(resolved.fiatScale) || resolved.fiatScale < 0 || resolved.fiatScale > 60)
    throw new ValidationError('fiatScale', 'must be an integer from 0 to 60');
  if (
    resolved.periodStart !== null &&
    resolved.periodEnd !== null &&
    resolved.periodEnd < resolved.periodStart
  )
    throw new ValidationError('period', 'ends before it starts');
  if (
    resolved.historyEnd !== null &&
    (resolved.periodEnd === null || resolved.historyEnd < resolved.periodEnd)
  )
    throw new ValidationError('historyEnd', 'must be at or after period.end');
  return resolved;
}

/**
 * The event adapter's options that follow from the resolved engine options: transfer splits keep
 * at least cents when the rules round the engine's divisions to whole units, and the rules'
 * exchange value.
 */
export function eventOptions(
  options: ResolvedGainsOptions,
): Required<Pick<AdapterOptions, 'fiatScale' | 'exchangeValue'>> {
  return {
    fiatScale: Math.max(options.fiatScale, 2),
    exchangeValue: ruleSet(options.taxRules).exchangeValue,
  };
}

/** The coverage options of a resolved engine: its period, zone and tax year, whole days when its method reports them. */
export function coverageOptions(options: ResolvedGainsOptions): CoverageOptions {
  return {
    periodStart: options.periodStart,
    periodEnd: options.periodEnd,
    timeZone: options.timeZone,
    taxYearStart: options.taxYearStart,
    wholeStartDay: lotMethod(options.method).wholeDays,
  };
}
