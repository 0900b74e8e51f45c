/**
 * The gains engine: consumes events in order, keeps the open lots, and records disposals, income,
 * warnings and the roll-forward of the reported period. Its lot state can be carried to a later
 * run (`carry`), which then continues exactly as one pass would.
 */
import { IANAZone } from 'luxon';
import { ValidationError } from '../errors.ts';
import { Big, text, ZERO } from './big.ts';
import { type Lot, openLot, type Piece, Pool, shares } from './lots.ts';
import { localDate, taxYearLabel, taxYearOf, termOf, validTaxYearStart } from './tax-year.ts';
import type {
  AcquireEvent,
  DisposalLine,
  DisposeEvent,
  GainsCounts,
  GainsEvent,
  GainsOptions,
  GainsResult,
  GainsState,
  GainsWarning,
  IncomeLine,
  MoveEvent,
  ResolvedGainsOptions,
  RollForwardLine,
  Term,
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
  /** The open lots now, to resume from with {@link createGainsEngine}. */
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
}

const UNMATCHED: Readonly<Record<GainsEvent['kind'], string>> = {
  acquire: 'transfer in from outside the portfolio: a lot opens at the fiat value',
  dispose: 'transfer out of the portfolio: treated as a disposal at the fiat value',
  withdraw: 'transfer out of the portfolio: lots leave at their basis, without a gain',
  move: 'transfer between accounts',
};

const DAY_MS = 86_400_000;
const POSITIVE = /^\d+(?:\.\d+)?$/;

const METHODS = new Set(['fifo', 'lifo', 'hifo', 'average']);
const POOLINGS = new Set(['account', 'universal']);

function instantOption(field: string, value: string | null | undefined): number | null {
  if (value === undefined || value === null) return null;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new ValidationError(field, `is not an ISO instant: ${JSON.stringify(value)}`);
  return ms;
}

/** Applies the defaults and validates the options. */
export function resolveGainsOptions(options: GainsOptions = {}): ResolvedGainsOptions {
  const resolved: ResolvedGainsOptions = {
    method: options.method ?? 'fifo',
    pooling: options.pooling ?? 'universal',
    timeZone: options.timeZone ?? 'UTC',
    taxYearStart: options.taxYearStart ?? { month: 1, day: 1 },
    longTermYears: options.longTermYears ?? 1,
    longTermDays: options.longTermDays ?? null,
    fiatScale: options.fiatScale ?? 18,
    periodStart: instantOption('period.start', options.period?.start),
    periodEnd: instantOption('period.end', options.period?.end),
  };
  if (!METHODS.has(resolved.method))
    throw new ValidationError('method', 'must be fifo, lifo, hifo or average');
  if (!POOLINGS.has(resolved.pooling)) throw new ValidationError('pooling', 'must be account or universal');
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
  if (!Number.isInteger(resolved.fiatScale) || resolved.fiatScale < 2 || resolved.fiatScale > 60)
    throw new ValidationError('fiatScale', 'must be an integer from 2 to 60');
  if (
    resolved.periodStart !== null &&
    resolved.periodEnd !== null &&
    resolved.periodEnd < resolved.periodStart
  )
    throw new ValidationError('period', 'ends before it starts');
  return resolved;
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

const compareText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const flow = (): Flow => ({ quantity: ZERO, cost: ZERO });
const addFlow = (target: Flow, quantity: Big, cost: Big) => {
  target.quantity = target.quantity.plus(quantity);
  target.cost = target.cost.plus(cost);
};
const position = (f: Flow) => ({ quantity: text(f.quantity), cost: text(f.cost) });

/**
 * Creates an engine, empty or resumed from a carried `state` (same method and pooling). Events
 * before `period.start` only build lots; events at or after `period.end` are ignored.
 */
export function createGainsEngine(options: GainsOptions = {}, state?: GainsState): GainsEngine {
  const resolved = resolveGainsOptions(options);
  const {
    method,
    pooling,
    timeZone,
    taxYearStart,
    longTermYears,
    longTermDays,
    fiatScale,
    periodStart,
    periodEnd,
  } = resolved;
  const pools = new Map<string, Pool>();
  const disposals: DisposalLine[] = [];
  const income: IncomeLine[] = [];
  const warnings: GainsWarning[] = [];
  const activity = new Map<string, Activity>();
  const counts: GainsCounts = { events: 0, ignored: 0, lotsOpened: 0, lotsMatched: 0, disposals: 0 };
  let opening: Map<string, Flow> | null = null;
  let nextSeq = 0;

  const keyOf = (account: string, token: string) =>
    pooling === 'account' ? `${account}\u0000${token}` : `\u0000${token}`;

  function pool(account: string, token: string): Pool {
    const key = keyOf(account, token);
    let found = pools.get(key);
    if (found === undefined) {
      found = new Pool(token, pooling === 'account' ? account : null, method, fiatScale);
      pools.set(key, found);
    }
    return found;
  }

  function activityOf(account: string, token: string): Activity {
    const key = keyOf(account, token);
    let found = activity.get(key);
    if (found === undefined) {
      found = {
        acquired: flow(),
        transferredIn: flow(),
        disposed: flow(),
        transferredOut: flow(),
        unmatched: ZERO,
      };
      activity.set(key, found);
    }
    return found;
  }

  function snapshot(): Map<string, Flow> {
    const positions = new Map<string, Flow>();
    for (const [key, p] of pools) positions.set(key, { quantity: p.quantity, cost: p.cost });
    return positions;
  }

  if (state !== undefined) {
    if (state.version !== 1 || state.method !== method || state.pooling !== pooling) {
      throw new ValidationError(
        'state',
        `was carried with ${state.method}/${state.pooling}, not ${method}/${pooling}`,
      );
    }
    nextSeq = state.nextSeq;
    for (const carried of state.pools) {
      const target = new Pool(carried.token, carried.account, method, fiatScale);
      for (const lot of carried.lots) {
        target.add({
          ...lot,
          quantity: new Big(lot.quantity),
          cost: new Big(lot.cost),
          keyQuantity: new Big(lot.keyQuantity),
          keyCost: new Big(lot.keyCost),
        });
      }
      target.cost = new Big(carried.cost);
      pools.set(keyOf(carried.account ?? '', carried.token), target);
    }
  }
  if (periodStart === null) opening = snapshot();

  function warn(
    event: GainsEvent,
    kind: GainsWarning['kind'],
    account: string,
    quantity: string,
    message: string,
  ) {
    warnings.push({
      kind,
      txId: event.txId,
      time: event.time,
      token: event.token,
      account,
      quantity,
      message,
    });
  }

  function term(acquiredAt: number, disposedAt: number, disposedDate: string): Term {
    if (longTermDays !== null)
      return Math.floor((disposedAt - acquiredAt) / DAY_MS) > longTermDays ? 'long' : 'short';
    return termOf(localDate(acquiredAt, timeZone), disposedDate, longTermYears);
  }

  function taxYear(date: string): string {
    return taxYearLabel(taxYearOf(date, taxYearStart), taxYearStart);
  }

  function acquire(event: AcquireEvent, reported: boolean): void {
    const quantity = new Big(event.quantity);
    const cost = new Big(event.value ?? 0).plus(event.fee);
    pool(event.account, event.token).add(
      openLot({
        txId: event.txId,
        leg: event.leg,
        token: event.token,
        account: event.account,
        quantity,
        cost,
        acquiredAt: event.time,
        seq: nextSeq++,
      }),
    );
    counts.lotsOpened += 1;
    if (!reported) return;
    addFlow(activityOf(event.account, event.token).acquired, quantity, cost);
    if (event.value === null) {
      warn(
        event,
        'missing-value',
        event.account,
        text(quantity),
        'acquisition without a fiat value: zero basis',
      );
    }
    if (event.missingBasis === true) {
      warn(
        event,
        'missing-cost-basis',
        event.account,
        text(quantity),
        'transfer in from outside the portfolio: zero cost basis until its cost is supplied',
      );
    }
    if (event.income !== null) {
      income.push({
        txId: event.txId,
        time: event.time,
        taxYear: taxYear(localDate(event.time, timeZone)),
        category: event.income,
        token: event.token,
        account: event.account,
        quantity: text(quantity),
        value: event.value ?? '0',
      });
    }
  }

  function dispose(event: DisposeEvent, reported: boolean): void {
    const quantity = new Big(event.quantity);
    const taken = pool(event.account, event.token).take(quantity);
    const parts: { piece: Piece | null; quantity: Big }[] = taken.pieces.map((piece) => ({
      piece,
      quantity: piece.quantity,
    }));
    if (taken.shortfall.gt(0)) parts.push({ piece: null, quantity: taken.shortfall });
    counts.disposals += 1;
    counts.lotsMatched += parts.length;
    if (!reported) return;
    const proceeds = new Big(event.value ?? 0).minus(event.fee);
    const proceedShares = shares(
      proceeds,
      parts.map((part) => part.quantity),
      fiatScale,
    );
    const disposedDate = localDate(event.time, timeZone);
    const year = taxYear(disposedDate);
    parts.forEach(({ piece, quantity: partQuantity }, index) => {
      const share = proceedShares[index] ?? ZERO;
      const cost = piece?.cost ?? ZERO;
      const lot: Lot | null = piece?.lot ?? null;
      disposals.push({
        token: event.token,
        quantity: text(partQuantity),
        acquiredAt: lot?.acquiredAt ?? null,
        disposedAt: event.time,
        proceeds: text(share),
        cost: text(cost),
        gain: text(share.minus(cost)),
        term: lot === null ? 'short' : term(lot.acquiredAt, event.time, disposedDate),
        taxYear: year,
        account: event.account,
        acquiredTxId: lot?.txId ?? null,
        disposedTxId: event.txId,
      });
    });
    const act = activityOf(event.account, event.token);
    addFlow(act.disposed, taken.quantity, taken.cost);
    act.unmatched = act.unmatched.plus(taken.shortfall);
    if (event.value === null) {
      warn(
        event,
        'missing-value',
        event.account,
        text(quantity),
        'disposal without a fiat value: zero proceeds',
      );
    }
    if (taken.shortfall.gt(0)) {
      warn(
        event,
        'zero-basis',
        event.account,
        text(taken.shortfall),
        `disposal of ${text(quantity)} found only ${text(taken.quantity)} in open lots: the rest has a zero basis`,
      );
    }
  }

  function move(event: MoveEvent, reported: boolean): void {
    const fee = event.fee === undefined ? ZERO : new Big(event.fee);
    if (event.from === event.to) return;
    if (pooling === 'universal') {
      if (fee.gt(0)) addToBasis(event, fee, reported);
      return;
    }
    const quantity = new Big(event.quantity);
    const taken = pool(event.from, event.token).take(quantity);
    const target = pool(event.to, event.token);
    const feeShares = shares(
      fee,
      [...taken.pieces.map((piece) => piece.quantity), ...(taken.shortfall.gt(0) ? [taken.shortfall] : [])],
      fiatScale,
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
          seq: nextSeq++,
        }),
      );
      counts.lotsOpened += 1;
    }
    if (!reported) return;
    addFlow(activityOf(event.from, event.token).transferredOut, taken.quantity, taken.cost);
    addFlow(activityOf(event.to, event.token).transferredIn, quantity, taken.cost.plus(fee));
    if (taken.shortfall.gt(0)) {
      warn(
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
  function addToBasis(event: MoveEvent, fee: Big, reported: boolean): void {
    const target = pool(event.from, event.token);
    const taken = target.take(new Big(event.quantity));
    // Nothing held: no lot to carry the fee, which is dropped.
    if (taken.pieces.length === 0) return;
    const feeShares = shares(
      fee,
      taken.pieces.map((piece) => piece.quantity),
      fiatScale,
    );
    // Put back in front of what is left of their lots, so the next consumption takes them first.
    for (let index = taken.pieces.length - 1; index >= 0; index -= 1) {
      const piece = taken.pieces[index] as Piece;
      target.add(
        { ...piece.lot, quantity: piece.quantity, cost: piece.cost.plus(feeShares[index] ?? ZERO) },
        true,
      );
    }
    if (reported) addFlow(activityOf(event.to, event.token).transferredIn, ZERO, fee);
  }

  function withdraw(event: WithdrawEvent, reported: boolean): void {
    const quantity = new Big(event.quantity);
    const taken = pool(event.account, event.token).take(quantity);
    if (!reported) return;
    addFlow(activityOf(event.account, event.token).transferredOut, taken.quantity, taken.cost);
    if (taken.shortfall.gt(0)) {
      warn(
        event,
        'negative-balance',
        event.account,
        text(taken.shortfall),
        `transfer out of ${text(quantity)} found only ${text(taken.quantity)} in open lots`,
      );
    }
  }

  function carry(): GainsState {
    const carried: GainsState['pools'] = [];
    for (const p of pools.values()) {
      const lots = p.lots();
      if (lots.length === 0 && p.cost.eq(0)) continue;
      carried.push({
        token: p.token,
        account: p.account,
        cost: text(p.cost),
        lots: lots.map((lot) => ({
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
        })),
      });
    }
    carried.sort((a, b) => compareText(a.token, b.token) || compareText(a.account ?? '', b.account ?? ''));
    return { version: 1, method, pooling, nextSeq, pools: carried };
  }

  function rollForward(): RollForwardLine[] {
    // Before the period has started the opening is the current state (not frozen: events may follow).
    const open = opening ?? snapshot();
    const keys = new Set([...open.keys(), ...activity.keys(), ...pools.keys()]);
    const lines: RollForwardLine[] = [];
    for (const key of keys) {
      const [account, token] = key.split('\u0000') as [string, string];
      const start = open.get(key) ?? flow();
      const act = activity.get(key);
      const end = pools.get(key);
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
        account: pooling === 'account' ? account : null,
        opening: position(start),
        acquired: position(act?.acquired ?? flow()),
        transferredIn: position(act?.transferredIn ?? flow()),
        disposed: position(act?.disposed ?? flow()),
        transferredOut: position(act?.transferredOut ?? flow()),
        unmatchedDisposed: text(act?.unmatched ?? ZERO),
        closing: position(closing),
      });
    }
    return lines.sort(
      (a, b) => compareText(a.token, b.token) || compareText(a.account ?? '', b.account ?? ''),
    );
  }

  return {
    options: resolved,
    process(event) {
      if (periodEnd !== null && event.time >= periodEnd) {
        counts.ignored += 1;
        return false;
      }
      const reported = periodStart === null || event.time >= periodStart;
      if (reported && opening === null) opening = snapshot();
      if (!POSITIVE.test(event.quantity) || new Big(event.quantity).eq(0)) {
        throw new ValidationError(
          `event ${event.txId}#${event.leg}.quantity`,
          `must be positive: ${event.quantity}`,
        );
      }
      counts.events += 1;
      if (reported && event.unmatchedTransfer === true) {
        const account = event.kind === 'move' ? event.from : event.account;
        warn(event, 'unmatched-transfer', account, text(new Big(event.quantity)), UNMATCHED[event.kind]);
      }
      switch (event.kind) {
        case 'acquire':
          acquire(event, reported);
          break;
        case 'dispose':
          dispose(event, reported);
          break;
        case 'move':
          move(event, reported);
          break;
        case 'withdraw':
          withdraw(event, reported);
          break;
      }
      return true;
    },
    carry,
    drain: () => ({
      disposals: disposals.splice(0),
      income: income.splice(0),
      warnings: warnings.splice(0),
    }),
    result: () => ({
      options: resolved,
      disposals,
      income,
      warnings,
      rollForward: rollForward(),
      counts: { ...counts },
    }),
  };
}
