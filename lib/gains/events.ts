/**
 * Input adapter: canonical transactions become engine events. See README.md for the mapping of
 * every category; in short, an out movement disposes, an in movement acquires, income categories
 * acquire as income, transfers paired inside the portfolio move lots, and a fee paid in a token
 * disposes of that token.
 */
import { ValidationError } from '../errors.ts';
import type { CanonicalMovement, CanonicalTransaction } from '../export/normalize.ts';
import { Big, mulDiv, text } from './big.ts';
import type { AcquireEvent, DisposeEvent, GainsEvent, SameTimeOrder } from './types.ts';

/** Symbols treated as fiat (never lots) besides each transaction's value and fee currencies. */
export const DEFAULT_FIAT_SYMBOLS: readonly string[] = [
  'USD',
  'EUR',
  'GBP',
  'CHF',
  'JPY',
  'CAD',
  'AUD',
  'NZD',
  'SEK',
  'NOK',
  'DKK',
  'SGD',
  'HKD',
];

/** Account used when a transaction has none. */
export const NO_ACCOUNT = '(none)';

/** Options of {@link toEvents}. Every field has a default. */
export interface AdapterOptions {
  /** Default {@link DEFAULT_FIAT_SYMBOLS}. */
  fiatSymbols?: readonly string[];
  /** In movements of these categories are income when the transaction has no out movement. Default `income`, `staking`. */
  incomeCategories?: readonly string[];
  /** Categories whose movements are transfers (paired, or external). Default `transfer`, `bridge`. */
  transferCategories?: readonly string[];
  /** Categories whose out movements are the fee itself (fee fields ignored). Default `fee`. */
  feeCategories?: readonly string[];
  /**
   * A transfer out with no counterpart in the portfolio: `non-taxable` (default) removes lots at
   * their basis without a gain; `taxable` disposes at the movement's fiat value. A transfer in
   * with no counterpart always opens a lot at its fiat value. Both are listed in warnings.
   */
  externalTransfers?: 'non-taxable' | 'taxable';
  /** Key pairing a transfer out with a transfer in of the same token in another account. Default: `hash`. */
  pairKey?: (tx: CanonicalTransaction) => string | null;
  /** Default `input`. */
  sameTimeOrder?: SameTimeOrder;
  /** Scale of fiat amounts split pro rata (a transfer's lost quantity). Default 18. */
  fiatScale?: number;
}

interface Leg {
  tx: number;
  leg: number;
  movement: CanonicalMovement;
  quantity: Big;
}

interface Pair {
  inTx: CanonicalTransaction;
  inLeg: Leg;
}

const RANK: Readonly<Record<GainsEvent['kind'], number>> = { acquire: 0, move: 1, withdraw: 2, dispose: 2 };

function abs(value: string): string;
function abs(value: string | null): string | null;
function abs(value: string | null): string | null {
  return value === null || !value.startsWith('-') ? value : value.slice(1);
}

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

/**
 * Turns transactions into engine events in processing order: by instant, then input order (or,
 * with `acquisitions-first`, acquisitions, transfers, disposals at one instant). Inside a
 * transaction: out movements, then in movements, then the fee paid in a token.
 */
export function toEvents(
  transactions: Iterable<CanonicalTransaction>,
  options: AdapterOptions = {},
): GainsEvent[] {
  const fiatBase = new Set(options.fiatSymbols ?? DEFAULT_FIAT_SYMBOLS);
  const incomeCategories = new Set(options.incomeCategories ?? ['income', 'staking']);
  const transferCategories = new Set(options.transferCategories ?? ['transfer', 'bridge']);
  const feeCategories = new Set(options.feeCategories ?? ['fee']);
  const external = options.externalTransfers ?? 'non-taxable';
  const pairKey = options.pairKey ?? ((tx: CanonicalTransaction) => tx.hash);
  const scale = options.fiatScale ?? 18;
  const txs = [...transactions];
  const times = txs.map((tx) => {
    const ms = Date.parse(tx.date);
    if (Number.isNaN(ms)) throw new ValidationError(`transactions[${tx.id}].date`, 'is not an ISO instant');
    return ms;
  });
  const isFiat = (tx: CanonicalTransaction, symbol: string) =>
    fiatBase.has(symbol) || symbol === tx.valueCurrency || symbol === tx.feeCurrency;
  const legsOf = (tx: CanonicalTransaction, index: number): Leg[] =>
    tx.movements.flatMap((movement, leg) => {
      if (isFiat(tx, movement.symbol)) return [];
      const quantity = new Big(movement.amount);
      return quantity.eq(0) ? [] : [{ tx: index, leg, movement, quantity }];
    });
  const legs = txs.map(legsOf);

  // Pairing: per key and token, each transfer out takes the first unpaired transfer in of another account.
  // A transaction without a key pairs only with itself.
  const pairs = new Map<string, Pair>();
  const pairedIn = new Set<string>();
  const groups = new Map<string, { outs: Leg[]; ins: Leg[] }>();
  txs.forEach((tx, index) => {
    if (!transferCategories.has(tx.category ?? '')) return;
    const given = pairKey(tx);
    const key = given === null || given === '' ? `\u0000${tx.id}` : given;
    for (const leg of legs[index] ?? []) {
      const groupKey = `${key}\u0000${leg.movement.symbol}`;
      let group = groups.get(groupKey);
      if (group === undefined) {
        group = { outs: [], ins: [] };
        groups.set(groupKey, group);
      }
      (leg.quantity.lt(0) ? group.outs : group.ins).push(leg);
    }
  });
  for (const { outs, ins } of groups.values()) {
    for (const out of outs) {
      const from = txs[out.tx]?.accountId ?? NO_ACCOUNT;
      // Another account, or the same transaction (a transfer to itself, which moves nothing).
      const match = ins.find(
        (candidate) =>
          !pairedIn.has(`${candidate.tx}:${candidate.leg}`) &&
          (candidate.tx === out.tx || (txs[candidate.tx]?.accountId ?? NO_ACCOUNT) !== from),
      );
      const inTx = match === undefined ? undefined : txs[match.tx];
      if (match === undefined || inTx === undefined) continue;
      pairedIn.add(`${match.tx}:${match.leg}`);
      pairs.set(`${out.tx}:${out.leg}`, { inTx, inLeg: match });
    }
  }

  const placed: { event: GainsEvent; order: number }[] = [];
  txs.forEach((tx, index) => {
    const time = times[index] ?? 0;
    const account = tx.accountId ?? NO_ACCOUNT;
    const category = tx.category ?? '';
    const isTransfer = transferCategories.has(category);
    const isFeeCategory = feeCategories.has(category);
    const txLegs = legs[index] ?? [];
    const outs = txLegs.filter((leg) => leg.quantity.lt(0));
    const ins = txLegs.filter((leg) => leg.quantity.gt(0));
    const incomeCategory = incomeCategories.has(category) && outs.length === 0 ? category : null;
    const unmatched = isTransfer ? true : undefined;
    const events: GainsEvent[] = [];

    for (const leg of outs) {
      const { symbol, amount, value } = leg.movement;
      const pair = isTransfer ? pairs.get(`${leg.tx}:${leg.leg}`) : undefined;
      if (pair !== undefined) {
        const quantity = leg.quantity.abs();
        const received = pair.inLeg.quantity;
        const to = pair.inTx.accountId ?? NO_ACCOUNT;
        const moved = received.lt(quantity) ? received : quantity;
        events.push({
          kind: 'move',
          txId: tx.id,
          leg: leg.leg,
          time,
          token: symbol,
          quantity: text(moved),
          from: account,
          to,
        });
        if (received.lt(quantity)) {
          // Sent more than arrived: the difference is spent (a fee taken from the amount) at its share of the value.
          const lost = quantity.minus(received);
          const lostValue = value === null ? null : text(mulDiv(new Big(abs(value)), lost, quantity, scale));
          events.push(disposal(tx.id, leg.leg, time, symbol, account, text(lost), lostValue, undefined));
        } else if (received.gt(quantity)) {
          const extra = received.minus(quantity);
          const inValue = pair.inLeg.movement.value;
          const extraValue =
            inValue === null ? null : text(mulDiv(new Big(abs(inValue)), extra, received, scale));
          events.push(
            acquisition(
              pair.inTx.id,
              pair.inLeg.leg,
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
          quantity: abs(amount),
          unmatchedTransfer: true,
        });
      } else {
        events.push(disposal(tx.id, leg.leg, time, symbol, account, abs(amount), abs(value), unmatched));
      }
    }
    for (const leg of ins) {
      if (isTransfer && pairedIn.has(`${leg.tx}:${leg.leg}`)) continue;
      const { symbol, amount, value } = leg.movement;
      const income = isTransfer ? null : incomeCategory;
      events.push(acquisition(tx.id, leg.leg, time, symbol, account, amount, abs(value), income, unmatched));
    }

    // In a fee category the out movements are the fee itself; the fee fields only stand in for missing ones.
    if (!isFeeCategory || outs.length === 0) {
      const fee = tx.feeAmount === null ? null : abs(tx.feeAmount);
      // A fiat fee: from the first disposal's proceeds, else onto the first acquisition's basis.
      if (!isTransfer && fee !== null && !new Big(fee).eq(0)) {
        const target =
          events.find((event): event is DisposeEvent => event.kind === 'dispose') ??
          events.find((event): event is AcquireEvent => event.kind === 'acquire');
        if (target !== undefined) target.fee = fee;
      }
      const feeQuantity = tx.feeQuantity === null ? null : abs(tx.feeQuantity);
      if (
        tx.feeSymbol !== null &&
        feeQuantity !== null &&
        !isFiat(tx, tx.feeSymbol) &&
        new Big(feeQuantity).gt(0)
      ) {
        events.push(
          disposal(tx.id, tx.movements.length, time, tx.feeSymbol, account, feeQuantity, fee, undefined),
        );
      }
    }
    for (const event of events) placed.push({ event, order: placed.length });
  });

  const byRank = options.sameTimeOrder === 'acquisitions-first';
  placed.sort(
    (a, b) =>
      a.event.time - b.event.time ||
      (byRank ? RANK[a.event.kind] - RANK[b.event.kind] : 0) ||
      a.order - b.order,
  );
  return placed.map((entry) => entry.event);
}
