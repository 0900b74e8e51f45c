/**
 * Jurisdiction rule sets: what each tax law fixes about a gains run (lot method, pooling, tax
 * year, holding period, the zone of its days, rounding), with the reason a contradicting choice is
 * refused. Sources: README.md in this folder.
 */
import type { Rounding } from '../domain/index.ts';
import type { ExchangeValue } from './events.ts';
import type { LotMethod, Pooling, TaxRules } from './types.ts';

/** Every rule set, `generic` first (the default: nothing fixed). */
export const TAX_RULES: readonly TaxRules[] = ['generic', 'us', 'uk', 'de'];

/** The choices a rule set may fix, as a request states them (`taxYearStart` as `MM-DD`). */
export interface RuleChoices {
  method: LotMethod;
  pooling: Pooling;
  taxYearStart: string;
  longTermYears: number;
}

/** A fixed choice: the values the law allows (the first is the default), and why others are refused. */
interface Fixed<T> {
  allowed: readonly T[];
  reason: string;
}

/** What a rule set fixes and its defaults for the rest. */
export interface RuleSet {
  name: TaxRules;
  defaults: RuleChoices;
  fixed: { [K in keyof RuleChoices]?: Fixed<RuleChoices[K]> };
  /** IANA zone of its days, tax years and holding periods; `null`: the request's zone. */
  timeZone: string | null;
  /** Decimal places of divided fiat amounts, and their rounding; `null`: the engine's default. */
  rounding: { scale: number; mode: Rounding } | null;
  /**
   * The value of each side of a crypto-to-crypto exchange: `own` (each movement at its own value)
   * or `counterpart` (the disposal's consideration is the value of what is received, the
   * acquisition's cost the value of what is given, as HMRC computes CRYPTO22257).
   */
  exchangeValue: ExchangeValue;
  /** The annual limits of the summary, when the rule set has them. */
  summary: 'uk' | 'de' | null;
  /**
   * Where a disposal's fees go: `proceeds` (deducted from them) or `cost` (proceeds stay gross and
   * the fees join the allowable costs, as SA108 asks: uk with HMRC identification).
   */
  disposalFee: 'proceeds' | 'cost';
  /**
   * Where the fee of an income receipt goes: `basis` (added to the lot's cost) or `expense` (a
   * Werbungskosten of the income, deducted from the receipts before the § 22 Nr. 3 limit: de).
   */
  incomeFee: 'basis' | 'expense';
  /**
   * The currency its figures are in (ISO 4217): the values of the data must be in it, since the
   * engine does not convert; `null`: whatever the data has (generic).
   */
  currency: string | null;
}

const GENERIC: RuleSet = {
  name: 'generic',
  defaults: { method: 'fifo', pooling: 'universal', taxYearStart: '01-01', longTermYears: 1 },
  fixed: {},
  timeZone: null,
  rounding: null,
  exchangeValue: 'own',
  summary: null,
  disposalFee: 'proceeds',
  incomeFee: 'basis',
  currency: null,
};

const UK: RuleSet = {
  name: 'uk',
  defaults: { method: 'hmrc', pooling: 'universal', taxYearStart: '04-06', longTermYears: 1 },
  fixed: {
    method: {
      allowed: ['hmrc'],
      reason:
        'uk rules match by HMRC identification (same day, 30 days, section 104 pool: TCGA 1992 ss 104, 105, 106A)',
    },
    pooling: {
      allowed: ['universal'],
      reason: 'uk rules pool each token per person, across every wallet (section 104 pool)',
    },
    taxYearStart: { allowed: ['04-06'], reason: 'the UK tax year starts on 6 April' },
    longTermYears: { allowed: [1], reason: 'uk rules have no holding period' },
  },
  timeZone: 'Europe/London',
  // Exact (a share of a cost is cost × units ÷ pool units, to 18 places): HMRC's whole pounds in
  // CRYPTO22252–22257 are display, and rounding each share up to the pound made a share exceed
  // its pool and costs go negative. Money is rounded once, when a line is shown (rounding.ts).
  rounding: null,
  exchangeValue: 'counterpart',
  summary: 'uk',
  disposalFee: 'cost',
  incomeFee: 'basis',
  currency: 'GBP',
};

const DE: RuleSet = {
  name: 'de',
  defaults: { method: 'fifo', pooling: 'account', taxYearStart: '01-01', longTermYears: 1 },
  fixed: {
    method: {
      allowed: ['fifo'],
      reason:
        'de rules use FIFO (BMF-Schreiben of 6 March 2025 on Kryptowerte; § 23 Abs. 1 Satz 1 Nr. 2 EStG)',
    },
    taxYearStart: { allowed: ['01-01'], reason: 'the German tax year is the calendar year (§ 25 EStG)' },
    longTermYears: {
      allowed: [1],
      reason: 'de rules exempt sales more than one year after acquisition (§ 23 Abs. 1 Satz 1 Nr. 2 EStG)',
    },
  },
  timeZone: 'Europe/Berlin',
  rounding: null,
  exchangeValue: 'own',
  summary: 'de',
  disposalFee: 'proceeds',
  incomeFee: 'expense',
  currency: 'EUR',
};

const US: RuleSet = {
  name: 'us',
  defaults: { method: 'fifo', pooling: 'wallet-from-2025', taxYearStart: '01-01', longTermYears: 1 },
  fixed: {
    method: {
      allowed: ['fifo', 'lifo', 'hifo'],
      reason:
        'us rules identify units by FIFO or specific identification (fifo, lifo, hifo), not average cost (Treas. Reg. § 1.1012-1(j))',
    },
    pooling: {
      allowed: ['wallet-from-2025'],
      reason:
        'us rules pool universally before 1 January 2025 and wallet by wallet from then on (Rev. Proc. 2024-28)',
    },
    taxYearStart: { allowed: ['01-01'], reason: 'us rules use the calendar tax year' },
    longTermYears: {
      allowed: [1],
      reason: 'us rules make long term a holding of more than one year (26 U.S.C. § 1222)',
    },
  },
  timeZone: null,
  rounding: null,
  exchangeValue: 'own',
  summary: null,
  disposalFee: 'proceeds',
  incomeFee: 'basis',
  currency: 'USD',
};

const SETS: Readonly<Record<TaxRules, RuleSet>> = { generic: GENERIC, us: US, uk: UK, de: DE };

/** The rule set of a name. */
export function ruleSet(name: TaxRules): RuleSet {
  return SETS[name];
}

/** One choice a rule set refuses: the field and the law's reason. */
export interface RuleConflict {
  field: keyof RuleChoices;
  reason: string;
}

/**
 * The choices in `given` that `rules` refuses, and the choices that are invalid with any rules
 * (HMRC identification pools universally).
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
  if (conflicts.length === 0 && method === 'hmrc' && pooling !== 'universal') {
    conflicts.push({
      field: 'pooling',
      reason: 'HMRC identification pools each token across every wallet: use universal',
    });
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
