/**
 * The gains engine: consumes events in order, keeps the open lots, and records disposals, income,
 * warnings and the roll-forward of the reported period. Its lot state can be carried to a later
 * run (`carry`), which then continues exactly as one pass would.
 */
import { DateTime, IANAZone } from 'luxon';
import { Big, compareText, text, ZERO } from '../domain/index.ts';
import { ValidationError } from '../errors.ts';
import type { AdapterOptions } from './events.ts';
import { dayNumber, type HmrcDisposal, HmrcLedger, joinIds } from './hmrc.ts';
import { createHmrcReplay, type HmrcReplay } from './hmrc-replay.ts';
import { type Lot, openLot, type Piece, Pool, shares } from './lots.ts';
import { allocateUnusedBasis } from './rules/us/allocation.ts';
import { resolveChoices, ruleConflicts, ruleSet, TAX_RULES } from './rules.ts';
import { localDate, taxYearLabel, taxYearOf, termOf, validTaxYearStart } from './tax-year.ts';
import type {
  AcquireEvent,
  AllocationLine,
  BasisMove,
  CarriedLot,
  DisposalLine,
  DisposeEvent,
  GainsCounts,
  GainsEvent,
  GainsObserver,
  GainsOptions,
  GainsResult,
  GainsState,
  GainsWarning,
  IncomeLine,
  MoveEvent,
  PoolHistoryLine,
  PoolPosition,
  ResolvedGainsOptions,
  RollForwardLine,
  TaxYearStart,
  Term,
  WalletAllocation,
  WithdrawEvent,
} from './types.ts';
import { LOT_METHODS, POOLINGS as POOLING_NAMES, WALLET_ALLOCATIONS } from './types.ts';

/** A running engine. */
export interface GainsEngine {
  readonly options: ResolvedGainsOptions;
  /**
   * Applies one event; events must come in processing order. Returns false when ignored (at or
   * after the period end). Throws {@link ValidationError} for a quantity that is not positive.
   */
  process(event: GainsEvent): boolean;
  /**
   * Declares the history complete: HMRC identification matches the days still waiting for their
   * 30 days, and a period reaching into 2025 switches `wallet-from-2025` pools to per account.
   * Call it before the final {@link GainsEngine.result}; events after it are not expected.
   */
  finish(): void;
  /** The open lots (and waiting days) now, to resume from with {@link createGainsEngine}. */
  carry(): GainsState;
  /**
   * The results so far (the roll-forward closes at the current state). Lines already taken by
   * {@link GainsEngine.drain} are not in it.
   */
  result(): GainsResult;
  /**
   * Takes the disposal, income and warning lines recorded since the last drain, so a caller can
   * spool them and keep memory flat over a long period.
   */
  drain(): Pick<GainsResult, 'disposals' | 'income' | 'warnings'>;
  /**
   * The open positions now, per pool (token, and account when pooled by account), read from the
   * pools; with HMRC identification the section 104 pools (no account). Read-only.
   */
  positions(): PoolPosition[];
  /**
   * HMRC identification: per token, what the 30-day rule took, for disposals on local days before
   * `date` (`YYYY-MM-DD`), from acquisitions on or after it (held: not in {@link positions} yet,
   * the pool still counts it). Empty for the lot methods and without an observer. Asked for days
   * in order, as the observer compares its month ends: a day before the last one settled has lost
   * the matches it no longer needs.
   */
  matchedAhead(date: string): PoolPosition[];
}

const UNMATCHED: Readonly<Record<GainsEvent['kind'], string>> = {
  acquire: 'transfer in from outside the portfolio: a lot opens at the fiat value',
  dispose: 'transfer out of the portfolio: treated as a disposal at the fiat value',
  withdraw: 'transfer out of the portfolio: lots leave at their basis, without a gain',
  move: 'transfer between accounts',
};

const DAY_MS = 86_400_000;
const POSITIVE = /^\d+(?:\.\d+)?$/;

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
  if (!TAX_RULES.includes(taxRules)) throw new ValidationError('taxRules', 'must be generic, us, uk or de');
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

interface Flow {
  quantity: Big;
  cost: Big;
}

interface Activity {
  acquired: Flow;
  transferredIn: Flow;
  disposed: Flow;
  transferredOut: Flow;
  unmatched: Big;
}

const flow = (): Flow => ({ quantity: ZERO, cost: ZERO });
const addFlow = (target: Flow, quantity: Big, cost: Big) => {
  target.quantity = target.quantity.plus(quantity);
  target.cost = target.cost.plus(cost);
};
const position = (f: Flow) => ({ quantity: text(f.quantity), cost: text(f.cost) });

/** What one engine holds: its options, the lot pools, and the lines and counts it has recorded. */
interface EngineState {
  readonly options: ResolvedGainsOptions;
  /** Lot pools by {@link keyOf}. */
  readonly pools: Map<string, Pool>;
  /** Whether pools are per account (else one per token). */
  accountPools: boolean;
  /** Until the switch: each account's holding per token (by `pairKey`), to allocate the pool by. */
  readonly balances: Map<string, Big>;
  /**
   * Until the switch: each wallet's own records (by `pairKey`), the lots it holds as
   * account pooling would have them, which the allocation of 1 January 2025 follows.
   */
  readonly records: Map<string, Pool>;
  /** The allocation made at the switch, when this engine made it. */
  readonly allocation: AllocationLine[];
  /**
   * The allocation rule at the switch: the option's, except for a state carried before the
   * switch without the wallets' records (older versions), which only the balances can allocate.
   */
  allocationRule: WalletAllocation;
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
  /** HMRC identification (method `hmrc`), which keeps its own pools; else null. */
  ledger: HmrcLedger | null;
  /** First local date of the period (HMRC identification reports whole days). */
  readonly startDate: string | null;
  /** Last local date of the period (HMRC identification reports whole days). */
  readonly endDate: string | null;
  /** The pools when the period ends, once days after it are matched (HMRC identification). */
  closing: Map<string, Flow> | null;
  /** `wallet-from-2025`: the instant the pools become per account, local midnight of 1 January 2025. */
  readonly switchAt: number | null;
  finished: boolean;
  /** Told of every event and movement of lots; null: none. */
  readonly observer: GainsObserver | null;
  /** HMRC identification with an observer: the events, told once their day is final (hmrc-replay.ts). */
  replay: HmrcReplay | null;
}

/** The key of a pool and its activity: per account and token, or per token while one pool serves every account. */
function keyOf(s: EngineState, account: string, token: string): string {
  return pairKey(s.accountPools ? account : null, token);
}

/** An account (null: every account's one pool) and a token as one key, JSON so no two pairs share one. */
const pairKey = (account: string | null, token: string): string => JSON.stringify([account, token]);
const pairOf = (key: string) => JSON.parse(key) as [string | null, string];

function pool(s: EngineState, account: string, token: string): Pool {
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

function activityOf(s: EngineState, account: string, token: string): Activity {
  return activityOfKey(s, keyOf(s, account, token));
}

function activityOfKey(s: EngineState, key: string): Activity {
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

function snapshot(s: EngineState): Map<string, Flow> {
  const positions = new Map<string, Flow>();
  if (s.ledger !== null) {
    for (const [token, p] of s.ledger.pools()) positions.set(keyOf(s, '', token), { ...p });
    return positions;
  }
  for (const [key, p] of s.pools) positions.set(key, { quantity: p.quantity, cost: p.cost });
  return positions;
}

/**
 * HMRC identification's ledger for method `hmrc` (null for the lot methods): its days' disposals,
 * withdrawals and pool changes are recorded in `s` as they are settled.
 */
function createLedger(s: EngineState): HmrcLedger | null {
  return s.options.method === 'hmrc'
    ? new HmrcLedger(s.options.fiatScale, s.options.rounding, {
        beforeDay(day) {
          // The days before are final: the observer is told them before the opening or closing.
          s.replay?.settled(new Date(day * DAY_MS).toISOString().slice(0, 10));
          // The opening of the period: the pools once every day before it is final.
          if (s.opening === null && s.startDate !== null && day >= dayNumber(s.startDate))
            s.opening = snapshot(s);
          // The closing of the period: the pools once every day of it is final, before the days
          // after it (given only to match the period's disposals by the 30-day rule) join them.
          if (s.closing === null && s.endDate !== null && day > dayNumber(s.endDate)) {
            s.opening ??= snapshot(s);
            s.closing = snapshot(s);
          }
        },
        disposal: (d) => {
          const from = s.disposals.length;
          hmrcDisposal(s, d);
          s.replay?.disposal(d, s.disposals.slice(from));
        },
        withdrawal(token, w, taken, cost, shortfall) {
          s.replay?.withdrawal(token, localDate(w.time, s.options.timeZone), taken, cost);
          if (!w.reported) return;
          addFlow(activityOf(s, w.account, token).transferredOut, taken, cost);
          if (shortfall.gt(0)) {
            warnAt(s, {
              kind: 'negative-balance',
              txId: w.txId,
              time: w.time,
              token,
              account: w.account,
              quantity: text(shortfall),
              message: `transfer out of ${text(w.quantity)} found only ${text(taken)} in the section 104 pool`,
            });
          }
        },
        poolChange(change) {
          if (change.change === 'fee')
            for (const txId of change.txIds) s.replay?.fee(change.token, change.date, txId);
          if (!change.reported) return;
          if (change.change === 'fee')
            addFlow(activityOf(s, '', change.token).transferredIn, ZERO, change.cost);
          s.poolHistory.push({
            token: change.token,
            date: change.date,
            taxYear: taxYear(s, change.date),
            change: change.change,
            quantity: text(change.quantity),
            cost: text(change.cost),
            poolQuantity: text(change.poolQuantity),
            poolCost: text(change.poolCost),
            txIds: joinIds(change.txIds),
          });
        },
      })
    : null;
}

/** A day's disposal matched by HMRC identification: one line per part, with its rule. */
function hmrcDisposal(s: EngineState, d: HmrcDisposal): void {
  s.counts.lotsMatched += d.parts.length;
  const act = activityOf(s, d.account, d.token);
  d.parts.forEach((part, index) => {
    // Consumed in the period's books: a 30-day part when its acquisition is in the period (the
    // disposal may be just before it; one just after it is matched, but never entered the books);
    // the other parts when the disposal is in the period.
    if (!(part.rule === 'thirty-day' ? d.partsReported[index] : d.reported)) return;
    if (part.rule === 'no-basis') act.unmatched = act.unmatched.plus(part.quantity);
    else addFlow(act.disposed, part.quantity, part.cost);
  });
  if (!d.reported) return;
  const proceedShares = shares(
    d.proceeds,
    d.parts.map((part) => part.quantity),
    s.options.fiatScale,
    s.options.rounding,
  );
  // Fees that are allowable costs, apportioned by units like the proceeds.
  const feeShares = shares(
    d.fees,
    d.parts.map((part) => part.quantity),
    s.options.fiatScale,
    s.options.rounding,
  );
  const year = taxYear(s, d.date);
  const disposedTxId = joinIds(d.txIds);
  d.parts.forEach((part, index) => {
    const share = proceedShares[index] ?? ZERO;
    const cost = part.cost.plus(feeShares[index] ?? ZERO);
    s.disposals.push({
      token: d.token,
      quantity: text(part.quantity),
      acquiredAt: part.acquiredAt,
      disposedAt: d.time,
      proceeds: text(share),
      cost: text(cost),
      gain: text(share.minus(cost)),
      term: 'none',
      taxYear: year,
      account: d.account,
      acquiredTxId: part.acquiredTxIds.length > 0 ? joinIds(part.acquiredTxIds) : null,
      disposedTxId,
      rule: part.rule,
    });
  });
  const at = { txId: d.txIds[0] ?? '', time: d.time, token: d.token, account: d.account };
  const missing = d.parts.find((part) => part.rule === 'no-basis');
  if (missing !== undefined) {
    warnAt(s, {
      ...at,
      kind: 'zero-basis',
      quantity: text(missing.quantity),
      message: `disposal of ${text(d.quantity)} on ${d.date} found only ${text(d.quantity.minus(missing.quantity))} to match: the rest has a zero basis`,
    });
  }
  const open = d.parts.some((part) => part.rule === 'section-104' || part.rule === 'no-basis');
  // The history is complete up to `historyEnd` (default: the period end): the days before its
  // local date are whole; a window reaching that date is not over in the data.
  const known = s.options.historyEnd ?? s.options.periodEnd;
  if (open && known !== null && d.windowEnd >= localDate(known, s.options.timeZone)) {
    // The last whole day of the data: the one before the day `known` falls on.
    const through = new Date((dayNumber(localDate(known, s.options.timeZone)) - 1) * DAY_MS)
      .toISOString()
      .slice(0, 10);
    warnAt(s, {
      ...at,
      kind: 'thirty-day-window',
      quantity: text(d.quantity),
      message: `the 30 days after this disposal run to ${d.windowEnd}, past the data this run had (through ${through}): an acquisition on a later day may still match it under the 30-day rule and change its cost`,
    });
  }
}

/** Resumes from a carried `state`: its lots, HMRC pools and wallet-switch balances. */
function restore(s: EngineState, state: GainsState): void {
  if (state.version !== 1 || state.method !== s.options.method || state.pooling !== s.options.pooling) {
    throw new ValidationError(
      'state',
      `was carried with ${state.method}/${state.pooling}, not ${s.options.method}/${s.options.pooling}`,
    );
  }
  s.nextSeq = state.nextSeq;
  for (const carried of state.pools) {
    const target = new Pool(
      carried.token,
      carried.account,
      s.options.method,
      s.options.fiatScale,
      s.options.rounding,
    );
    for (const lot of carried.lots) target.add(revive(lot));
    target.cost = new Big(carried.cost);
    s.pools.set(pairKey(carried.account, carried.token), target);
  }
  if (state.hmrc !== undefined) s.ledger?.restore(state.hmrc);
  if (state.walletSwitch !== undefined) {
    s.accountPools = state.walletSwitch.done;
    for (const b of state.walletSwitch.balances)
      s.balances.set(pairKey(b.account, b.token), new Big(b.quantity));
    if (state.walletSwitch.records === undefined && !state.walletSwitch.done)
      s.allocationRule = 'account-order';
    for (const r of state.walletSwitch.records ?? []) {
      const target = recordsOf(s, r.account, r.token);
      for (const lot of r.lots) target.add(revive(lot));
    }
  }
}

/** A carried lot as the pools hold it. */
function revive(lot: CarriedLot): Lot {
  return {
    ...lot,
    quantity: new Big(lot.quantity),
    cost: new Big(lot.cost),
    keyQuantity: new Big(lot.keyQuantity),
    keyCost: new Big(lot.keyCost),
  };
}

/** A lot as {@link GainsState} carries it. */
function carriedLot(lot: Lot): CarriedLot {
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

function warnAt(s: EngineState, warning: GainsWarning): void {
  s.warnings.push(warning);
}

function warn(
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
function warnIfNoValue(s: EngineState, event: AcquireEvent | DisposeEvent, quantity: Big): void {
  if (event.value === null)
    warn(s, event, 'missing-value', event.account, text(quantity), NO_VALUE[event.kind]);
}

function term(s: EngineState, acquiredAt: number, disposedAt: number, disposedDate: string): Term {
  if (s.options.longTermDays !== null)
    return Math.floor((disposedAt - acquiredAt) / DAY_MS) > s.options.longTermDays ? 'long' : 'short';
  return termOf(localDate(acquiredAt, s.options.timeZone), disposedDate, s.options.longTermYears);
}

function taxYear(s: EngineState, date: string): string {
  return taxYearLabel(taxYearOf(date, s.options.taxYearStart), s.options.taxYearStart);
}

function acquire(s: EngineState, event: AcquireEvent, reported: boolean, date: string): void {
  const quantity = new Big(event.quantity);
  // de: the fee of an income receipt is a Werbungskosten of the income, not acquisition cost.
  const feeIsExpense = event.income !== null && ruleSet(s.options.taxRules).incomeFee === 'expense';
  const cost = new Big(event.value ?? 0).plus(feeIsExpense ? 0 : event.fee);
  if (s.ledger !== null) {
    s.ledger.acquire(event, date, quantity, cost, reported);
    s.replay?.hold(event, reported, date, {
      ...told(event, event.account, quantity, quantity, cost, reported),
      value: event.value ?? '0',
      fee: text(new Big(event.fee)),
      feeIsExpense,
      income: event.income,
    });
  } else {
    const lot = openLot({
      txId: event.txId,
      leg: event.leg,
      token: event.token,
      account: event.account,
      quantity,
      cost,
      acquiredAt: event.acquiredAt ?? event.time,
      seq: s.nextSeq++,
    });
    pool(s, event.account, event.token).add(lot);
    if (recording(s)) recordsOf(s, event.account, event.token).add({ ...lot, arrived: lot.seq });
    s.observer?.basis({
      ...told(event, event.account, quantity, quantity, cost, reported),
      value: event.value ?? '0',
      fee: text(new Big(event.fee)),
      feeIsExpense,
      income: event.income,
    });
  }
  s.counts.lotsOpened += 1;
  if (!reported) return;
  addFlow(activityOf(s, event.account, event.token).acquired, quantity, cost);
  warnIfNoValue(s, event, quantity);
  if (event.missingBasis === true) {
    warn(
      s,
      event,
      'missing-cost-basis',
      event.account,
      text(quantity),
      'transfer in from outside the portfolio: zero cost basis until its cost is supplied',
    );
  }
  if (event.income !== null) {
    s.income.push({
      txId: event.txId,
      time: event.time,
      taxYear: taxYear(s, date),
      category: event.income,
      token: event.token,
      account: event.account,
      quantity: text(quantity),
      value: event.value ?? '0',
      ...(feeIsExpense ? { expenses: text(new Big(event.fee)) } : {}),
    });
  }
}

function dispose(s: EngineState, event: DisposeEvent, reported: boolean, date: string): void {
  const quantity = new Big(event.quantity);
  if (s.ledger !== null) {
    s.counts.disposals += 1;
    // uk: SA108 takes gross proceeds, the fees are allowable costs (added to the parts' costs).
    const gross = ruleSet(s.options.taxRules).disposalFee === 'cost';
    const value = new Big(event.value ?? 0);
    const fee = new Big(event.fee);
    s.ledger.dispose(event, date, quantity, gross ? value : value.minus(fee), gross ? fee : ZERO, reported);
    s.replay?.hold(event, reported, date);
    if (reported) warnIfNoValue(s, event, quantity);
    return;
  }
  const taken = pool(s, event.account, event.token).take(quantity);
  const parts: { piece: Piece | null; quantity: Big }[] = taken.pieces.map((piece) => ({
    piece,
    quantity: piece.quantity,
  }));
  if (taken.shortfall.gt(0)) parts.push({ piece: null, quantity: taken.shortfall });
  s.counts.disposals += 1;
  s.counts.lotsMatched += parts.length;
  const recorded = s.disposals.length;
  const tell = () =>
    s.observer?.basis({
      ...told(event, event.account, taken.quantity, quantity, taken.cost, reported),
      value: event.value ?? '0',
      fee: text(new Big(event.fee)),
      ...(reported ? { lines: s.disposals.slice(recorded) } : {}),
    });
  if (!reported) {
    tell();
    return;
  }
  const proceeds = new Big(event.value ?? 0).minus(event.fee);
  const proceedShares = shares(
    proceeds,
    parts.map((part) => part.quantity),
    s.options.fiatScale,
    s.options.rounding,
  );
  const year = taxYear(s, date);
  parts.forEach(({ piece, quantity: partQuantity }, index) => {
    const share = proceedShares[index] ?? ZERO;
    const cost = piece?.cost ?? ZERO;
    const lot: Lot | null = piece?.lot ?? null;
    s.disposals.push({
      token: event.token,
      quantity: text(partQuantity),
      acquiredAt: lot?.acquiredAt ?? null,
      disposedAt: event.time,
      proceeds: text(share),
      cost: text(cost),
      gain: text(share.minus(cost)),
      term: lot === null ? 'short' : term(s, lot.acquiredAt, event.time, date),
      taxYear: year,
      account: event.account,
      acquiredTxId: lot?.txId ?? null,
      disposedTxId: event.txId,
    });
  });
  tell();
  const act = activityOf(s, event.account, event.token);
  addFlow(act.disposed, taken.quantity, taken.cost);
  act.unmatched = act.unmatched.plus(taken.shortfall);
  warnIfNoValue(s, event, quantity);
  if (taken.shortfall.gt(0)) {
    warn(
      s,
      event,
      'zero-basis',
      event.account,
      text(taken.shortfall),
      `disposal of ${text(quantity)} found only ${text(taken.quantity)} in open lots: the rest has a zero basis`,
    );
  }
}

function move(s: EngineState, event: MoveEvent, reported: boolean, date: string): void {
  const fee = event.fee === undefined ? ZERO : new Big(event.fee);
  if (event.from === event.to) return;
  if (s.ledger !== null) {
    if (fee.gt(0)) s.ledger.addCost(event.token, date, fee, event.txId, reported, event.from);
    s.replay?.hold(event, reported, date);
    return;
  }
  if (!s.accountPools) {
    const added = fee.gt(0) ? addToBasis(s, event, fee, reported) : ZERO;
    const quantity = new Big(event.quantity);
    s.observer?.basis({
      ...told(event, event.from, quantity, quantity, ZERO, reported),
      to: event.to,
      fee: text(added),
    });
    return;
  }
  const quantity = new Big(event.quantity);
  const taken = pool(s, event.from, event.token).take(quantity);
  const target = pool(s, event.to, event.token);
  const feeShares = shares(
    fee,
    [...taken.pieces.map((piece) => piece.quantity), ...(taken.shortfall.gt(0) ? [taken.shortfall] : [])],
    s.options.fiatScale,
    s.options.rounding,
  );
  taken.pieces.forEach((piece, index) => {
    const cost = piece.cost.plus(feeShares[index] ?? ZERO);
    target.add({ ...piece.lot, account: event.to, quantity: piece.quantity, cost });
  });
  if (taken.shortfall.gt(0)) {
    target.add(
      openLot({
        txId: event.txId,
        leg: event.leg,
        token: event.token,
        account: event.to,
        quantity: taken.shortfall,
        cost: feeShares[taken.pieces.length] ?? ZERO,
        acquiredAt: event.time,
        seq: s.nextSeq++,
      }),
    );
    s.counts.lotsOpened += 1;
  }
  s.observer?.basis({
    ...told(event, event.from, taken.quantity, quantity, taken.cost, reported),
    to: event.to,
    fee: text(fee),
  });
  if (!reported) return;
  addFlow(activityOf(s, event.from, event.token).transferredOut, taken.quantity, taken.cost);
  addFlow(activityOf(s, event.to, event.token).transferredIn, quantity, taken.cost.plus(fee));
  if (taken.shortfall.gt(0)) {
    warn(
      s,
      event,
      'negative-balance',
      event.from,
      text(taken.shortfall),
      `transfer of ${text(quantity)} to ${event.to} found only ${text(taken.quantity)}: the rest arrives with a zero basis`,
    );
  }
}

/**
 * One pool for every account: the moved quantity stays where it is, and the fee joins the basis
 * of the lots the move would have taken (taken and put back with their share of it).
 */
function addToBasis(s: EngineState, event: MoveEvent, fee: Big, reported: boolean): Big {
  const target = pool(s, event.from, event.token);
  const taken = target.take(new Big(event.quantity));
  // Nothing held: no lot to carry the fee, which is dropped.
  if (taken.pieces.length === 0) return ZERO;
  const feeShares = shares(
    fee,
    taken.pieces.map((piece) => piece.quantity),
    s.options.fiatScale,
    s.options.rounding,
  );
  // Put back in front of what is left of their lots, so the next consumption takes them first.
  for (let index = taken.pieces.length - 1; index >= 0; index -= 1) {
    const piece = taken.pieces[index] as Piece;
    target.add(
      { ...piece.lot, quantity: piece.quantity, cost: piece.cost.plus(feeShares[index] ?? ZERO) },
      true,
    );
  }
  if (reported) addFlow(activityOf(s, event.to, event.token).transferredIn, ZERO, fee);
  return fee;
}

function withdraw(s: EngineState, event: WithdrawEvent, reported: boolean, date: string): void {
  const quantity = new Big(event.quantity);
  if (s.ledger !== null) {
    s.ledger.withdraw(event, date, quantity, reported);
    s.replay?.hold(event, reported, date);
    return;
  }
  const taken = pool(s, event.account, event.token).take(quantity);
  s.observer?.basis(told(event, event.account, taken.quantity, quantity, taken.cost, reported));
  if (!reported) return;
  addFlow(activityOf(s, event.account, event.token).transferredOut, taken.quantity, taken.cost);
  if (taken.shortfall.gt(0)) {
    warn(
      s,
      event,
      'negative-balance',
      event.account,
      text(taken.shortfall),
      `transfer out of ${text(quantity)} found only ${text(taken.quantity)} in open lots`,
    );
  }
}

/** The basis movement of `event` as an observer is told it (the fields every kind has). */
function told(
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

function positions(s: EngineState): PoolPosition[] {
  const out: PoolPosition[] = [];
  for (const [key, p] of snapshot(s)) {
    const [account, token] = pairOf(key);
    if (p.quantity.eq(0) && p.cost.eq(0)) continue;
    out.push({
      token,
      account,
      quantity: text(p.quantity),
      cost: text(p.cost),
    });
  }
  return out.sort((a, b) => compareText(a.token, b.token) || compareText(a.account ?? '', b.account ?? ''));
}

function carry(s: EngineState): GainsState {
  const carried: GainsState['pools'] = [];
  for (const p of s.pools.values()) {
    const lots = p.lots();
    if (lots.length === 0 && p.cost.eq(0)) continue;
    carried.push({
      token: p.token,
      account: p.account,
      cost: text(p.cost),
      lots: lots.map(carriedLot),
    });
  }
  carried.sort((a, b) => compareText(a.token, b.token) || compareText(a.account ?? '', b.account ?? ''));
  const out: GainsState = {
    version: 1,
    method: s.options.method,
    pooling: s.options.pooling,
    nextSeq: s.nextSeq,
    pools: carried,
  };
  if (s.ledger !== null) out.hmrc = s.ledger.carry();
  if (s.switchAt !== null) {
    out.walletSwitch = {
      done: s.accountPools,
      balances: [...s.balances]
        .filter(([, quantity]) => !quantity.eq(0))
        .map(([key, quantity]) => {
          const [account, token] = pairOf(key) as [string, string];
          return { account, token, quantity: text(quantity) };
        })
        .sort((a, b) => compareText(a.token, b.token) || compareText(a.account, b.account)),
      records: [...s.records.values()]
        .filter((r) => r.quantity.gt(0))
        .map((r) => ({ account: r.account ?? '', token: r.token, lots: r.lots().map(carriedLot) }))
        .sort((a, b) => compareText(a.token, b.token) || compareText(a.account, b.account)),
    };
  }
  return out;
}

/** Until the switch to wallet-by-wallet pools, each account's holding per token. */
function track(s: EngineState, account: string, token: string, quantity: string, sign: 1 | -1): void {
  const key = pairKey(account, token);
  const next = (s.balances.get(key) ?? ZERO).plus(sign === 1 ? quantity : new Big(quantity).neg());
  s.balances.set(key, next);
}

function trackEvent(s: EngineState, event: GainsEvent): void {
  switch (event.kind) {
    case 'acquire':
      track(s, event.account, event.token, event.quantity, 1);
      break;
    case 'dispose':
    case 'withdraw':
      track(s, event.account, event.token, event.quantity, -1);
      recordsOf(s, event.account, event.token).take(new Big(event.quantity));
      break;
    case 'move': {
      track(s, event.from, event.token, event.quantity, -1);
      track(s, event.to, event.token, event.quantity, 1);
      if (event.from === event.to) break;
      // The wallet's records, as account pooling moves lots: what the sender holds, in its order.
      const taken = recordsOf(s, event.from, event.token).take(new Big(event.quantity));
      const target = recordsOf(s, event.to, event.token);
      for (const piece of taken.pieces) {
        target.add({
          ...piece.lot,
          account: event.to,
          quantity: piece.quantity,
          cost: piece.cost,
          arrived: s.nextSeq++,
        });
      }
      break;
    }
  }
}

/** Whether the wallets' own records are kept: `wallet-from-2025` before the switch. */
function recording(s: EngineState): boolean {
  return s.switchAt !== null && !s.accountPools;
}

/** A wallet's own records of a token until the switch (see {@link EngineState.records}). */
function recordsOf(s: EngineState, account: string, token: string): Pool {
  const key = pairKey(account, token);
  let found = s.records.get(key);
  if (found === undefined) {
    found = new Pool(token, account, s.options.method, s.options.fiatScale, s.options.rounding);
    s.records.set(key, found);
  }
  return found;
}

/**
 * From one pool per token to one per account and token (Rev. Proc. 2024-28's allocation of the
 * unused basis, by the run's `walletAllocation`: rules/us/allocation.ts). Recorded as transfers
 * out of the universal line into the accounts, and as the allocation statement's lines.
 */
function switchToWallets(s: EngineState): void {
  const reported = s.options.periodStart === null || (s.switchAt ?? 0) >= s.options.periodStart;
  const universal = [...s.pools.values()];
  s.pools.clear();
  s.accountPools = true;
  const perToken = <T>(map: Map<string, T>, token: string) =>
    new Map(
      [...map]
        .filter(([key]) => pairOf(key)[1] === token)
        .map(([key, value]) => [pairOf(key)[0] as string, value] as const),
    );
  for (const source of universal) {
    const token = source.token;
    const { grants, uncovered } = allocateUnusedBasis(s.allocationRule, {
      universal: source,
      records: perToken(s.records, token),
      balances: perToken(s.balances, token),
      method: s.options.method,
      scale: s.options.fiatScale,
      rounding: s.options.rounding,
    });
    for (const g of grants) {
      pool(s, g.account, token).add({ ...g.lot, account: g.account, quantity: g.quantity, cost: g.cost });
      s.allocation.push({
        token,
        account: g.account,
        quantity: text(g.quantity),
        cost: text(g.cost),
        acquiredAt: g.lot.acquiredAt,
        acquiredTxId: g.lot.txId,
        source: g.source,
      });
      if (!reported) continue;
      addFlow(activityOf(s, g.account, token).transferredIn, g.quantity, g.cost);
      const before = activityOfKey(s, pairKey(null, token));
      addFlow(before.transferredOut, g.quantity, g.cost);
    }
    for (const u of uncovered) {
      s.allocation.push({
        token,
        account: u.account,
        quantity: text(u.quantity),
        cost: '0',
        acquiredAt: null,
        acquiredTxId: null,
        source: 'uncovered',
      });
    }
  }
  s.balances.clear();
  s.records.clear();
}

/** Whether the pools switch to per account before an event at `time` (or at the end). */
function switchDue(s: EngineState, time: number): boolean {
  return s.switchAt !== null && !s.accountPools && time >= s.switchAt;
}

function rollForward(s: EngineState): RollForwardLine[] {
  // Before the period has started the opening is the current state (not frozen: events may follow).
  const open = s.opening ?? snapshot(s);
  const now = s.closing ?? snapshot(s);
  const keys = new Set([...open.keys(), ...s.activity.keys(), ...now.keys()]);
  const lines: RollForwardLine[] = [];
  for (const key of keys) {
    const [account, token] = pairOf(key);
    const start = open.get(key) ?? flow();
    const act = s.activity.get(key);
    const end = now.get(key);
    const closing = end === undefined ? flow() : { quantity: end.quantity, cost: end.cost };
    const idle =
      act === undefined &&
      start.quantity.eq(0) &&
      start.cost.eq(0) &&
      closing.quantity.eq(0) &&
      closing.cost.eq(0);
    if (idle) continue;
    lines.push({
      token,
      account,
      opening: position(start),
      acquired: position(act?.acquired ?? flow()),
      transferredIn: position(act?.transferredIn ?? flow()),
      disposed: position(act?.disposed ?? flow()),
      transferredOut: position(act?.transferredOut ?? flow()),
      unmatchedDisposed: text(act?.unmatched ?? ZERO),
      closing: position(closing),
    });
  }
  return lines.sort((a, b) => compareText(a.token, b.token) || compareText(a.account ?? '', b.account ?? ''));
}

/** Applies one event (see `GainsEngine.process`). */
function processEvent(s: EngineState, event: GainsEvent): boolean {
  const date = localDate(event.time, s.options.timeZone);
  if (s.options.periodEnd !== null && event.time >= s.options.periodEnd && !matchesPeriod(s, event, date)) {
    s.counts.ignored += 1;
    return false;
  }
  // HMRC identification reports whole local days; the opening waits for the days before them.
  const reported =
    s.ledger !== null
      ? (s.startDate === null || date >= s.startDate) && (s.endDate === null || date <= s.endDate)
      : s.options.periodStart === null || event.time >= s.options.periodStart;
  if (s.ledger === null && reported && s.opening === null) s.opening = snapshot(s);
  if (!POSITIVE.test(event.quantity) || new Big(event.quantity).eq(0)) {
    throw new ValidationError(
      `event ${event.txId}#${event.leg}.quantity`,
      `must be positive: ${event.quantity}`,
    );
  }
  s.counts.events += 1;
  // HMRC identification: told once the day is final (the replay).
  if (s.replay === null) s.observer?.event?.(event, reported);
  if (switchDue(s, event.time)) switchToWallets(s);
  s.ledger?.arrive(date);
  if (reported && event.unmatchedTransfer === true) {
    const account = event.kind === 'move' ? event.from : event.account;
    warn(s, event, 'unmatched-transfer', account, text(new Big(event.quantity)), UNMATCHED[event.kind]);
  }
  switch (event.kind) {
    case 'acquire':
      acquire(s, event, reported, date);
      break;
    case 'dispose':
      dispose(s, event, reported, date);
      break;
    case 'move':
      move(s, event, reported, date);
      break;
    case 'withdraw':
      withdraw(s, event, reported, date);
      break;
  }
  if (recording(s)) trackEvent(s, event);
  return true;
}

/**
 * Whether an event after the period end can still change the period's figures: under HMRC
 * identification, an event of the 30 days after the period's last day that the history given
 * reaches (`historyEnd`) may be matched with a disposal of the period (30-day rule, or the
 * same-day rule of its own day first). It is processed, not reported.
 */
function matchesPeriod(s: EngineState, event: GainsEvent, date: string): boolean {
  const { historyEnd } = s.options;
  if (s.ledger === null || s.endDate === null || historyEnd === null || event.time >= historyEnd)
    return false;
  return dayNumber(date) <= dayNumber(s.endDate) + 30;
}

/** Declares the history complete (see `GainsEngine.finish`). */
function finish(s: EngineState): void {
  if (s.finished) return;
  s.finished = true;
  s.ledger?.finish();
  s.replay?.finish();
  // A period reaching into 2025 closes wallet by wallet even without a later event.
  if (s.options.periodEnd !== null && switchDue(s, s.options.periodEnd - 1)) switchToWallets(s);
}

/**
 * Creates an engine, empty or resumed from a carried `state` (same method and pooling). Events
 * before `period.start` only build lots; events at or after `period.end` are ignored.
 */
export function createGainsEngine(
  options: GainsOptions = {},
  state?: GainsState,
  observer?: GainsObserver,
): GainsEngine {
  const resolved = resolveGainsOptions(options);
  const { pooling, timeZone, periodStart, periodEnd } = resolved;
  const s: EngineState = {
    options: resolved,
    pools: new Map(),
    accountPools: pooling === 'account',
    balances: new Map(),
    records: new Map(),
    allocation: [],
    allocationRule: resolved.walletAllocation,
    activity: new Map(),
    disposals: [],
    income: [],
    warnings: [],
    poolHistory: [],
    counts: { events: 0, ignored: 0, lotsOpened: 0, lotsMatched: 0, disposals: 0 },
    opening: null,
    nextSeq: 0,
    ledger: null,
    startDate: periodStart === null ? null : localDate(periodStart, timeZone),
    endDate: periodEnd === null ? null : localDate(periodEnd - 1, timeZone),
    closing: null,
    switchAt:
      pooling === 'wallet-from-2025'
        ? DateTime.fromObject({ year: 2025, month: 1, day: 1 }, { zone: timeZone }).toMillis()
        : null,
    finished: false,
    observer: observer ?? null,
    // HMRC identification knows a disposal's cost only once its 30 days are matched: told then.
    replay:
      resolved.method === 'hmrc' && observer !== undefined
        ? createHmrcReplay(observer, {
            timeZone,
            scale: resolved.fiatScale,
            rounding: resolved.rounding,
          })
        : null,
  };
  s.ledger = createLedger(s);
  if (state !== undefined) restore(s, state);
  if (periodStart === null) s.opening = snapshot(s);
  return {
    options: resolved,
    process: (event) => processEvent(s, event),
    finish: () => finish(s),
    carry: () => carry(s),
    drain: () => ({
      disposals: s.disposals.splice(0),
      income: s.income.splice(0),
      warnings: s.warnings.splice(0),
    }),
    positions: () => positions(s),
    matchedAhead: (date) => s.replay?.matchedAhead(date) ?? [],
    result: () => ({
      options: resolved,
      disposals: s.disposals,
      income: s.income,
      warnings: s.warnings,
      rollForward: rollForward(s),
      poolHistory: s.poolHistory,
      allocation: s.allocation,
      counts: { ...s.counts },
    }),
  };
}
