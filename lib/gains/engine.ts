/**
 * The gains engine: consumes events in order, keeps the open lots, and records disposals, income,
 * warnings and the roll-forward of the reported period. Its lot state can be carried to a later
 * run (`carry`), which then continues exactly as one pass would.
 */
import { Big, compareText, text, ZERO } from '../domain/index.ts';
import { ValidationError } from '../errors.ts';
import {
  activityOf,
  addFlow,
  carriedLot,
  type EngineState,
  type Flow,
  flow,
  pairKey,
  pairOf,
  pool,
  revive,
  snapshot,
  taxYear,
  term,
  told,
  warn,
  warnIfNoValue,
} from './engine-state.ts';
import { type Lot, openLot, type Piece, Pool, shares } from './lots.ts';
import { resolveGainsOptions } from './options.ts';
import { lotMethod, poolingRules, ruleSet } from './rules/index.ts';
import { localDate } from './tax-year.ts';
import type {
  AcquireEvent,
  BasisMove,
  DisposeEvent,
  GainsEvent,
  GainsObserver,
  GainsOptions,
  GainsResult,
  GainsState,
  MoveEvent,
  PoolPosition,
  ResolvedGainsOptions,
  RollForwardLine,
  WithdrawEvent,
} from './types.ts';

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
   * Whether the pools are per account now (pooling by account, or wallet by wallet since the
   * switch); `false`: one pool per token (universal, or HMRC's section 104 pool).
   */
  pooledByAccount(): boolean;
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

const POSITIVE = /^\d+(?:\.\d+)?$/;

const position = (f: Flow) => ({ quantity: text(f.quantity), cost: text(f.cost) });

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
  if (state.hmrc !== undefined) s.identification?.restore(state.hmrc);
  if (state.walletSwitch !== undefined) s.switch?.restore(state.walletSwitch);
}

function acquire(s: EngineState, event: AcquireEvent, reported: boolean, date: string): void {
  const quantity = new Big(event.quantity);
  // de: the fee of an income receipt is a Werbungskosten of the income, not acquisition cost.
  const feeIsExpense = event.income !== null && s.fees.income === 'expense';
  const cost = new Big(event.value ?? 0).plus(feeIsExpense ? 0 : event.fee);
  const acquired = (): BasisMove => ({
    ...told(event, event.account, quantity, quantity, cost, reported),
    value: event.value ?? '0',
    fee: text(new Big(event.fee)),
    feeIsExpense,
    income: event.income,
  });
  if (s.identification !== null) {
    s.identification.acquire(event, date, quantity, cost, reported, acquired);
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
    s.switch?.opened(lot);
    s.observer?.basis(acquired());
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
  if (s.identification !== null) {
    s.counts.disposals += 1;
    s.identification.dispose(event, date, quantity, reported);
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
  if (s.identification !== null) {
    s.identification.move(event, date, fee, reported);
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
  if (s.identification !== null) {
    s.identification.withdraw(event, date, quantity, reported);
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
  if (s.identification !== null) out.hmrc = s.identification.carry();
  if (s.switch !== null) out.walletSwitch = s.switch.carry();
  return out;
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
  if (s.options.periodEnd !== null && event.time >= s.options.periodEnd && !readsPastPeriod(s, event, date)) {
    s.counts.ignored += 1;
    return false;
  }
  // HMRC identification reports whole local days; the opening waits for the days before them.
  const id = s.identification;
  const reported =
    id !== null ? id.reported(date) : s.options.periodStart === null || event.time >= s.options.periodStart;
  if (id === null && reported && s.opening === null) s.opening = snapshot(s);
  if (!POSITIVE.test(event.quantity) || new Big(event.quantity).eq(0)) {
    throw new ValidationError(
      `event ${event.txId}#${event.leg}.quantity`,
      `must be positive: ${event.quantity}`,
    );
  }
  s.counts.events += 1;
  // HMRC identification: told once the day is final (the replay).
  if (id?.tells !== true) s.observer?.event?.(event, reported);
  s.switch?.before(event.time);
  id?.arrive(date);
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
  s.switch?.after(event);
  return true;
}

/**
 * Whether an event after the period end can still change the period's figures: a method that
 * reads past the period (HMRC identification's 30-day rule, rules/uk/identification.ts) processes
 * it, not reported.
 */
function readsPastPeriod(s: EngineState, event: GainsEvent, date: string): boolean {
  return s.identification?.reads(event, date) ?? false;
}

/** Declares the history complete (see `GainsEngine.finish`). */
function finish(s: EngineState): void {
  if (s.finished) return;
  s.finished = true;
  s.identification?.finish();
  // A period reaching into 2025 closes wallet by wallet even without a later event.
  if (s.options.periodEnd !== null) s.switch?.before(s.options.periodEnd - 1);
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
  const { timeZone, periodStart, periodEnd } = resolved;
  const rules = ruleSet(resolved.taxRules);
  const pooling = poolingRules(resolved.pooling);
  const s: EngineState = {
    options: resolved,
    fees: { disposal: rules.disposalFee, income: rules.incomeFee },
    pools: new Map(),
    accountPools: pooling.perAccount,
    allocation: [],
    activity: new Map(),
    disposals: [],
    income: [],
    warnings: [],
    poolHistory: [],
    counts: { events: 0, ignored: 0, lotsOpened: 0, lotsMatched: 0, disposals: 0 },
    opening: null,
    nextSeq: 0,
    identification: null,
    startDate: periodStart === null ? null : localDate(periodStart, timeZone),
    endDate: periodEnd === null ? null : localDate(periodEnd - 1, timeZone),
    closing: null,
    switch: null,
    finished: false,
    observer: observer ?? null,
  };
  // The matching rules the rule sets bring: a method with its own books, pools that switch.
  s.identification = lotMethod(resolved.method).identification?.(s, s.observer) ?? null;
  s.switch = pooling.switch?.(s) ?? null;
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
    pooledByAccount: () => s.accountPools && s.identification === null,
    matchedAhead: (date) => s.identification?.matchedAhead(date) ?? [],
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
