/**
 * Types of the gains engine: its input events, its options, its results and its carried state.
 * Every amount is an exact plain decimal string; every instant is epoch milliseconds (UTC).
 */
import type { Rounding } from '../domain/index.ts';

/**
 * Which open lots a disposal (or a transfer out of a wallet) consumes first:
 * - `fifo`: earliest acquisition first.
 * - `lifo`: latest acquisition first.
 * - `hifo`: highest cost per unit (at acquisition) first; ties by earliest acquisition.
 * - `average`: basis is the pool's average cost per unit; quantities and dates leave in FIFO order.
 * - `hmrc`: HMRC's share identification (TCGA 1992 ss 104, 105, 106A; Cryptoassets Manual
 *   CRYPTO22200+): same-day acquisitions, then acquisitions of the next 30 days (earliest first),
 *   then the section 104 pool at average cost. Pools universally only.
 */
export const LOT_METHODS = ['fifo', 'lifo', 'hifo', 'average', 'hmrc'] as const;

/** One of {@link LOT_METHODS}. */
export type LotMethod = (typeof LOT_METHODS)[number];

/**
 * Whether lots are pooled in one pool per token (universally), or per account (wallet by wallet),
 * or universally before 1 January 2025 and per account from then on (US, Rev. Proc. 2024-28).
 */
export const POOLINGS = ['universal', 'account', 'wallet-from-2025'] as const;

/** One of {@link POOLINGS}. */
export type Pooling = (typeof POOLINGS)[number];

/**
 * How `wallet-from-2025` allocates the unused basis to the wallets on 1 January 2025 (Rev. Proc.
 * 2024-28): `records` (each wallet keeps the units its records hold with their own lots; the rest
 * by lot order, naming no account) or `account-order` (earlier versions' global rule: accounts in
 * the alphabetical order of their ids fill their holdings from the pool).
 */
export const WALLET_ALLOCATIONS = ['records', 'account-order'] as const;

/** One of {@link WALLET_ALLOCATIONS}. */
export type WalletAllocation = (typeof WALLET_ALLOCATIONS)[number];

/**
 * Short term: held one year or less; long term: held more than `longTermYears`; `none` where the
 * rules have no holding period (HMRC identification).
 */
export type Term = 'short' | 'long' | 'none';

/**
 * The id of a run's jurisdiction rule set (lib/gains/rules/): built in `generic` (every choice
 * open), `us`, `uk` and `de`; a registered rule set's id.
 */
export type TaxRules = string;

/** Which identification rule matched a part of a disposal (HMRC identification). */
export type MatchRule = 'same-day' | 'thirty-day' | 'section-104' | 'no-basis';

/** First day of the tax year, e.g. `{ month: 4, day: 6 }` for the UK. */
export interface TaxYearStart {
  /** 1–12. */
  month: number;
  /** 1–31 (must exist in that month of a non-leap year). */
  day: number;
}

/** How events at the same instant are ordered. */
export type SameTimeOrder =
  /** Input order (the transactions' order, then leg order inside a transaction). */
  | 'input'
  /** Acquisitions, then transfers, then disposals; input order inside each group. */
  | 'acquisitions-first';

/** Options of the engine. Every field has a default. */
export interface GainsOptions {
  /** Default `fifo`. */
  method?: LotMethod;
  /** Default `universal`. */
  pooling?: Pooling;
  /** `wallet-from-2025`: how the unused basis goes to the wallets. Default `records`. */
  walletAllocation?: WalletAllocation;
  /** IANA zone of local dates (tax year, holding period, display). Default `UTC`. */
  timeZone?: string;
  /** Default 1 January. */
  taxYearStart?: TaxYearStart;
  /** Long term when the local disposal date is after acquisition date + this many years. Default 1. */
  longTermYears?: number;
  /**
   * A day count instead of calendar years: long term when the whole days (24 h) between the
   * acquisition and disposal instants exceed it (e.g. 365; rp2 classic's `>= 365` is 364 here).
   * Default `null` (calendar years).
   */
  longTermDays?: number | null;
  /**
   * Decimal places of fiat amounts that come from a division (pro-rata basis of a partial lot,
   * average cost, a disposal's proceeds split over several lots); rounded half to even. Default 18.
   */
  fiatScale?: number;
  /** Reported period `[start, end)` as ISO instants; events before it only build lots. */
  period?: { start?: string | null; end?: string | null };
  /**
   * The instant up to which the history given is complete (ISO; default: `period.end`). With HMRC
   * identification the events of the 30 days after the period's last day, up to this instant, are
   * used (not reported) to match the period's disposals; a disposal whose 30 days reach past it
   * gets a `thirty-day-window` warning.
   */
  historyEnd?: string | null;
  /** Rounding of the divisions: `half-even` (default) or `half-up`. */
  rounding?: 'half-even' | 'half-up';
  /**
   * Jurisdiction rule set: fixes what its law fixes (method, pooling, tax year, holding period,
   * zone, rounding) and refuses contradicting options. Default `generic` (nothing fixed).
   */
  taxRules?: TaxRules;
}

/** Options after defaults. */
export interface ResolvedGainsOptions {
  method: LotMethod;
  pooling: Pooling;
  walletAllocation: WalletAllocation;
  timeZone: string;
  taxYearStart: TaxYearStart;
  longTermYears: number;
  longTermDays: number | null;
  fiatScale: number;
  periodStart: number | null;
  periodEnd: number | null;
  /** The history is complete up to this instant (see `GainsOptions.historyEnd`); null: the period end. */
  historyEnd: number | null;
  /** `up` is never chosen by a rule set today. */
  rounding: Rounding;
  taxRules: TaxRules;
}

interface EventBase {
  /** Transaction the event comes from. */
  txId: string;
  /** Position of the leg inside its transaction; lot ids are `txId#leg`. */
  leg: number;
  /** Epoch milliseconds. */
  time: number;
  token: string;
  /** Positive exact decimal. */
  quantity: string;
  /** A transfer without a counterpart in the portfolio: reported as an `unmatched-transfer` warning. */
  unmatchedTransfer?: boolean;
}

/** A lot opens: a buy, the in side of a swap, income, a deposit from outside. */
export interface AcquireEvent extends EventBase {
  kind: 'acquire';
  account: string;
  /** Fiat value at the time; `null` when unknown (zero basis and a warning). */
  value: string | null;
  /** Fiat fee added to the basis. */
  fee: string;
  /** Income category (e.g. `income`, `staking`) when the acquisition is income, else `null`. */
  income: string | null;
  /**
   * The cost basis is not known (a transfer in from outside with `transferInBasis: 'zero'`): the
   * lot opens at a zero basis and a `missing-cost-basis` warning asks for it.
   */
  missingBasis?: true;
  /**
   * When the lot was acquired, if not at `time` (epoch ms): a transfer in from outside whose
   * acquisition date the preparer gave (adjustments). Its holding period starts then.
   */
  acquiredAt?: number;
}

/** Lots are consumed with a gain or loss: a sell, the out side of a swap, a spend, a fee in a token. */
export interface DisposeEvent extends EventBase {
  kind: 'dispose';
  account: string;
  /** Fiat proceeds; `null` when unknown (zero proceeds and a warning). */
  value: string | null;
  /** Fiat fee deducted from the proceeds. */
  fee: string;
}

/** Lots move between two of the portfolio's accounts without a gain. */
export interface MoveEvent extends EventBase {
  kind: 'move';
  from: string;
  to: string;
  /** Fiat fee added to the basis of the moved lots (`transferFee: 'basis'`); absent: none. */
  fee?: string;
}

/** Lots leave the portfolio without a gain (a transfer to an account outside it). */
export interface WithdrawEvent extends EventBase {
  kind: 'withdraw';
  account: string;
}

/** One input of the engine. */
export type GainsEvent = AcquireEvent | DisposeEvent | MoveEvent | WithdrawEvent;

/** One lot (or part of a lot, or the unmatched rest) consumed by one disposal: a Form 8949 line. */
export interface DisposalLine {
  token: string;
  quantity: string;
  /** Acquisition instant of the lot; `null` for the zero-basis rest of an over-disposal. */
  acquiredAt: number | null;
  disposedAt: number;
  /** Net of the disposal's fee share. */
  proceeds: string;
  cost: string;
  /** `proceeds − cost`, exact. */
  gain: string;
  term: Term;
  taxYear: string;
  /** Account of the disposal. */
  account: string;
  /** Transaction that opened the lot; `null` for a zero-basis rest. */
  acquiredTxId: string | null;
  disposedTxId: string;
  /** HMRC identification: the rule that matched this part. */
  rule?: MatchRule;
}

/** One income receipt. */
export interface IncomeLine {
  txId: string;
  time: number;
  taxYear: string;
  category: string;
  token: string;
  account: string;
  quantity: string;
  /** Fiat value at receipt (without fees); `0` when unknown. */
  value: string;
  /**
   * The receipt's fees as expenses of the income (de: Werbungskosten, deducted from the receipts
   * before the § 22 Nr. 3 limit); absent when the fees went into the lot's cost.
   */
  expenses?: string;
}

/** Why a warning was raised. */
export type WarningKind =
  /** A disposal found fewer lots than its quantity; the rest has a zero basis. */
  | 'zero-basis'
  /** A fiat value (or fee value) is missing; zero is used. */
  | 'missing-value'
  /** A transfer moved or withdrew more than the account held. */
  | 'negative-balance'
  /** A transfer in or out without a counterpart in the portfolio (treated as documented). */
  | 'unmatched-transfer'
  /** A lot opened with a zero cost basis because its cost is not known (transfer in from outside). */
  | 'missing-cost-basis'
  /**
   * HMRC identification: the disposal's 30 days reach past the period end, so an acquisition this
   * run did not see may still change its matching.
   */
  | 'thirty-day-window'
  /**
   * A transaction's value is in another currency than the gains reports' (the first value
   * currency of the history): its amounts are used as they are, not converted.
   */
  | 'other-currency';

/** A problem in the data the accountant should review, with the transaction that caused it. */
export interface GainsWarning {
  kind: WarningKind;
  txId: string;
  time: number;
  token: string;
  account: string;
  /** Quantity concerned (the missing part for `zero-basis` and `negative-balance`). */
  quantity: string;
  message: string;
}

/** Quantity and cost. */
export interface Position {
  quantity: string;
  cost: string;
}

/** Roll-forward of one pool (token, and account when pooled by account) over the period. */
export interface RollForwardLine {
  token: string;
  /** `null` when pooled universally. */
  account: string | null;
  opening: Position;
  acquired: Position;
  transferredIn: Position;
  /** Lots consumed by disposals (the zero-basis rest is in `unmatchedDisposed`). */
  disposed: Position;
  transferredOut: Position;
  /** Disposed quantity that no lot covered (zero basis, listed in warnings). */
  unmatchedDisposed: string;
  /** Read from the pools at the end of the period, not derived. */
  closing: Position;
}

/** Counts for the benchmark and the run summary. */
export interface GainsCounts {
  events: number;
  /** Events at or after the period end, ignored. */
  ignored: number;
  lotsOpened: number;
  /** Lines of the disposals report (lots matched, with zero-basis rests), whole history. */
  lotsMatched: number;
  disposals: number;
}

/** One change of a section 104 pool (HMRC identification). */
export interface PoolHistoryLine {
  token: string;
  /** Local date (`YYYY-MM-DD`) of the change. */
  date: string;
  taxYear: string;
  /** `acquisition` (what the same-day and 30-day rules left), `disposal`, `withdrawal`, `fee`. */
  change: 'acquisition' | 'disposal' | 'withdrawal' | 'fee';
  /** Signed. */
  quantity: string;
  /** Signed. */
  cost: string;
  poolQuantity: string;
  poolCost: string;
  /** Transactions of the change. */
  txIds: string;
}

/**
 * One part of the allocation of 1 January 2025 (`wallet-from-2025`): a wallet's units of a token,
 * with the basis and acquisition date assigned to them; `acquiredAt` null for units no unused basis
 * was left for.
 */
export interface AllocationLine {
  token: string;
  account: string;
  quantity: string;
  cost: string;
  acquiredAt: number | null;
  /** The transaction that opened the lot; null for uncovered units. */
  acquiredTxId: string | null;
  /** Why the wallet got it (see `AllocationSource` in rules/us/allocation.ts), or `uncovered`. */
  source: 'own-units' | 'reallocated' | 'account-order' | 'unclaimed' | 'uncovered';
}

/** Everything the reports need. */
export interface GainsResult {
  options: ResolvedGainsOptions;
  /** In the period, in processing order. */
  disposals: DisposalLine[];
  income: IncomeLine[];
  warnings: GainsWarning[];
  rollForward: RollForwardLine[];
  /** HMRC identification: the section 104 pools' changes in the period, in order. */
  poolHistory: PoolHistoryLine[];
  /**
   * `wallet-from-2025`: the allocation made on 1 January 2025 when this run crossed it (whatever
   * its period), by token and account; empty otherwise.
   */
  allocation: AllocationLine[];
  counts: GainsCounts;
}

/** A lot as carried in {@link GainsState} (strings, JSON-safe). */
export interface CarriedLot {
  txId: string;
  leg: number;
  token: string;
  account: string;
  quantity: string;
  cost: string;
  acquiredAt: number;
  /** Global opening order, the tie-break after the acquisition instant. */
  seq: number;
  /** Quantity and cost at opening: the HIFO ordering key. */
  keyQuantity: string;
  keyCost: string;
  /** Wallet records (`wallet-from-2025` before the switch): when the part arrived in its wallet. */
  arrived?: number;
}

/** The open lots of a run, to resume a later run from (`carry`). JSON-safe. */
export interface GainsState {
  version: 1;
  method: LotMethod;
  pooling: Pooling;
  nextSeq: number;
  /** Per pool: its lots in consumption order, and (average cost) its total cost. */
  pools: { token: string; account: string | null; cost: string; lots: CarriedLot[] }[];
  /** HMRC identification: the section 104 pools and the days still waiting for their 30 days. */
  hmrc?: CarriedHmrc;
  /** `wallet-from-2025`: whether the pools are per account yet, and each account's holding until then. */
  walletSwitch?: {
    done: boolean;
    balances: { account: string; token: string; quantity: string }[];
    /** Each wallet's own records of its lots until the switch (absent in older states). */
    records?: { account: string; token: string; lots: CarriedLot[] }[];
  };
}

/** The state of HMRC identification (JSON-safe). */
export interface CarriedHmrc {
  books: {
    token: string;
    quantity: string;
    cost: string;
    days: CarriedHmrcDay[];
  }[];
}

/** One day of one token still waiting for the 30 days after it. */
export interface CarriedHmrcDay {
  day: number;
  date: string;
  /** Arrival rank of the day's first event among the carried days (absent in older states). */
  seq?: number;
  reported: boolean;
  account: string;
  acquired: {
    quantity: string;
    cost: string;
    restQuantity: string;
    restCost: string;
    txIds: string[];
    time: number;
  } | null;
  disposed: {
    quantity: string;
    proceeds: string;
    /** Fees that are allowable costs (absent in states carried before they were kept apart). */
    fees?: string;
    txIds: string[];
    time: number;
    account: string;
  } | null;
  sameDay: { quantity: string; cost: string } | null;
  sameDayDone: boolean;
  withdrawals: { txId: string; time: number; quantity: string; account: string; reported: boolean }[];
  fees: { txId: string; cost: string; reported: boolean }[];
}

/**
 * One movement of carrying value the engine made, told to a {@link GainsObserver} (the journal's
 * entries are built from these). Amounts are exact decimal strings.
 */
export interface BasisMove {
  kind: 'acquire' | 'dispose' | 'move' | 'withdraw';
  txId: string;
  leg: number;
  /** Epoch milliseconds. */
  time: number;
  token: string;
  /** The account the lots are in (`from` of a move). */
  account: string;
  /** A move's receiving account. */
  to?: string;
  /** The quantity the lots gave or took: less than `requested` when the account held too little. */
  quantity: string;
  /** The event's quantity (what arrives in `to` for a move). */
  requested: string;
  /**
   * Carrying value opened (acquire: value + fee, or value when the fee is an expense of the
   * income), consumed from the lots (dispose, withdraw) or moved between accounts (move, without
   * `fee`); `0` when universally pooled moves carry nothing between pools.
   */
  cost: string;
  /** Acquire and dispose: the fiat value (`0` when unknown). */
  value?: string;
  /** Fiat fee of the event: added to the cost (acquire, move), deducted from the proceeds (dispose). */
  fee?: string;
  /** Acquire: the fee is an expense of the income, not in `cost` (de). */
  feeIsExpense?: boolean;
  /** Acquire: the income category, or `null` for a plain acquisition. */
  income?: string | null;
  /** Dispose: the disposal lines recorded for it (exact), when it is in the reported period. */
  lines?: readonly DisposalLine[];
  /**
   * Dispose, HMRC identification: one of a day's several disposals of a token but its last, which
   * carries the day's `lines`: its own gain, exact (value − fee − cost).
   */
  gain?: string;
  /** Whether the event is in the reported period (events before it only build lots). */
  reported: boolean;
  /** A transfer without a counterpart in the portfolio (a deposit from or withdrawal to outside). */
  external?: true;
}

/**
 * Watches the engine (the journal does): `event` before each event the engine processes (after the
 * period-end check), `basis` for every movement of lots it made. Without an observer the engine
 * behaves exactly as without one. With HMRC identification, whose costs are known only once the
 * 30 days are matched, each day's events are told once the day is final (lib/gains/rules/uk/hmrc-replay.ts),
 * and `settled` before the positions change again.
 */
export interface GainsObserver {
  event?(event: GainsEvent, reported: boolean): void;
  basis(move: BasisMove): void;
  /**
   * HMRC identification: every local day before `date` (`YYYY-MM-DD`) is final and told; the
   * engine's positions are now those at the start of `date` (less `matchedAhead(date)`).
   */
  settled?(date: string): void;
}

/** One pool's open position now ({@link GainsEngine.positions}). */
export interface PoolPosition {
  token: string;
  /** `null` when pooled universally. */
  account: string | null;
  quantity: string;
  cost: string;
}
