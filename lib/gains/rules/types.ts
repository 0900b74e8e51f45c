/**
 * What a jurisdiction's rule set is: a behaviour object in `lib/gains/rules/<cc>/` that says what
 * its law fixes about a gains run (the choices, the zone of its days, its rounding and currency),
 * the matching rules it brings (a lot method, a pooling), how far past the period they read, its
 * tax summary, forms and reports, and its journal extras. The engine, the plan and the report
 * stage ask the registry (index.ts) for these; none of them compares a rule set's name.
 */
import type { Rounding, TableSource } from '../../domain/index.ts';
import type { Coverage } from '../coverage.ts';
import type { EngineState, Identification, PoolingSwitch } from '../engine-state.ts';
import type { ExchangeValue } from '../event-options.ts';
import type { GainsMoney } from '../rounding.ts';
import type { TaxSummary } from '../tax-summary.ts';
import type {
  DisposalLine,
  GainsObserver,
  GainsResult,
  IncomeLine,
  LotMethod,
  Pooling,
  ResolvedGainsOptions,
  TaxRules,
} from '../types.ts';

/** The choices a rule set may fix, as a request states them (`taxYearStart` as `MM-DD`). */
export interface RuleChoices {
  method: LotMethod;
  pooling: Pooling;
  taxYearStart: string;
  longTermYears: number;
}

/** A fixed choice: the values the law allows (the first is the default), and why others are refused. */
export interface Fixed<T> {
  allowed: readonly T[];
  reason: string;
}

/** The journal's extras of a lot method (HMRC identification's bed and breakfast). */
export interface MethodJournal {
  /** Added to the manifest's holdings check: what the journal's month-end balances are. */
  holdingsCheck: string;
  /** The Read me's line on how the journal posts the method; `account` gives a chart account's code. */
  readme(account: (kind: 'thirty-day') => string): string;
  /** Why per-wallet asset accounts are refused (one pool per token whatever the wallet), if they are. */
  perWalletRefused?: string;
  /** Chart accounts the journal posts to with this method, which a chart without defaults must name. */
  accounts?: readonly { kind: 'thirty-day'; why: string }[];
}

/**
 * A lot method: which lots a disposal takes (lots.ts orders the lot pools), or its own books
 * (`identification`), and what follows from it outside the engine.
 */
export interface LotMethodRules {
  name: LotMethod;
  /** The method in words (Read me). */
  words: string;
  /**
   * Days after the period's last day whose events the matching reads (the 30-day rule: 30): the
   * history is fetched and given to the engine through them; the reports keep to the period.
   */
  readsPastPeriod: number;
  /** Reports whole local days: the period's first day from its local midnight. */
  wholeDays: boolean;
  /** Its disposals name the rule that matched each part (the `Matching rule` column). */
  namesRule: boolean;
  /** It keeps pools whose every change is reported (`pool_history`: section 104 pools). */
  poolHistory: boolean;
  /** The poolings it allows, and why no other. */
  poolings?: Fixed<Pooling>;
  /** A method that keeps its own books instead of the lot pools, for one engine. */
  identification?(engine: EngineState, observer: GainsObserver | null): Identification;
  journal?: MethodJournal;
}

/** A pooling: one pool per token, per account, or pools that change on a date. */
export interface PoolingRules {
  name: Pooling;
  /** The pools in words (Read me and About sheet). */
  words: string;
  /** Pools per account from the start (else one per token, until a switch). */
  perAccount: boolean;
  /** Pools that change on a date (`wallet-from-2025`), for one engine. */
  switch?(engine: EngineState): PoolingSwitch;
}

/** What a rule set's forms are filled for. */
export interface FormsContext {
  options: ResolvedGainsOptions;
  coverage: Coverage;
  /** The request's zone (the forms' dates are shown in it). */
  timeZone: string;
  /** The request's gains options, validated: each rule set reads its own (us: `brokerReporting`). */
  gains: Readonly<Record<string, unknown>>;
}

/** A finished run's tables a rule set's forms need. */
export interface FormsInput {
  result: GainsResult;
  money: GainsMoney;
  /** The disposal lines again, rounded as shown (Form 8949 lists them). */
  disposals: () => AsyncIterable<DisposalLine>;
}

/** A rule set's filing forms, filled with the rounded lines as the report stage drains them. */
export interface TaxForms {
  add(line: DisposalLine): void;
  addIncome(line: IncomeLine): void;
  /** The forms' tables, once every line is in, in the order a workbook shows them. */
  tables(input: FormsInput): TableSource[];
}

/** A request option only some rule sets take (us: `brokerReporting`), and what it does. */
export interface RuleOption {
  why: string;
}

/** A jurisdiction's tax law as the gains reports apply it. */
export interface TaxRuleSet {
  /** The value of `gains.taxRules` (CLI `--tax-rules`). */
  id: TaxRules;
  /** The rule set in words (Read me). */
  words: string;
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
  /** The lot methods its law brings (uk: HMRC identification). */
  methods?: readonly LotMethodRules[];
  /** The poolings its law brings (us: wallet by wallet from 2025). */
  poolings?: readonly PoolingRules[];
  /** Request options only it takes. */
  options?: Readonly<Record<string, RuleOption>>;
  /** Its tax summary, when its return has one (uk: SA108's boxes; de: the Anlage SO lines). */
  summary?(coverage: Coverage): TaxSummary;
  /** Its filing forms, filled line by line (us: Form 8949, the allocation statement, Schedule 1). */
  forms?(context: FormsContext): TaxForms;
  /** Its reports of a finished run beside the summary (us: the allocation statement, Schedule 1). */
  reports?(result: GainsResult, money: GainsMoney, coverage: Coverage): TableSource[];
}
