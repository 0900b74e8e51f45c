/**
 * Input adapter: canonical transactions become engine events. See README.md for the mapping of
 * every category; in short, an out movement disposes, an in movement acquires, income categories
 * acquire as income, transfers paired inside the portfolio move lots, and a fee paid in a token
 * disposes of that token.
 */

import {
  absDecimal,
  Big,
  type CanonicalMovement,
  type CanonicalTransaction,
  mulDiv,
  text,
  ZERO,
} from '../domain/index.ts';
import { ValidationError } from '../errors.ts';
import { GainsOrderError } from './errors.ts';
import {
  type AdapterOptions,
  DEFAULT_FIAT_SYMBOLS,
  DEFAULT_TRANSFER_TOLERANCE,
  NO_ACCOUNT,
  POSITION_MOVES,
  positionAccount,
  type TransferInCost,
} from './event-options.ts';
import type { AcquireEvent, DisposeEvent, GainsEvent, MoveEvent } from './types.ts';

export {
  type AdapterOptions,
  DEFAULT_FIAT_SYMBOLS,
  DEFAULT_TRANSFER_TOLERANCE,
  type ExchangeValue,
  NO_ACCOUNT,
  POSITION_MOVES,
  type ProtocolMoves,
  positionAccount,
  type TransferFee,
  type TransferInBasis,
  type TransferInCost,
} from './event-options.ts';

/** A move of lots between two accounts (of the portfolio, or into and out of a protocol position). */
function moveEvent(
  txId: string,
  leg: number,
  time: number,
  token: string,
  quantity: string,
  from: string,
  to: string,
): MoveEvent {
  return { kind: 'move', txId, leg, time, token, quantity, from, to };
}

/** Adds a fiat fee to the first move among `events`, if any. */
function addMoveFee(events: readonly GainsEvent[], fee: string): void {
  const move = events.find((event): event is MoveEvent => event.kind === 'move');
  if (move !== undefined) move.fee = text(new Big(move.fee ?? 0).plus(fee));
}

const RANK: Readonly<Record<GainsEvent['kind'], number>> = { acquire: 0, move: 1, withdraw: 2, dispose: 2 };

// Constructors with one fixed shape per kind (object spreads are slow on this path).
function disposal(
  txId: string,
  leg: number,
  time: number,
  token: string,
  account: string,
  quantity: string,
  value: string | null,
  unmatchedTransfer: true | undefined,
): DisposeEvent {
  return { kind: 'dispose', txId, leg, time, token, account, quantity, value, fee: '0', unmatchedTransfer };
}

function acquisition(
  txId: string,
  leg: number,
  time: number,
  token: string,
  account: string,
  quantity: string,
  value: string | null,
  income: string | null,
  unmatchedTransfer: true | undefined,
): AcquireEvent {
  return {
    kind: 'acquire',
    txId,
    leg,
    time,
    token,
    account,
    quantity,
    value,
    fee: '0',
    income,
    unmatchedTransfer,
  };
}

/** A non-fiat, non-zero movement of a transaction. */
interface Leg {
  entry: Entry;
  leg: number;
  movement: CanonicalMovement;
  /** Signed, as sent. */
  quantity: Big;
  /** Pairing group (key and token) of a transfer's leg; `null` for other categories. */
  group: string | null;
  /** Out side of a transfer: the in side it pairs with, `null` when external, absent until decided. */
  pair?: Leg | null;
  /** In side of a transfer: taken by an out side. */
  paired?: boolean;
  /** A side of a transfer paired by hand ({@link AdapterOptions.transferPairs}): waits for its counterpart. */
  explicit?: true;
}

/** A transaction waiting to become events. */
interface Entry {
  tx: CanonicalTransaction;
  /** Arrival order: the input order of transactions at one instant. */
  seq: number;
  time: number;
  account: string;
  transfer: boolean;
  legs: Leg[];
}

const byEntry = (a: Entry, b: Entry) => a.time - b.time || a.seq - b.seq;
const byLeg = (a: Leg, b: Leg) => byEntry(a.entry, b.entry) || a.leg - b.leg;

/** Inserts `item` into the sorted `list` after every item not greater than it. */
function insertSorted<T>(list: T[], item: T, compare: (a: T, b: T) => number, from = 0): void {
  let low = from;
  let high = list.length;
  if (high > low && compare(list[high - 1] as T, item) <= 0) {
    list.push(item);
    return;
  }
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compare(list[mid] as T, item) <= 0) low = mid + 1;
    else high = mid;
  }
  list.splice(low, 0, item);
}

/**
 * The values of an exchange of tokens for tokens seen from the other side: each out movement gets
 * its share of what the in movements are worth, each in movement its share of what the out
 * movements are worth, shared by the movements' own values (the last takes the exact rest).
 * `null` (own values stay) unless both sides have movements with known values and a non-zero total.
 */
function counterpartValues(
  outs: readonly Leg[],
  ins: readonly Leg[],
  scale: number,
): Map<Leg, string> | null {
  if (outs.length === 0 || ins.length === 0) return null;
  const own = (leg: Leg) => (leg.movement.value === null ? null : new Big(absDecimal(leg.movement.value)));
  const total = (legs: readonly Leg[]) => {
    let sum = ZERO;
    for (const leg of legs) {
      const value = own(leg);
      if (value === null) return null;
      sum = sum.plus(value);
    }
    return sum;
  };
  const given = total(outs);
  const received = total(ins);
  if (given === null || received === null || given.eq(0) || received.eq(0)) return null;
  const values = new Map<Leg, string>();
  const share = (legs: readonly Leg[], from: Big, amount: Big) => {
    let rest = amount;
    legs.forEach((leg, index) => {
      const part = index === legs.length - 1 ? rest : mulDiv(amount, own(leg) as Big, from, scale);
      rest = rest.minus(part);
      values.set(leg, text(part));
    });
  };
  share(outs, given, received);
  share(ins, received, given);
  return values;
}

/**
 * Transactions in, engine events out, for a history that arrives in pieces (fetch windows).
 * Transfers between own accounts are paired across pieces: a side waits up to the tolerance for
 * its counterpart, so the events do not depend on where the history was cut.
 */
export interface EventStream {
  /** Adds one transaction; inside a piece, transactions may come in any order. */
  add(tx: CanonicalTransaction): void;
  /**
   * Declares every transaction at or before `complete` (epoch ms) added, and returns the events
   * that are now final, in processing order. A later transaction at or before it is refused.
   */
  advance(complete: number): GainsEvent[];
  /** Declares the history complete and returns the remaining events. */
  finish(): GainsEvent[];
  /** The latest instant declared complete (`-Infinity` before the first advance). */
  readonly complete: number;
  /**
   * The instant of the earliest transaction added but not yet turned into events (`Infinity` when
   * none): every transaction added so far and dated before it has had its events returned.
   */
  readonly pendingFrom: number;
}

/**
 * Creates an {@link EventStream}. Events come in processing order: by instant, then input order
 * (or, with `acquisitions-first`, acquisitions, transfers, disposals at one instant). Inside a
 * transaction: out movements, then in movements, then the fee paid in a token.
 */
export function createEventStream(options: AdapterOptions = {}): EventStream {
  const fiatBase = new Set(options.fiatSymbols ?? DEFAULT_FIAT_SYMBOLS);
  const incomeCategories = new Set(options.incomeCategories ?? ['income', 'staking']);
  const transferCategories = new Set(options.transferCategories ?? ['transfer', 'bridge']);
  const feeCategories = new Set(options.feeCategories ?? ['fee']);
  const external = options.externalTransfers ?? 'non-taxable';
  const pairKey = options.pairKey ?? ((tx: CanonicalTransaction) => tx.hash);
  const scale = options.fiatScale ?? 18;
  const tolerance = options.transferTolerance ?? DEFAULT_TRANSFER_TOLERANCE;
  if (!Number.isFinite(tolerance) || tolerance < 0)
    throw new ValidationError('transferTolerance', 'must be a non-negative number of milliseconds');
  const byRank = options.sameTimeOrder === 'acquisitions-first';
  const zeroInBasis = options.transferInBasis === 'zero';
  const transferFeeToBasis = options.transferFee === 'basis';
  const positionMoves = options.protocolMoves === 'non-taxable';
  const counterpart = options.exchangeValue === 'counterpart';
  const pairedOuts = options.transferPairs ?? new Map<string, string>();
  /** In transaction id → the out transaction id of its hand-made pair. */
  const pairedIns = new Map([...pairedOuts].map(([out, inside]) => [inside, out]));
  const inCosts = options.transferInCosts ?? new Map<string, ReadonlyMap<string, TransferInCost>>();
  /** Quantity in each protocol position (JSON of position account and token), to tell what comes back from the excess. */
  const positions = new Map<string, Big>();
  /** Transactions whose fiat fee has joined a move already (a paired in side, before its own turn). */
  const feesApplied = new Set<Entry>();

  /** Transactions not yet turned into events, by instant and arrival. */
  const pending: Entry[] = [];
  /** Out sides of transfers whose pairing is not decided, by instant and arrival. */
  const undecided: Leg[] = [];
  let undecidedHead = 0;
  /** In sides of transfers not yet turned into events, per pairing group, by instant and arrival. */
  const ins = new Map<string, Leg[]>();
  let seq = 0;
  let complete = Number.NEGATIVE_INFINITY;

  const isFiat = (tx: CanonicalTransaction, symbol: string) =>
    fiatBase.has(symbol) || symbol === tx.valueCurrency || symbol === tx.feeCurrency;

  function add(tx: CanonicalTransaction): void {
    const time = Date.parse(tx.date);
    if (Number.isNaN(time)) throw new ValidationError(`transactions[${tx.id}].date`, 'is not an ISO instant');
    if (time <= complete) throw new GainsOrderError(tx.id, tx.date, complete);
    // A pair made by hand is keyed by its out transaction's id, apart from every key of the data.
    const pairedBy = pairedOuts.has(tx.id) ? tx.id : pairedIns.get(tx.id);
    const transfer = pairedBy !== undefined || transferCategories.has(tx.category ?? '');
    const entry: Entry = { tx, seq: seq++, time, account: tx.accountId ?? NO_ACCOUNT, transfer, legs: [] };
    const costs = inCosts.get(tx.id);
    let key: string | null = null;
    if (pairedBy !== undefined) key = JSON.stringify(['pair', pairedBy]);
    else if (transfer) {
      const given = pairKey(tx);
      // A transaction without a key pairs only with itself.
      key = JSON.stringify(given === null || given === '' ? ['tx', tx.id] : ['key', given]);
    }
    tx.movements.forEach((movement, index) => {
      if (isFiat(tx, movement.symbol)) return;
      const quantity = new Big(movement.amount);
      if (quantity.eq(0)) return;
      // An in side with a cost given by hand came from outside: it pairs with nothing.
      const external = quantity.gt(0) && costs?.has(movement.symbol) === true;
      const group = key === null || external ? null : JSON.stringify([key, movement.symbol]);
      const leg: Leg = { entry, leg: index, movement, quantity, group };
      if (pairedBy !== undefined && group !== null) leg.explicit = true;
      entry.legs.push(leg);
      if (group === null) return;
      if (quantity.lt(0)) insertSorted(undecided, leg, byLeg, undecidedHead);
      else {
        let list = ins.get(group);
        if (list === undefined) {
          list = [];
          ins.set(group, list);
        }
        insertSorted(list, leg, byLeg);
      }
    });
    insertSorted(pending, entry, byEntry);
  }

  /** Pairs an out side with the first unpaired in side of its group, in another account (or its own transaction) and within the tolerance. */
  function decide(out: Leg): void {
    const candidates = ins.get(out.group ?? '') ?? [];
    const match = candidates.find(
      (candidate) =>
        candidate.paired !== true &&
        (out.explicit === true ||
          (Math.abs(candidate.entry.time - out.entry.time) <= tolerance &&
            (candidate.entry === out.entry || candidate.entry.account !== out.entry.account))),
    );
    if (match === undefined) out.pair = null;
    else {
      match.paired = true;
      out.pair = match;
    }
  }

  function decideUpTo(limit: number): void {
    while (undecidedHead < undecided.length) {
      const out = undecided[undecidedHead] as Leg;
      // Every in side it may pair with (up to its instant + tolerance) has arrived; a pair made
      // by hand waits for its own in side, however far away (to the end of the history).
      if (out.explicit === true) {
        if (limit !== Number.POSITIVE_INFINITY && !ins.has(out.group ?? '')) break;
      } else if (out.entry.time + tolerance > limit) break;
      decide(out);
      undecided[undecidedHead] = undefined as unknown as Leg;
      undecidedHead += 1;
    }
    if (undecidedHead > 1024 && undecidedHead * 2 > undecided.length) {
      undecided.splice(0, undecidedHead);
      undecidedHead = 0;
    }
  }

  /** Whether every side of the entry's transfers is decided. */
  function isFinal(entry: Entry, limit: number): boolean {
    if (!entry.transfer) return true;
    const nextOut = (undecided[undecidedHead] as Leg | undefined)?.entry.time ?? Number.POSITIVE_INFINITY;
    return entry.legs.every((leg) => {
      if (leg.group === null) return true;
      if (leg.quantity.lt(0)) return leg.pair !== undefined;
      if (leg.explicit === true) return leg.paired === true || limit === Number.POSITIVE_INFINITY;
      // An unpaired in side is final once every out side that could take it is decided.
      return leg.paired === true || (entry.time + tolerance <= limit && nextOut > entry.time + tolerance);
    });
  }

  function release(entry: Entry): void {
    for (const leg of entry.legs) {
      if (leg.group === null || leg.quantity.lt(0)) continue;
      const list = ins.get(leg.group);
      if (list === undefined) continue;
      const at = list.indexOf(leg);
      if (at >= 0) list.splice(at, 1);
      if (list.length === 0) ins.delete(leg.group);
    }
  }

  function emitUpTo(limit: number): GainsEvent[] {
    const out: GainsEvent[] = [];
    let taken = 0;
    while (taken < pending.length) {
      const time = (pending[taken] as Entry).time;
      let end = taken;
      while (end < pending.length && (pending[end] as Entry).time === time) end += 1;
      const group = pending.slice(taken, end);
      if (!group.every((entry) => isFinal(entry, limit))) break;
      const placed: GainsEvent[] = [];
      for (const entry of group) {
        eventsOf(entry, placed);
        release(entry);
      }
      if (byRank) {
        const ranked = placed.map((event, order) => ({ event, order }));
        ranked.sort((a, b) => RANK[a.event.kind] - RANK[b.event.kind] || a.order - b.order);
        for (const { event } of ranked) out.push(event);
      } else {
        for (const event of placed) out.push(event);
      }
      taken = end;
    }
    pending.splice(0, taken);
    return out;
  }

  /** Which side of a protocol position the transaction is, with `protocolMoves: 'non-taxable'`. */
  function positionSide(tx: CanonicalTransaction): 'enter' | 'exit' | null {
    if (!positionMoves) return null;
    const moves = POSITION_MOVES[tx.category ?? ''];
    const subType = tx.subType ?? '';
    if (moves === undefined) return null;
    if (moves.enter.includes(subType)) return 'enter';
    if (moves.exit.includes(subType)) return 'exit';
    return null;
  }

  /** The fiat fee of a transaction as a positive decimal, or `null` when none. */
  function fiatFee(tx: CanonicalTransaction): string | null {
    const fee = tx.feeAmount === null ? null : absDecimal(tx.feeAmount);
    return fee === null || new Big(fee).eq(0) ? null : fee;
  }

  /** Appends the moves of a protocol position: lots in (enter) or back out, the excess acquired at value. */
  function positionEvents(entry: Entry, side: 'enter' | 'exit', events: GainsEvent[]): void {
    const { tx, time, account } = entry;
    const position = positionAccount(account, tx.category ?? '', tx.protocol);
    for (const leg of entry.legs) {
      const { symbol, value } = leg.movement;
      const key = JSON.stringify([position, symbol]);
      const held = positions.get(key) ?? ZERO;
      if (side === 'enter' && leg.quantity.lt(0)) {
        const quantity = leg.quantity.abs();
        positions.set(key, held.plus(quantity));
        events.push(moveEvent(tx.id, leg.leg, time, symbol, text(quantity), account, position));
      } else if (side === 'exit' && leg.quantity.gt(0)) {
        const back = leg.quantity.lt(held) ? leg.quantity : held;
        if (back.gt(0)) {
          positions.set(key, held.minus(back));
          events.push(moveEvent(tx.id, leg.leg, time, symbol, text(back), position, account));
        }
        const extra = leg.quantity.minus(back);
        if (extra.gt(0)) {
          // More comes back than went in (interest, pool fees, price moves): acquired at its share of the value.
          const extraValue =
            value === null ? null : text(mulDiv(new Big(absDecimal(value)), extra, leg.quantity, scale));
          events.push(
            acquisition(tx.id, leg.leg, time, symbol, account, text(extra), extraValue, null, undefined),
          );
        }
      }
      // The other side (a receipt token) stands for the position: not a lot.
    }
  }

  /** Appends the events of one transaction. */
  function eventsOf(entry: Entry, events: GainsEvent[]): void {
    const { tx, time, account } = entry;
    const category = tx.category ?? '';
    const isTransfer = entry.transfer;
    const isFeeCategory = feeCategories.has(category);
    const outs = entry.legs.filter((leg) => leg.quantity.lt(0));
    const insOf = entry.legs.filter((leg) => leg.quantity.gt(0));
    const incomeCategory = incomeCategories.has(category) && outs.length === 0 ? category : null;
    const unmatched = isTransfer ? true : undefined;
    const first = events.length;
    const side = isTransfer ? null : positionSide(tx);
    /** Fiat fees of the paired in sides (`transferFee: 'basis'`), added to their moves once per transaction. */
    const inFees: { move: MoveEvent; fee: string }[] = [];

    if (side !== null) positionEvents(entry, side, events);
    else {
      const exchanged = counterpart && !isTransfer ? counterpartValues(outs, insOf, scale) : null;
      for (const leg of outs) {
        const { symbol, amount } = leg.movement;
        const value = exchanged?.get(leg) ?? leg.movement.value;
        const pair = isTransfer ? leg.pair : undefined;
        if (pair !== undefined && pair !== null) {
          const quantity = leg.quantity.abs();
          const received = pair.quantity;
          const to = pair.entry.account;
          const moved = received.lt(quantity) ? received : quantity;
          const move = moveEvent(tx.id, leg.leg, time, symbol, text(moved), account, to);
          events.push(move);
          const inFee = pair.entry === entry ? null : fiatFee(pair.entry.tx);
          if (transferFeeToBasis && inFee !== null && !feesApplied.has(pair.entry)) {
            feesApplied.add(pair.entry);
            inFees.push({ move, fee: inFee });
          }
          if (received.lt(quantity)) {
            // Sent more than arrived: the difference is spent (a fee taken from the amount) at its share of the value.
            const lost = quantity.minus(received);
            const lostValue =
              value === null ? null : text(mulDiv(new Big(absDecimal(value)), lost, quantity, scale));
            events.push(disposal(tx.id, leg.leg, time, symbol, account, text(lost), lostValue, undefined));
          } else if (received.gt(quantity)) {
            const extra = received.minus(quantity);
            const inValue = pair.movement.value;
            const extraValue =
              inValue === null ? null : text(mulDiv(new Big(absDecimal(inValue)), extra, received, scale));
            events.push(
              acquisition(
                pair.entry.tx.id,
                pair.leg,
                time,
                symbol,
                to,
                text(extra),
                extraValue,
                null,
                undefined,
              ),
            );
          }
        } else if (isTransfer && external === 'non-taxable') {
          events.push({
            kind: 'withdraw',
            txId: tx.id,
            leg: leg.leg,
            time,
            token: symbol,
            account,
            quantity: absDecimal(amount),
            unmatchedTransfer: true,
          });
        } else {
          events.push(
            disposal(
              tx.id,
              leg.leg,
              time,
              symbol,
              account,
              absDecimal(amount),
              value === null ? null : absDecimal(value),
              unmatched,
            ),
          );
        }
      }
      for (const leg of insOf) {
        if (isTransfer && leg.paired === true) continue;
        const { symbol, amount, value } = leg.movement;
        const given = isTransfer ? inCosts.get(tx.id)?.get(symbol) : undefined;
        if (given !== undefined) {
          const event = acquisition(
            tx.id,
            leg.leg,
            time,
            symbol,
            account,
            amount,
            given.cost,
            null,
            undefined,
          );
          if (given.acquiredAt !== undefined) event.acquiredAt = given.acquiredAt;
          events.push(event);
          continue;
        }
        if (isTransfer && zeroInBasis) {
          const event = acquisition(tx.id, leg.leg, time, symbol, account, amount, '0', null, unmatched);
          event.missingBasis = true;
          events.push(event);
          continue;
        }
        const income = isTransfer ? null : incomeCategory;
        const cost = exchanged?.get(leg) ?? value;
        events.push(
          acquisition(
            tx.id,
            leg.leg,
            time,
            symbol,
            account,
            amount,
            cost === null ? null : absDecimal(cost),
            income,
            unmatched,
          ),
        );
      }
    }

    // In a fee category the out movements are the fee itself; the fee fields only stand in for missing ones.
    if (!isFeeCategory || outs.length === 0) {
      const fee = fiatFee(tx);
      const own = events.slice(first);
      if (fee !== null && !isTransfer) {
        // A fiat fee: from the first disposal's proceeds, else onto the first acquisition's basis,
        // else (a move into or out of a position) as a transfer's fee.
        const target =
          own.find((event): event is DisposeEvent => event.kind === 'dispose') ??
          own.find((event): event is AcquireEvent => event.kind === 'acquire');
        if (target !== undefined) target.fee = fee;
        else if (transferFeeToBasis) addMoveFee(own, fee);
      } else if (fee !== null && transferFeeToBasis && !feesApplied.has(entry)) {
        // A transfer's fee joins the basis of its first move (an unpaired transfer has none: dropped).
        feesApplied.add(entry);
        addMoveFee(own, fee);
      }
      const feeQuantity = tx.feeQuantity === null ? null : absDecimal(tx.feeQuantity);
      if (
        tx.feeSymbol !== null &&
        feeQuantity !== null &&
        !isFiat(tx, tx.feeSymbol) &&
        new Big(feeQuantity).gt(0)
      ) {
        events.push(
          disposal(
            tx.id,
            tx.movements.length,
            time,
            tx.feeSymbol,
            account,
            feeQuantity,
            tx.feeAmount === null ? null : absDecimal(tx.feeAmount),
            undefined,
          ),
        );
      }
    }
    for (const { move, fee } of inFees) move.fee = text(new Big(move.fee ?? 0).plus(fee));
    feesApplied.delete(entry);
  }

  return {
    add,
    advance(limit) {
      if (limit > complete) complete = limit;
      decideUpTo(complete);
      return emitUpTo(complete);
    },
    finish() {
      complete = Number.POSITIVE_INFINITY;
      decideUpTo(complete);
      return emitUpTo(complete);
    },
    get complete() {
      return complete;
    },
    get pendingFrom() {
      return (pending[0] as Entry | undefined)?.time ?? Number.POSITIVE_INFINITY;
    },
  };
}

/**
 * Turns a whole history into engine events in processing order (see {@link createEventStream});
 * transfers pair within the tolerance, wherever they are in the list.
 */
export function toEvents(
  transactions: Iterable<CanonicalTransaction>,
  options: AdapterOptions = {},
): GainsEvent[] {
  const stream = createEventStream(options);
  for (const tx of transactions) stream.add(tx);
  return stream.finish();
}
