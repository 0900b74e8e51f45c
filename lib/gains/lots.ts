/**
 * Lot pools and the matching methods. A pool holds the open lots of one token (in one account,
 * or in the whole portfolio) in consumption order, so every method consumes from the front.
 */
import { Big, mulDiv, type Rounding, text, ZERO } from '../domain/index.ts';
import type { LotMethod } from './types.ts';

/** An open lot (or the part of one still held). */
export interface Lot {
  txId: string;
  leg: number;
  token: string;
  account: string;
  quantity: Big;
  /** Basis of `quantity`; always zero in an average-cost pool, whose basis is the pool's. */
  cost: Big;
  acquiredAt: number;
  seq: number;
  keyQuantity: Big;
  keyCost: Big;
  /**
   * A wallet's records only (`wallet-from-2025` before 1 January 2025): when this part arrived in
   * the wallet, its acquisition (`seq`) or the move that brought it; orders parts of one lot.
   */
  arrived?: number;
}

/** Part of a lot taken by a disposal or a transfer, with its basis. */
export interface Piece {
  lot: Lot;
  quantity: Big;
  cost: Big;
}

/** What {@link Pool.take} consumed; `shortfall` is the quantity no lot covered. */
export interface Taken {
  pieces: Piece[];
  quantity: Big;
  cost: Big;
  shortfall: Big;
}

type Order = (a: Lot, b: Lot) => number;

const byAcquisition: Order = (a, b) => a.acquiredAt - b.acquiredAt || a.seq - b.seq;

/** Consumption order of each method: negative when `a` is consumed before `b`. */
export const ORDERS: Readonly<Record<LotMethod, Order>> = {
  fifo: byAcquisition,
  average: byAcquisition,
  // HMRC identification keeps no lots; its pools are average cost (rules/uk/hmrc.ts).
  hmrc: byAcquisition,
  lifo: (a, b) => b.acquiredAt - a.acquiredAt || b.seq - a.seq,
  // Cost per unit compared exactly by cross-multiplication; the key is fixed at opening.
  hifo: (a, b) => b.keyCost.times(a.keyQuantity).cmp(a.keyCost.times(b.keyQuantity)) || byAcquisition(a, b),
};

const COMPACT_AT = 1024;

/**
 * Open lots from which a pool packs the lots it is given: a shorter pool's lots are soon consumed,
 * and packing them would only cost the time to write and read their amounts back.
 */
const PACK_FROM = 32;

/**
 * A lot as a pool keeps it behind its front: its amounts as decimal text, its token the pool's and
 * its account shared with the pool's other lots. big.js holds a number as one array slot per digit
 * (about 300 bytes for a cost of 18 places, against about 40 as text), and a long history keeps
 * tens of thousands of lots open in one pool, of which only the front one is worked on. A key
 * amount is `null` when it is the lot's amount itself (a lot never consumed in part).
 */
class PackedLot {
  readonly txId: string;
  readonly leg: number;
  readonly token: string;
  readonly account: string;
  readonly quantity: string;
  readonly cost: string;
  readonly acquiredAt: number;
  readonly seq: number;
  readonly keyQuantity: string | null;
  readonly keyCost: string | null;
  readonly arrived: number | undefined;

  constructor(lot: Lot, token: string, account: string) {
    this.txId = lot.txId;
    this.leg = lot.leg;
    this.token = token;
    this.account = account;
    this.quantity = flatText(lot.quantity);
    this.cost = flatText(lot.cost);
    this.acquiredAt = lot.acquiredAt;
    this.seq = lot.seq;
    this.keyQuantity = lot.keyQuantity === lot.quantity ? null : flatText(lot.keyQuantity);
    this.keyCost = lot.keyCost === lot.cost ? null : flatText(lot.keyCost);
    this.arrived = lot.arrived;
  }

  /** The lot it stands for (a new object; its amounts parsed). */
  unpack(): Lot {
    const quantity = new Big(this.quantity);
    const cost = new Big(this.cost);
    const lot: Lot = {
      txId: this.txId,
      leg: this.leg,
      token: this.token,
      account: this.account,
      quantity,
      cost,
      acquiredAt: this.acquiredAt,
      seq: this.seq,
      keyQuantity: this.keyQuantity === null ? quantity : new Big(this.keyQuantity),
      keyCost: this.keyCost === null ? cost : new Big(this.keyCost),
    };
    if (this.arrived !== undefined) lot.arrived = this.arrived;
    return lot;
  }
}

/**
 * `value` as decimal text in one piece: big.js builds its text from slices and joins, which V8
 * keeps as a chain of parts (three objects for one number) until the text is read.
 */
function flatText(value: Big): string {
  const out = text(value);
  // Reading a character makes V8 copy the chain into one string, and drop the parts.
  out.charCodeAt(0);
  return out;
}

type Kept = Lot | PackedLot;

const unpack = (lot: Kept): Lot => (lot instanceof PackedLot ? lot.unpack() : lot);

/** The open lots of one token in one account (or everywhere), with exact totals. */
export class Pool {
  readonly token: string;
  readonly account: string | null;
  readonly method: LotMethod;
  readonly scale: number;
  readonly rounding: Rounding;
  /** Total open quantity. */
  quantity: Big = ZERO;
  /** Total basis of the open quantity. */
  cost: Big = ZERO;
  /** Open lots in consumption order from `#head`; behind the front, packed (not with `hifo`). */
  #lots: Kept[] = [];
  #head = 0;
  readonly #order: Order;
  /** The accounts of the packed lots, each text once. */
  readonly #accounts = new Map<string, string>();

  constructor(
    token: string,
    account: string | null,
    method: LotMethod,
    scale: number,
    rounding: Rounding = 'half-even',
  ) {
    this.token = token;
    this.account = account;
    this.method = method;
    this.scale = scale;
    this.rounding = rounding;
    this.#order = ORDERS[method];
  }

  /** Open lots in consumption order. */
  lots(): Lot[] {
    return this.#lots.slice(this.#head).map(unpack);
  }

  /**
   * Adds a lot at its place in the consumption order; its cost joins the pool's basis. With
   * `beforeEqual`, it goes before the lots it ties with (a piece put back in front of its rest).
   */
  add(lot: Lot, beforeEqual = false): void {
    this.quantity = this.quantity.plus(lot.quantity);
    this.cost = this.cost.plus(lot.cost);
    if (this.method === 'average') lot.cost = ZERO;
    const lots = this.#lots;
    let low = this.#head;
    let high = lots.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      // Only `hifo` orders by the amounts, and its lots are not packed: the others read
      // `acquiredAt` and `seq`, which a packed lot keeps as they are.
      const order = this.#order(lots[mid] as Lot, lot);
      if (order < 0 || (order === 0 && !beforeEqual)) low = mid + 1;
      else high = mid;
    }
    const kept = this.method === 'hifo' || lots.length - this.#head < PACK_FROM ? lot : this.#pack(lot);
    if (low === lots.length) lots.push(kept);
    else if (low === this.#head && this.#head > 0) lots[--this.#head] = kept;
    else lots.splice(low, 0, kept);
  }

  #pack(lot: Lot): PackedLot {
    let account = this.#accounts.get(lot.account);
    if (account === undefined) {
      account = lot.account;
      this.#accounts.set(account, account);
    }
    return new PackedLot(lot, lot.token === this.token ? this.token : lot.token, account);
  }

  /**
   * Consumes `quantity` from the front. A partly consumed lot gives its basis pro rata (rounded at
   * `scale`) and keeps the exact rest, so the lot's last consumption takes exactly what is left.
   * In an average-cost pool the basis is the pool's cost pro rata (all of it when the pool is
   * emptied), spread over the pieces the same way.
   */
  take(quantity: Big): Taken {
    const matched = quantity.gt(this.quantity) ? this.quantity : quantity;
    const pieces: Piece[] = [];
    let remaining = matched;
    const lots = this.#lots;
    while (remaining.gt(0)) {
      const kept = lots[this.#head];
      if (kept === undefined) break;
      // The front lot is worked on: unpacked once, it stays so until it is consumed.
      const lot = unpack(kept);
      lots[this.#head] = lot;
      if (lot.quantity.lte(remaining)) {
        pieces.push({ lot, quantity: lot.quantity, cost: lot.cost });
        remaining = remaining.minus(lot.quantity);
        lots[this.#head] = undefined as unknown as Kept;
        this.#head += 1;
      } else {
        const cost = mulDiv(lot.cost, remaining, lot.quantity, this.scale, this.rounding);
        pieces.push({ lot, quantity: remaining, cost });
        lot.quantity = lot.quantity.minus(remaining);
        lot.cost = lot.cost.minus(cost);
        remaining = ZERO;
      }
    }
    if (this.#head >= COMPACT_AT && this.#head * 2 >= lots.length) {
      this.#lots = lots.slice(this.#head);
      this.#head = 0;
    }
    let cost: Big;
    if (this.method === 'average') {
      cost = matched.eq(this.quantity)
        ? this.cost
        : mulDiv(this.cost, matched, this.quantity, this.scale, this.rounding);
      spread(pieces, cost, matched, this.scale, this.rounding);
    } else {
      cost = pieces.reduce((sum, piece) => sum.plus(piece.cost), ZERO);
    }
    this.quantity = this.quantity.minus(matched);
    this.cost = this.cost.minus(cost);
    return { pieces, quantity: matched, cost, shortfall: quantity.minus(matched) };
  }
}

/** Sets each piece's cost to its pro-rata share of `total`; the last piece takes the exact rest. */
function spread(pieces: Piece[], total: Big, quantity: Big, scale: number, rounding: Rounding): void {
  let left = total;
  pieces.forEach((piece, index) => {
    const share =
      index === pieces.length - 1 ? left : mulDiv(total, piece.quantity, quantity, scale, rounding);
    piece.cost = share;
    left = left.minus(share);
  });
}

/** Splits `total` over `quantities` pro rata, rounded at `scale`; the last share takes the exact rest. */
export function shares(
  total: Big,
  quantities: readonly Big[],
  scale: number,
  rounding: Rounding = 'half-even',
): Big[] {
  const sum = quantities.reduce((acc, q) => acc.plus(q), ZERO);
  let left = total;
  return quantities.map((q, index) => {
    const share =
      index === quantities.length - 1 ? left : sum.eq(0) ? ZERO : mulDiv(total, q, sum, scale, rounding);
    left = left.minus(share);
    return share;
  });
}

/** A new lot with its HIFO key fixed at opening. */
export function openLot(fields: Omit<Lot, 'keyQuantity' | 'keyCost'>): Lot {
  return { ...fields, keyQuantity: fields.quantity, keyCost: fields.cost };
}
