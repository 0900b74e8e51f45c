/**
 * What one gains engine holds, and the small steps every part of it shares (its pools, the
 * period's flows, its warnings, the movements an observer is told). The matching rules a rule set
 * brings (lib/gains/rules/<cc>/) work on this state through {@link Identification} (a method that
 * keeps its own books) and {@link PoolingSwitch} (pools that change on a date).
 */
import { Big, text, ZERO } from '../domain/index.ts';
import { type Lot, Pool } from './lots.ts';
import { localDate, taxYearLabel, taxYearOf, termOf } from './tax-year.ts';
import type {
  AcquireEvent,
  AllocationLine,
  BasisMove,
  CarriedHmrc,
  CarriedLot,
  DisposalLine,
  DisposeEvent,
  GainsCounts,
  GainsEvent,
  GainsObserver,
  GainsState,
  GainsWarning,
  IncomeLine,
  MoveEvent,
  PoolHistoryLine,
  PoolPosition,
  ResolvedGainsOptions,
  Term,
  WithdrawEvent,
} from './types.ts';

export const DAY_MS = 86_400_000;

/** A quantity and its cost. */
export interface Flow {
  quantity: Big;
  cost: Big;
}

/** What one pool did in the reported period. */
export interface Activity {
  acquired: Flow;
  transferredIn: Flow;
  disposed: Flow;
  transferredOut: Flow;
  unmatched: Big;
}

export const flow = (): Flow => ({ quantity: ZERO, cost: ZERO });
export const addFlow = (target: Flow, quantity: Big, cost: Big) => {
  target.quantity = target.quantity.plus(quantity);
  target.cost = target.cost.plus(cost);
};

/**
 * A lot method that keeps its own books instead of the lot pools (HMRC identification:
 * lib/gains/rules/uk/identification.ts). The engine hands it every event; it records the period's
 * lines in the engine's state as its days are settled.
 */
export interface Identification {
  /** Whether the observer is told by the identification, once each day is final (not by the engine). */
  readonly tells: boolean;
  /** Whether an event of local `date` is in the reported period (it reports whole local days). */
  reported(date: string): boolean;
  /** Whether an event at or after the period end is still read: it may change the period's figures. */
  reads(event: GainsEvent, date: string): boolean;
  /** Events of `date` are coming. */
  arrive(date: string): void;
  /** `move()` is the acquisition's basis movement, as an observer is told it. */
  acquire(
    event: AcquireEvent,
    date: string,
    quantity: Big,
    cost: Big,
    reported: boolean,
    move: () => BasisMove,
  ): void;
  dispose(event: DisposeEvent, date: string, quantity: Big, reported: boolean): void;
  /** A move between accounts (its books are per person): its fee, if any, joins the cost. */
  move(event: MoveEvent, date: string, fee: Big, reported: boolean): void;
  withdraw(event: WithdrawEvent, date: string, quantity: Big, reported: boolean): void;
  /** Its pools now, per token. */
  pools(): Map<string, Flow>;
  /** The history is complete: every day waiting is settled. */
  finish(): void;
  carry(): CarriedHmrc;
  restore(state: CarriedHmrc): void;
  /** See `GainsEngine.matchedAhead`. */
  matchedAhead(date: string): PoolPosition[];
}

/**
 * Pools that change on a date (`wallet-from-2025`: one per token, then one per wallet from
 * 1 January 2025: lib/gains/rules/us/wallets.ts).
 */
export interface PoolingSwitch {
  /** Before an event at `time` (or the period's last instant, at the end): switches when due. */
  before(time: number): void;
  /** A lot was opened (kept in its wallet's records until the switch). */
  opened(lot: Lot): void;
  /** An event was processed (followed in the wallets' records until the switch). */
  after(event: GainsEvent): void;
  carry(): NonNullable<GainsState['walletSwitch']>;
  restore(state: NonNullable<GainsState['walletSwitch']>): void;
}

/** What one engine holds: its options, the lot pools, and the lines and counts it has recorded. */
export interface EngineState {
  readonly options: ResolvedGainsOptions;
  /** Where the rule set puts fees: a disposal's (`cost`: allowable costs), an income receipt's (`expense`). */
  readonly fees: { disposal: 'proceeds' | 'cost'; income: 'basis' | 'expense' };
  /** Lot pools by {@link keyOf}. */
  readonly pools: Map<string, Pool>;
  /** Whether pools are per account (else one per token). */
  accountPools: boolean;
  /** The allocation made at the switch to wallet-by-wallet pools, when this engine made it. */
  readonly allocation: AllocationLine[];
  /** Flows of the reported period, by {@link keyOf}. */
  readonly activity: Map<string, Activity>;
  readonly disposals: DisposalLine[];
  readonly income: IncomeLine[];
  readonly warnings: GainsWarning[];
  readonly poolHistory: PoolHistoryLine[];
  readonly counts: GainsCounts;
  /** The positions when the period starts, once known. */
  opening: Map<string, Flow> | null;
  nextSeq: number;
  /** A lot method that keeps its own books (HMRC identification); null: the lot pools. */
  identification: Identification | null;
  /** First local date of the period (HMRC identification reports whole days). */
  readonly startDate: string | null;
  /** Last local date of the period (HMRC identification reports whole days). */
  readonly endDate: string | null;
  /** The pools when the period ends, once days after it are matched (HMRC identification). */
  closing: Map<string, Flow> | null;
  /** Pools that change on a date (`wallet-from-2025`); null: they never change. */
  switch: PoolingSwitch | null;
  finished: boolean;
  /** Told of every event and movement of lots; null: none. */
  readonly observer: GainsObserver | null;
}

/** The key of a pool and its activity: per account and token, or per token while one pool serves every account. */
export function keyOf(s: EngineState, account: string, token: string): string {
  return pairKey(s.accountPools ? account : null, token);
}

/** An account (null: every account's one pool) and a token as one key, JSON so no two pairs share one. */
export const pairKey = (account: string | null, token: string): string => JSON.stringify([account, token]);

/** The account and token of a {@link pairKey}. */
export const pairOf = (key: string) => JSON.parse(key) as [string | null, string];

export function pool(s: EngineState, account: string, token: string): Pool {
  const key = keyOf(s, account, token);
  let found = s.pools.get(key);
  if (found === undefined) {
    found = new Pool(
      token,
      s.accountPools ? account : null,
      s.options.method,
      s.options.fiatScale,
      s.options.rounding,
    );
    s.pools.set(key, found);
  }
  return found;
}

export function activityOf(s: EngineState, account: string, token: string): Activity {
  return activityOfKey(s, keyOf(s, account, token));
}

export function activityOfKey(s: EngineState, key: string): Activity {
  let found = s.activity.get(key);
  if (found === undefined) {
    found = {
      acquired: flow(),
      transferredIn: flow(),
      disposed: flow(),
      transferredOut: flow(),
      unmatched: ZERO,
    };
    s.activity.set(key, found);
  }
  return found;
}

export function snapshot(s: EngineState): Map<string, Flow> {
  const positions = new Map<string, Flow>();
  if (s.identification !== null) {
    for (const [token, p] of s.identification.pools()) positions.set(keyOf(s, '', token), { ...p });
    return positions;
  }
  for (const [key, p] of s.pools) positions.set(key, { quantity: p.quantity, cost: p.cost });
  return positions;
}

/** A carried lot as the pools hold it. */
export function revive(lot: CarriedLot): Lot {
  return {
    ...lot,
    quantity: new Big(lot.quantity),
    cost: new Big(lot.cost),
    keyQuantity: new Big(lot.keyQuantity),
    keyCost: new Big(lot.keyCost),
  };
}

/** A lot as {@link GainsState} carries it. */
export function carriedLot(lot: Lot): CarriedLot {
  return {
    txId: lot.txId,
    leg: lot.leg,
    token: lot.token,
    account: lot.account,
    quantity: text(lot.quantity),
    cost: text(lot.cost),
    acquiredAt: lot.acquiredAt,
    seq: lot.seq,
    keyQuantity: text(lot.keyQuantity),
    keyCost: text(lot.keyCost),
    ...(lot.arrived === undefined ? {} : { arrived: lot.arrived }),
  };
}

export function warnAt(s: EngineState, warning: GainsWarning): void {
  s.warnings.push(warning);
}

export function warn(
  s: EngineState,
  event: GainsEvent,
  kind: GainsWarning['kind'],
  account: string,
  quantity: string,
  message: string,
) {
  warnAt(s, { kind, txId: event.txId, time: event.time, token: event.token, account, quantity, message });
}

/** What an acquisition or a disposal without a fiat value counts as, in its warning. */
const NO_VALUE = {
  acquire: 'acquisition without a fiat value: zero basis',
  dispose: 'disposal without a fiat value: zero proceeds',
} as const;

/** Warns of an acquisition or a disposal the service gave no fiat value: it counts at zero. */
export function warnIfNoValue(s: EngineState, event: AcquireEvent | DisposeEvent, quantity: Big): void {
  if (event.value === null)
    warn(s, event, 'missing-value', event.account, text(quantity), NO_VALUE[event.kind]);
}

export function term(s: EngineState, acquiredAt: number, disposedAt: number, disposedDate: string): Term {
  if (s.options.longTermDays !== null)
    return Math.floor((disposedAt - acquiredAt) / DAY_MS) > s.options.longTermDays ? 'long' : 'short';
  return termOf(localDate(acquiredAt, s.options.timeZone), disposedDate, s.options.longTermYears);
}

export function taxYear(s: EngineState, date: string): string {
  return taxYearLabel(taxYearOf(date, s.options.taxYearStart), s.options.taxYearStart);
}

/** The basis movement of `event` as an observer is told it (the fields every kind has). */
export function told(
  event: GainsEvent,
  account: string,
  quantity: Big,
  requested: Big,
  cost: Big,
  reported: boolean,
): BasisMove {
  return {
    kind: event.kind,
    txId: event.txId,
    leg: event.leg,
    time: event.time,
    token: event.token,
    account,
    quantity: text(quantity),
    requested: text(requested),
    cost: text(cost),
    reported,
    ...(event.unmatchedTransfer === true ? { external: true as const } : {}),
  };
}
