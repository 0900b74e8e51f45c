/**
 * SA108's cryptoasset boxes by HMRC share identification (TCGA 1992 ss 104, 105, 106A;
 * CRYPTO22200–22257), computed apart from lib/gains: per token and London day, one disposal and
 * one acquisition; same day, then the next 30 days (earliest first), then the section 104 pool at
 * average cost; gross proceeds, fees as allowable costs; exact decimals, each line rounded once.
 */
import { Big, cents, type Dec, type TaxEvent } from './events.ts';

interface Day {
  day: string;
  disposed: Dec;
  proceeds: Dec;
  fees: Dec;
  acquired: Dec;
  cost: Dec;
  /** What is left of the day's acquisitions for later rules (qty, cost). */
  leftQty: Dec;
  leftCost: Dec;
  withdrawn: Dec;
}

/** One SA108 disposal (a token's disposals of one London day) with its parts. */
export interface UkDisposal {
  token: string;
  day: string;
  parts: { rule: string; units: Dec; cost: Dec }[];
  proceeds: Dec;
  fees: Dec;
  /** Lines as shown: each part's proceeds and cost (fees by units) rounded once. */
  lines: { proceeds: Dec; cost: Dec }[];
}

const ZERO = new Big(0);
const share = (total: Dec, units: Dec, of: Dec) =>
  units.eq(of) ? total : total.times(units).div(of).round(18, Big.roundHalfEven);

function days(events: readonly TaxEvent[]): Map<string, Day[]> {
  const byToken = new Map<string, Map<string, Day>>();
  for (const e of events) {
    if (e.kind === 'move') continue;
    const token = byToken.get(e.token) ?? new Map<string, Day>();
    byToken.set(e.token, token);
    const d = token.get(e.day) ?? {
      day: e.day,
      disposed: ZERO,
      proceeds: ZERO,
      fees: ZERO,
      acquired: ZERO,
      cost: ZERO,
      leftQty: ZERO,
      leftCost: ZERO,
      withdrawn: ZERO,
    };
    token.set(e.day, d);
    if (e.kind === 'disposal') {
      d.disposed = d.disposed.plus(e.quantity);
      d.proceeds = d.proceeds.plus(e.value);
      d.fees = d.fees.plus(e.fee);
    } else if (e.kind === 'acquisition') {
      d.acquired = d.acquired.plus(e.quantity);
      d.cost = d.cost.plus(e.value).plus(e.fee);
    } else {
      d.withdrawn = d.withdrawn.plus(e.quantity);
    }
  }
  return new Map(
    [...byToken].map(([t, m]) => [t, [...m.values()].sort((a, b) => a.day.localeCompare(b.day))]),
  );
}

const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

/** Takes `units` from a day's acquisitions still unmatched: its share of their cost (the last, the rest). */
function take(d: Day, units: Dec): Dec {
  const cost = share(d.leftCost, units, d.leftQty);
  d.leftQty = d.leftQty.minus(units);
  d.leftCost = d.leftCost.minus(cost);
  return cost;
}

/** Every disposal of every token over the whole history, identified by HMRC's rules. */
export function hmrcDisposals(events: readonly TaxEvent[]): UkDisposal[] {
  const out: UkDisposal[] = [];
  for (const [token, list] of days(events)) {
    for (const d of list) {
      d.leftQty = d.acquired;
      d.leftCost = d.cost;
    }
    let poolQty = ZERO;
    let poolCost = ZERO;
    list.forEach((d, i) => {
      const parts: UkDisposal['parts'] = [];
      let rest = d.disposed;
      if (rest.gt(0) && d.leftQty.gt(0)) {
        const units = rest.lt(d.leftQty) ? rest : d.leftQty;
        parts.push({ rule: 'same-day', units, cost: take(d, units) });
        rest = rest.minus(units);
      }
      // The same-day rule of later days comes before this day's 30-day claim on them.
      for (let j = i + 1; rest.gt(0) && j < list.length; j++) {
        const later = list[j] as Day;
        if (dayNumber(later.day) - dayNumber(d.day) > 30) break;
        const ownSameDay = later.disposed.lt(later.acquired) ? later.disposed : later.acquired;
        // Not yet matched by its own day (later than this one): keep its same-day share aside.
        const free = later.leftQty.minus(ownSameDay);
        if (free.lte(0)) continue;
        const units = rest.lt(free) ? rest : free;
        parts.push({ rule: 'thirty-day', units, cost: take(later, units) });
        rest = rest.minus(units);
      }
      if (rest.gt(0) && poolQty.gt(0)) {
        const units = rest.lt(poolQty) ? rest : poolQty;
        const cost = share(poolCost, units, poolQty);
        poolQty = poolQty.minus(units);
        poolCost = poolCost.minus(cost);
        parts.push({ rule: 'section-104', units, cost });
        rest = rest.minus(units);
      }
      if (rest.gt(0)) parts.push({ rule: 'no-basis', units: rest, cost: ZERO });
      if (d.disposed.gt(0)) out.push(disposal(token, d, parts));
      poolQty = poolQty.plus(d.leftQty);
      poolCost = poolCost.plus(d.leftCost);
      d.leftQty = ZERO;
      d.leftCost = ZERO;
      if (d.withdrawn.gt(0) && poolQty.gt(0)) {
        const units = d.withdrawn.lt(poolQty) ? d.withdrawn : poolQty;
        poolCost = poolCost.minus(share(poolCost, units, poolQty));
        poolQty = poolQty.minus(units);
      }
    });
  }
  return out;
}

function disposal(token: string, d: Day, parts: UkDisposal['parts']): UkDisposal {
  let proceedsLeft = d.proceeds;
  let feesLeft = d.fees;
  let unitsLeft = d.disposed;
  const lines = parts.map((p) => {
    const proceeds = share(proceedsLeft, p.units, unitsLeft);
    const fee = share(feesLeft, p.units, unitsLeft);
    proceedsLeft = proceedsLeft.minus(proceeds);
    feesLeft = feesLeft.minus(fee);
    unitsLeft = unitsLeft.minus(p.units);
    return { proceeds: cents(proceeds), cost: cents(p.cost.plus(fee)) };
  });
  return { token, day: d.day, parts, proceeds: d.proceeds, fees: d.fees, lines };
}

export interface Sa108 {
  '13.1': number;
  '13.2': string;
  '13.3': string;
  '13.4': string;
  '13.5': string;
  net: string;
  gainsBefore: string;
  lossesBefore: string;
  gainsFrom: string;
  lossesFrom: string;
}

/** SA108 boxes 13.1–13.5 and the 2024/25 split at 30 October 2024, for London days [first, last]. */
export function sa108(all: readonly UkDisposal[], first: string, last: string): Sa108 {
  const inYear = all.filter((d) => d.day >= first && d.day <= last);
  const sum = (xs: Dec[]) => xs.reduce((a, b) => a.plus(b), ZERO);
  const net = (d: UkDisposal) => sum(d.lines.map((l) => l.proceeds.minus(l.cost)));
  const gains = (xs: UkDisposal[]) => sum(xs.map(net).filter((g) => g.gt(0)));
  const losses = (xs: UkDisposal[]) => sum(xs.map(net).filter((g) => g.lt(0))).abs();
  const before = inYear.filter((d) => d.day < '2024-10-30');
  const from = inYear.filter((d) => d.day >= '2024-10-30');
  return {
    '13.1': inYear.length,
    '13.2': sum(inYear.flatMap((d) => d.lines.map((l) => l.proceeds))).toFixed(2),
    '13.3': sum(inYear.flatMap((d) => d.lines.map((l) => l.cost))).toFixed(2),
    '13.4': gains(inYear).toFixed(2),
    '13.5': losses(inYear).toFixed(2),
    net: gains(inYear).minus(losses(inYear)).toFixed(2),
    gainsBefore: gains(before).toFixed(2),
    lossesBefore: losses(before).toFixed(2),
    gainsFrom: gains(from).toFixed(2),
    lossesFrom: losses(from).toFixed(2),
  };
}
