/**
 * HMRC share identification for cryptoassets (TCGA 1992 ss 104, 105, 106A; HMRC Cryptoassets
 * Manual CRYPTO22200 onward): every disposal of a token on one day is one disposal, matched first
 * with the acquisitions of the same day, then with those of the next 30 days (earliest day
 * first, earlier disposals first), then with the section 104 pool at its average cost. What the
 * same-day and 30-day rules leave of a day's acquisitions joins the pool at the end of that day.
 *
 * A day's disposal is therefore final only once the 30 days after it are known: days wait, per
 * token, until an event more than 30 days later arrives (or the history ends).
 */
import { Big, compareText, mulDiv, type Rounding, text, ZERO } from '../../../domain/index.ts';
import type { AcquireEvent, CarriedHmrc, CarriedHmrcDay, MatchRule } from '../../types.ts';

/** What the ledger keeps of an acquisition, disposal or withdrawal: its token, transaction, instant and account. */
type LedgerEvent = Pick<AcquireEvent, 'token' | 'txId' | 'time' | 'account'>;

/** One matched part of a day's disposal. */
export interface HmrcPart {
  rule: MatchRule;
  quantity: Big;
  cost: Big;
  /** Instant of the first acquisition matched (same day, 30 days); `null` for the pool. */
  acquiredAt: number | null;
  acquiredTxIds: readonly string[];
}

/** A day's disposal of one token, matched. */
export interface HmrcDisposal {
  token: string;
  date: string;
  /** Instant of the day's first disposal. */
  time: number;
  account: string;
  txIds: readonly string[];
  quantity: Big;
  /** Σ proceeds of the day's disposals (gross, or net of fees: as the engine gave them). */
  proceeds: Big;
  /** Σ fees of the day's disposals that are allowable costs (uk: SA108 takes gross proceeds). */
  fees: Big;
  parts: HmrcPart[];
  reported: boolean;
  /** The acquisitions a 30-day part matched were themselves in the reported period. */
  partsReported: boolean[];
  /** Last local date of the 30 days (`YYYY-MM-DD`). */
  windowEnd: string;
}

/** A change of the section 104 pool. */
export interface HmrcPoolChange {
  token: string;
  date: string;
  change: 'acquisition' | 'disposal' | 'withdrawal' | 'fee';
  quantity: Big;
  cost: Big;
  poolQuantity: Big;
  poolCost: Big;
  txIds: readonly string[];
  reported: boolean;
}

/** What a ledger tells its engine. */
export interface HmrcListener {
  /** About to finalize the first day at or after `day` (epoch days), in date order. */
  beforeDay(day: number): void;
  disposal(disposal: HmrcDisposal): void;
  /** A withdrawal took `cost` from the pool; `shortfall` is what the pool did not hold. */
  withdrawal(
    token: string,
    w: { txId: string; time: number; quantity: Big; account: string; reported: boolean },
    taken: Big,
    cost: Big,
    shortfall: Big,
  ): void;
  poolChange(change: HmrcPoolChange): void;
}

const DAY_MS = 86_400_000;
const SHOWN_IDS = 10;

/** Transaction ids of an aggregated day as one cell: up to ten, then how many more. */
export function joinIds(ids: readonly string[]): string {
  const shown = ids.slice(0, SHOWN_IDS).join(' ');
  return ids.length > SHOWN_IDS ? `${shown} +${ids.length - SHOWN_IDS} more` : shown;
}

/** Epoch day of a `YYYY-MM-DD` date. */
export const dayNumber = (date: string) => Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

interface Acquired {
  quantity: Big;
  cost: Big;
  restQuantity: Big;
  restCost: Big;
  txIds: string[];
  time: number;
}

interface Day {
  day: number;
  date: string;
  /** Arrival rank of the day's first event: days of several tokens are final in this order. */
  seq: number;
  /** Any event of the day is in the reported period. */
  reported: boolean;
  account: string;
  acquired: Acquired | null;
  disposed: {
    quantity: Big;
    proceeds: Big;
    fees: Big;
    txIds: string[];
    time: number;
    account: string;
  } | null;
  sameDay: { quantity: Big; cost: Big } | null;
  sameDayDone: boolean;
  withdrawals: { txId: string; time: number; quantity: Big; account: string; reported: boolean }[];
  fees: { txId: string; cost: Big; reported: boolean }[];
}

/** One token: its section 104 pool and the days waiting for their 30 days. */
class Book {
  readonly token: string;
  quantity: Big = ZERO;
  cost: Big = ZERO;
  days: Day[] = [];

  constructor(token: string) {
    this.token = token;
  }

  dayOf(date: string, reported: boolean, account: string, seq: number): Day {
    const last = this.days.at(-1);
    if (last !== undefined && last.date === date) {
      last.reported ||= reported;
      return last;
    }
    const day: Day = {
      day: dayNumber(date),
      date,
      seq,
      reported,
      account,
      acquired: null,
      disposed: null,
      sameDay: null,
      sameDayDone: false,
      withdrawals: [],
      fees: [],
    };
    this.days.push(day);
    return day;
  }
}

/** The HMRC identification of every token of one person. */
export class HmrcLedger {
  readonly #books = new Map<string, Book>();
  readonly #scale: number;
  readonly #rounding: Rounding;
  readonly #listener: HmrcListener;
  /** Latest local date an event came from (epoch days). */
  #latest = Number.NEGATIVE_INFINITY;
  /** Events seen, in arrival order (input order): ranks the days of one date across tokens. */
  #seq = 0;

  constructor(scale: number, rounding: Rounding, listener: HmrcListener) {
    this.#scale = scale;
    this.#rounding = rounding;
    this.#listener = listener;
  }

  #book(token: string): Book {
    let book = this.#books.get(token);
    if (book === undefined) {
      book = new Book(token);
      this.#books.set(token, book);
    }
    return book;
  }

  /** Events of `date` are coming: every day more than 30 days before it is final. */
  arrive(date: string): void {
    const day = dayNumber(date);
    if (day > this.#latest) {
      this.#latest = day;
      this.#finalizeUpTo(day - 31);
    }
  }

  /** The day's entry of `token` for an event of `date` (opened when it is the first). */
  #dayOf(token: string, date: string, reported: boolean, account: string): Day {
    return this.#book(token).dayOf(date, reported, account, this.#seq++);
  }

  /** `q` of `event`'s token acquired for `cost` on the local date `date`. */
  acquire({ token, txId, time, account }: LedgerEvent, date: string, q: Big, cost: Big, reported: boolean) {
    const day = this.#dayOf(token, date, reported, account);
    if (day.acquired === null) {
      day.acquired = { quantity: q, cost, restQuantity: q, restCost: cost, txIds: [txId], time };
    } else {
      const a = day.acquired;
      a.quantity = a.quantity.plus(q);
      a.cost = a.cost.plus(cost);
      a.restQuantity = a.restQuantity.plus(q);
      a.restCost = a.restCost.plus(cost);
      if (a.txIds.at(-1) !== txId) a.txIds.push(txId);
    }
  }

  /**
   * `q` of `event`'s token disposed of for `proceeds` on the local date `date`; `fees` are
   * allowable costs of the disposal (zero when the engine deducted them from the proceeds).
   */
  dispose(
    { token, txId, time, account }: LedgerEvent,
    date: string,
    q: Big,
    proceeds: Big,
    fees: Big,
    reported: boolean,
  ) {
    const day = this.#dayOf(token, date, reported, account);
    if (day.disposed === null) day.disposed = { quantity: q, proceeds, fees, txIds: [txId], time, account };
    else {
      const d = day.disposed;
      d.quantity = d.quantity.plus(q);
      d.proceeds = d.proceeds.plus(proceeds);
      d.fees = d.fees.plus(fees);
      if (d.txIds.at(-1) !== txId) d.txIds.push(txId);
    }
  }

  /** `q` of `event`'s token leaving the portfolio on the local date `date` (a transfer out). */
  withdraw({ token, txId, time, account }: LedgerEvent, date: string, q: Big, reported: boolean) {
    this.#dayOf(token, date, reported, account).withdrawals.push({
      txId,
      time,
      quantity: q,
      account,
      reported,
    });
  }

  /** A fee added to the pool's cost at the end of the day (a transfer fee with `transferFee: 'basis'`). */
  addCost(token: string, date: string, cost: Big, txId: string, reported: boolean, account: string) {
    this.#dayOf(token, date, reported, account).fees.push({ txId, cost, reported });
  }

  /** The history is complete: every waiting day is final. */
  finish(): void {
    this.#finalizeUpTo(Number.POSITIVE_INFINITY);
  }

  /** Each token's section 104 pool (quantity and cost). */
  pools(): Map<string, { quantity: Big; cost: Big }> {
    const out = new Map<string, { quantity: Big; cost: Big }>();
    for (const [token, book] of this.#books) out.set(token, { quantity: book.quantity, cost: book.cost });
    return out;
  }

  #take(part: { restQuantity: Big; restCost: Big } | { quantity: Big; cost: Big }, q: Big): Big {
    // The rest of an acquisition, or the pool.
    if ('restQuantity' in part) {
      const cost = this.#costOf(q, part.restQuantity, part.restCost);
      part.restQuantity = part.restQuantity.minus(q);
      part.restCost = part.restCost.minus(cost);
      return cost;
    }
    const cost = this.#costOf(q, part.quantity, part.cost);
    part.quantity = part.quantity.minus(q);
    part.cost = part.cost.minus(cost);
    return cost;
  }

  /** The cost of `q` out of `quantity` that cost `cost`: its share, or exactly what is left for the last part. */
  #costOf(q: Big, quantity: Big, cost: Big): Big {
    return q.eq(quantity) ? cost : mulDiv(cost, q, quantity, this.#scale, this.#rounding);
  }

  /** The same-day rule of a complete day: its disposals take its acquisitions first. */
  #settleSameDay(day: Day): void {
    if (day.sameDayDone) return;
    day.sameDayDone = true;
    if (day.acquired === null || day.disposed === null) return;
    const q = day.disposed.quantity.lt(day.acquired.quantity) ? day.disposed.quantity : day.acquired.quantity;
    day.sameDay = { quantity: q, cost: this.#take(day.acquired, q) };
  }

  #finalizeUpTo(limit: number): void {
    for (;;) {
      let next = Number.POSITIVE_INFINITY;
      for (const book of this.#books.values()) {
        const first = book.days[0];
        if (first !== undefined && first.day < next) next = first.day;
      }
      if (next > limit || next === Number.POSITIVE_INFINITY) return;
      this.#listener.beforeDay(next);
      // The tokens' days of one date in the order their first events arrived (input order), not
      // the books' order, which a carried state does not keep.
      const due = [...this.#books.values()].filter((book) => book.days[0]?.day === next);
      due.sort((a, b) => (a.days[0] as Day).seq - (b.days[0] as Day).seq);
      for (const book of due) this.#finalize(book);
    }
  }

  #finalize(book: Book): void {
    const day = book.days.shift() as Day;
    this.#settleSameDay(day);
    if (day.disposed !== null) this.#match(book, day);
    const acquired = day.acquired;
    if (acquired?.restQuantity.gt(0)) {
      book.quantity = book.quantity.plus(acquired.restQuantity);
      book.cost = book.cost.plus(acquired.restCost);
      this.#listener.poolChange({
        token: book.token,
        date: day.date,
        change: 'acquisition',
        quantity: acquired.restQuantity,
        cost: acquired.restCost,
        poolQuantity: book.quantity,
        poolCost: book.cost,
        txIds: acquired.txIds,
        reported: day.reported,
      });
    }
    for (const w of day.withdrawals) {
      const taken = w.quantity.gt(book.quantity) ? book.quantity : w.quantity;
      const cost = taken.gt(0) ? this.#take(book, taken) : ZERO;
      this.#listener.withdrawal(book.token, w, taken, cost, w.quantity.minus(taken));
      if (taken.gt(0)) {
        this.#listener.poolChange({
          token: book.token,
          date: day.date,
          change: 'withdrawal',
          quantity: taken.neg(),
          cost: cost.neg(),
          poolQuantity: book.quantity,
          poolCost: book.cost,
          txIds: [w.txId],
          reported: w.reported,
        });
      }
    }
    for (const fee of day.fees) {
      if (book.quantity.eq(0)) continue;
      book.cost = book.cost.plus(fee.cost);
      this.#listener.poolChange({
        token: book.token,
        date: day.date,
        change: 'fee',
        quantity: ZERO,
        cost: fee.cost,
        poolQuantity: book.quantity,
        poolCost: book.cost,
        txIds: [fee.txId],
        reported: fee.reported,
      });
    }
  }

  #match(book: Book, day: Day): void {
    const disposed = day.disposed as NonNullable<Day['disposed']>;
    const parts: HmrcPart[] = [];
    const partsReported: boolean[] = [];
    let rest = disposed.quantity;
    if (day.sameDay !== null) {
      parts.push({
        rule: 'same-day',
        quantity: day.sameDay.quantity,
        cost: day.sameDay.cost,
        acquiredAt: day.acquired?.time ?? null,
        acquiredTxIds: day.acquired?.txIds ?? [],
      });
      partsReported.push(day.reported);
      rest = rest.minus(day.sameDay.quantity);
    }
    for (const later of book.days) {
      if (rest.eq(0) || later.day > day.day + 30) break;
      this.#settleSameDay(later);
      const acquired = later.acquired;
      if (acquired === null || acquired.restQuantity.eq(0)) continue;
      const q = rest.lt(acquired.restQuantity) ? rest : acquired.restQuantity;
      const cost = this.#take(acquired, q);
      parts.push({
        rule: 'thirty-day',
        quantity: q,
        cost,
        acquiredAt: acquired.time,
        acquiredTxIds: acquired.txIds,
      });
      partsReported.push(later.reported);
      rest = rest.minus(q);
    }
    if (rest.gt(0) && book.quantity.gt(0)) {
      const q = rest.lt(book.quantity) ? rest : book.quantity;
      const cost = this.#take(book, q);
      parts.push({ rule: 'section-104', quantity: q, cost, acquiredAt: null, acquiredTxIds: [] });
      partsReported.push(false);
      rest = rest.minus(q);
      this.#listener.poolChange({
        token: book.token,
        date: day.date,
        change: 'disposal',
        quantity: q.neg(),
        cost: cost.neg(),
        poolQuantity: book.quantity,
        poolCost: book.cost,
        txIds: disposed.txIds,
        reported: day.reported,
      });
    }
    if (rest.gt(0)) {
      parts.push({ rule: 'no-basis', quantity: rest, cost: ZERO, acquiredAt: null, acquiredTxIds: [] });
      partsReported.push(false);
    }
    this.#listener.disposal({
      token: book.token,
      date: day.date,
      time: disposed.time,
      account: disposed.account,
      txIds: disposed.txIds,
      quantity: disposed.quantity,
      proceeds: disposed.proceeds,
      fees: disposed.fees,
      parts,
      reported: day.reported,
      partsReported,
      windowEnd: dateOf(day.day + 30),
    });
  }

  /** The pools and the waiting days, JSON-safe (the days' arrival ranks renumbered from 0). */
  carry(): CarriedHmrc {
    const ranks = new Map(
      [...this.#books.values()]
        .flatMap((book) => book.days.map((day) => day.seq))
        .sort((a, b) => a - b)
        .map((seq, rank) => [seq, rank]),
    );
    const books = [...this.#books.values()]
      .filter((book) => book.days.length > 0 || !book.quantity.eq(0) || !book.cost.eq(0))
      .sort((a, b) => compareText(a.token, b.token))
      .map((book) => ({
        token: book.token,
        quantity: text(book.quantity),
        cost: text(book.cost),
        days: book.days.map((day) => carryDay(day, ranks.get(day.seq) ?? 0)),
      }));
    return { books };
  }

  /** Resumes from {@link HmrcLedger.carry}. */
  restore(state: CarriedHmrc): void {
    for (const carried of state.books) {
      const book = this.#book(carried.token);
      book.quantity = new Big(carried.quantity);
      book.cost = new Big(carried.cost);
      book.days = carried.days.map(restoreDay);
      const last = book.days.at(-1);
      if (last !== undefined && last.day > this.#latest) this.#latest = last.day;
      for (const day of book.days) if (day.seq >= this.#seq) this.#seq = day.seq + 1;
    }
  }
}

function carryDay(day: Day, seq: number): CarriedHmrcDay {
  const a = day.acquired;
  const d = day.disposed;
  return {
    day: day.day,
    date: day.date,
    seq,
    reported: day.reported,
    account: day.account,
    acquired:
      a === null
        ? null
        : {
            quantity: text(a.quantity),
            cost: text(a.cost),
            restQuantity: text(a.restQuantity),
            restCost: text(a.restCost),
            txIds: [...a.txIds],
            time: a.time,
          },
    disposed:
      d === null
        ? null
        : {
            quantity: text(d.quantity),
            proceeds: text(d.proceeds),
            fees: text(d.fees),
            txIds: [...d.txIds],
            time: d.time,
            account: d.account,
          },
    sameDay:
      day.sameDay === null ? null : { quantity: text(day.sameDay.quantity), cost: text(day.sameDay.cost) },
    sameDayDone: day.sameDayDone,
    withdrawals: day.withdrawals.map((w) => ({ ...w, quantity: text(w.quantity) })),
    fees: day.fees.map((f) => ({ ...f, cost: text(f.cost) })),
  };
}

function restoreDay(day: CarriedHmrcDay): Day {
  const a = day.acquired;
  const d = day.disposed;
  return {
    day: day.day,
    date: day.date,
    // A state carried before days were ranked: its days keep their carried order.
    seq: day.seq ?? 0,
    reported: day.reported,
    account: day.account,
    acquired:
      a === null
        ? null
        : {
            quantity: new Big(a.quantity),
            cost: new Big(a.cost),
            restQuantity: new Big(a.restQuantity),
            restCost: new Big(a.restCost),
            txIds: [...a.txIds],
            time: a.time,
          },
    disposed:
      d === null
        ? null
        : {
            quantity: new Big(d.quantity),
            proceeds: new Big(d.proceeds),
            // A state carried before fees were kept apart: they were in the proceeds.
            fees: new Big(d.fees ?? 0),
            txIds: [...d.txIds],
            time: d.time,
            account: d.account,
          },
    sameDay:
      day.sameDay === null
        ? null
        : { quantity: new Big(day.sameDay.quantity), cost: new Big(day.sameDay.cost) },
    sameDayDone: day.sameDayDone,
    withdrawals: day.withdrawals.map((w) => ({ ...w, quantity: new Big(w.quantity) })),
    fees: day.fees.map((f) => ({ ...f, cost: new Big(f.cost) })),
  };
}
