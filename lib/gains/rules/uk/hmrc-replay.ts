/**
 * The engine's observer under HMRC identification (method `hmrc`). A disposal's cost is known only
 * once its day is final (the 30 days after it matched), so the events are held and told to the
 * observer day by day, in order, once their day is settled, each with its final figures:
 *
 * - an acquisition at its full cost (what the same-day and 30-day rules take of it leaves with the
 *   disposal it is matched with, the rest joins the section 104 pool: together, its full cost);
 * - a disposal at the cost of what it was finally matched with (same day, 30 days, section 104),
 *   a day's several disposals of one token sharing the day's cost by quantity;
 * - a withdrawal at what it took from the pool, a move's fee only when the pool took it.
 *
 * The observer's holdings are then the tokens actually held: the section 104 pool less what a
 * disposal took, under the 30-day rule, from an acquisition that has not happened yet at that
 * moment ({@link HmrcReplay.matchedAhead}).
 */
import { Big, mulDiv, type Rounding, text, ZERO } from '../../../domain/index.ts';
import { localDate } from '../../tax-year.ts';
import type { BasisMove, DisposalLine, GainsEvent, GainsObserver, PoolPosition } from '../../types.ts';
import type { HmrcDisposal } from './hmrc.ts';

/** A held event and what is known of it when it is processed. */
interface Held {
  event: GainsEvent;
  reported: boolean;
  date: string;
  /** An acquisition's move (its cost is known when it happens). */
  move?: BasisMove;
}

/** A day's disposal of one token as settled: shared by its events in arrival order. */
interface Settled {
  /** Quantity the matches found (the rest has no basis), and its cost, still to hand out. */
  quantity: Big;
  cost: Big;
  /** Disposal events of the day still to be told. */
  events: number;
  lines: readonly DisposalLine[];
}

/** A 30-day match: disposed of on `disposed`, identified with an acquisition of `acquired`. */
interface Ahead {
  token: string;
  disposed: string;
  acquired: string;
  quantity: Big;
  cost: Big;
}

/** See the module comment. */
export interface HmrcReplay {
  /** An event the engine processed (`move`: an acquisition's, complete). */
  hold(event: GainsEvent, reported: boolean, date: string, move?: BasisMove): void;
  /** A day's disposal was matched; `lines` are the disposal lines recorded for it. */
  disposal(d: HmrcDisposal, lines: readonly DisposalLine[]): void;
  /** A withdrawal took `taken` for `cost` from the pool. */
  withdrawal(token: string, date: string, taken: Big, cost: Big): void;
  /** A move's fee joined the pool's cost. */
  fee(token: string, date: string, txId: string): void;
  /** Every day before `date` is final: their events are told, then the observer that they are. */
  settled(date: string): void;
  /** The history is complete: the events left are told. */
  finish(): void;
  /** Per token, what the 30-day rule took from acquisitions on or after `date` for disposals before it. */
  matchedAhead(date: string): PoolPosition[];
}

/** Creates the replay for `observer` (see the module comment). */
export function createHmrcReplay(
  observer: GainsObserver,
  options: { timeZone: string; scale: number; rounding: Rounding },
): HmrcReplay {
  const held: Held[] = [];
  const disposals = new Map<string, Settled>();
  const heldDisposals = new Map<string, number>();
  const withdrawals = new Map<string, { taken: Big; cost: Big }[]>();
  const fees = new Set<string>();
  const ahead: Ahead[] = [];
  const key = (date: string, token: string) => `${date}\u0000${token}`;

  const tell = (h: Held) => {
    observer.event?.(h.event, h.reported);
    const move = h.move ?? figures(h);
    if (move !== null) observer.basis(move);
  };

  /** The final figures of a held disposal, withdrawal or move (`null`: nothing moved). */
  const figures = ({ event, reported, date }: Held): BasisMove | null => {
    const base = {
      kind: event.kind,
      txId: event.txId,
      leg: event.leg,
      time: event.time,
      token: event.token,
      requested: event.quantity,
      reported,
      ...(event.unmatchedTransfer === true ? { external: true as const } : {}),
    };
    const k = key(date, event.token);
    switch (event.kind) {
      case 'dispose': {
        const day = disposals.get(k);
        if (day === undefined) return null;
        day.events -= 1;
        const wanted = new Big(event.quantity);
        const quantity = wanted.lt(day.quantity) ? wanted : day.quantity;
        const last = day.events === 0 || quantity.eq(day.quantity);
        const cost = last
          ? day.cost
          : mulDiv(day.cost, quantity, day.quantity, options.scale, options.rounding);
        day.quantity = day.quantity.minus(quantity);
        day.cost = day.cost.minus(cost);
        const value = new Big(event.value ?? 0);
        const fee = new Big(event.fee);
        if (day.events === 0) disposals.delete(k);
        return {
          ...base,
          account: event.account,
          quantity: text(quantity),
          cost: text(cost),
          value: event.value ?? '0',
          fee: text(fee),
          // The day's lines go with its last disposal; the others post their own gain.
          ...(!reported
            ? {}
            : day.events === 0
              ? { lines: day.lines }
              : { gain: text(value.minus(fee).minus(cost)) }),
        };
      }
      case 'withdraw': {
        const taken = withdrawals.get(k)?.shift() ?? { taken: ZERO, cost: ZERO };
        return { ...base, account: event.account, quantity: text(taken.taken), cost: text(taken.cost) };
      }
      case 'move': {
        const added = fees.delete(`${k}\u0000${event.txId}`);
        return {
          ...base,
          account: event.from,
          to: event.to,
          quantity: event.quantity,
          cost: '0',
          fee: added && event.fee !== undefined ? text(new Big(event.fee)) : '0',
        };
      }
      default:
        return null;
    }
  };

  /** Tells the held events of the days before `date` (every one when `null`). */
  const release = (date: string | null) => {
    let count = 0;
    while (count < held.length && (date === null || (held[count] as Held).date < date)) count += 1;
    for (const h of held.splice(0, count)) tell(h);
  };

  return {
    hold(event, reported, date, move) {
      if (event.kind === 'move' && event.from === event.to) return;
      held.push({ event, reported, date, ...(move === undefined ? {} : { move }) });
      if (event.kind === 'dispose') {
        const k = key(date, event.token);
        heldDisposals.set(k, (heldDisposals.get(k) ?? 0) + 1);
      }
    },
    disposal(d, lines) {
      const k = key(d.date, d.token);
      let quantity = ZERO;
      let cost = ZERO;
      for (const part of d.parts) {
        if (part.rule === 'no-basis') continue;
        quantity = quantity.plus(part.quantity);
        cost = cost.plus(part.cost);
        if (part.rule === 'thirty-day' && part.acquiredAt !== null)
          ahead.push({
            token: d.token,
            disposed: d.date,
            acquired: localDate(part.acquiredAt, options.timeZone),
            quantity: part.quantity,
            cost: part.cost,
          });
      }
      disposals.set(k, { quantity, cost, events: heldDisposals.get(k) ?? 0, lines });
      heldDisposals.delete(k);
    },
    withdrawal(token, date, taken, cost) {
      const k = key(date, token);
      const queue = withdrawals.get(k) ?? [];
      queue.push({ taken, cost });
      withdrawals.set(k, queue);
    },
    fee(token, date, txId) {
      fees.add(`${key(date, token)}\u0000${txId}`);
    },
    settled(date) {
      release(date);
      observer.settled?.(date);
      // The observer has compared the month ends before `date`; later ones are on or after it.
      for (let i = ahead.length - 1; i >= 0; i -= 1)
        if ((ahead[i] as Ahead).acquired < date) ahead.splice(i, 1);
    },
    finish() {
      release(null);
    },
    matchedAhead(date) {
      const out = new Map<string, { quantity: Big; cost: Big }>();
      for (const a of ahead) {
        if (!(a.disposed < date && date <= a.acquired)) continue;
        const found = out.get(a.token) ?? { quantity: ZERO, cost: ZERO };
        found.quantity = found.quantity.plus(a.quantity);
        found.cost = found.cost.plus(a.cost);
        out.set(a.token, found);
      }
      return [...out].map(([token, p]) => ({
        token,
        account: null,
        quantity: text(p.quantity),
        cost: text(p.cost),
      }));
    },
  };
}
