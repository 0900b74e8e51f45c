/**
 * Anlage SO (§ 23 and § 22 Nr. 3 EStG) computed apart from lib/gains: FIFO per wallet (one queue
 * per account and token, moves carry lots with their dates), Berlin dates, a sale more than one
 * year after the acquisition not taxable; net proceeds split over the lots by quantity; each
 * line rounded once; the Freigrenzen as limits (1 000 € from 2024, 256 €).
 */
import { DateTime } from 'luxon';
import { Big, cents, type Dec, type TaxEvent } from './events.ts';

interface Lot {
  quantity: Dec;
  cost: Dec;
  /** Local acquisition day ('' for units taken without a lot). */
  day: string;
  /** Acquisition instant: the FIFO order. */
  at: string;
}

/** One disposal line (one lot matched) as shown. */
export interface DeLine {
  day: string;
  term: 'short' | 'long';
  proceeds: Dec;
  cost: Dec;
}

const ZERO = new Big(0);
const share = (total: Dec, units: Dec, of: Dec) =>
  units.eq(of) ? total : total.times(units).div(of).round(18, Big.roundHalfEven);

function longTerm(acquired: string, disposed: string): boolean {
  const anniversary = DateTime.fromISO(acquired, { zone: 'UTC' }).plus({ years: 1 }).toISODate() as string;
  return disposed > anniversary;
}

/** Takes `units` from the front of a queue; what it lacks comes back as a lot without date or cost. */
function takeFifo(queue: Lot[], units: Dec): Lot[] {
  const taken: Lot[] = [];
  let rest = units;
  while (rest.gt(0) && queue.length > 0) {
    const lot = queue[0] as Lot;
    const q = rest.lt(lot.quantity) ? rest : lot.quantity;
    const cost = share(lot.cost, q, lot.quantity);
    taken.push({ quantity: q, cost, day: lot.day, at: lot.at });
    lot.quantity = lot.quantity.minus(q);
    lot.cost = lot.cost.minus(cost);
    if (lot.quantity.eq(0)) queue.shift();
    rest = rest.minus(q);
  }
  if (rest.gt(0)) taken.push({ quantity: rest, cost: ZERO, day: '', at: '' });
  return taken;
}

export interface AnlageSo {
  taxableLines: number;
  zeile44: string;
  zeile45: string;
  zeile47: string;
  freigrenze: string;
  steuerpflichtig23: string;
  longLines: number;
  longGain: string;
  receipts: number;
  zeile11: string;
  werbungskosten: string;
  einkuenfte: string;
  steuerpflichtig22: string;
}

/** Anlage SO of the calendar year `year` (Berlin days), from every event from the first. */
export function anlageSo(events: readonly TaxEvent[], year: number): AnlageSo {
  const pools = new Map<string, Lot[]>();
  const pool = (account: string, token: string) => {
    const key = `${account}\u0000${token}`;
    const queue = pools.get(key) ?? [];
    pools.set(key, queue);
    return queue;
  };
  const lines: DeLine[] = [];
  const income: { value: Dec; fee: Dec }[] = [];
  const inYear = (day: string) => day.startsWith(`${year}-`);
  for (const e of events) {
    if (e.day > `${year}-12-31`) break;
    const queue = pool(e.account, e.token);
    if (e.kind === 'acquisition') {
      // De: the fee of an income receipt is a Werbungskosten of the income, not acquisition cost.
      queue.push({
        quantity: e.quantity,
        cost: e.income ? e.value : e.value.plus(e.fee),
        day: e.day,
        at: e.at,
      });
      if (e.income && inYear(e.day)) income.push({ value: cents(e.value), fee: cents(e.fee) });
    } else if (e.kind === 'move') {
      // Moved lots keep their dates; units beyond the holding arrive at zero cost, dated at the move.
      const moved = takeFifo(queue, e.quantity).map((l) =>
        l.day === '' ? { ...l, day: e.day, at: e.at } : l,
      );
      const target = pool(e.to as string, e.token);
      target.push(...moved);
      target.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
    } else if (e.kind === 'withdrawal') {
      takeFifo(queue, e.quantity);
    } else {
      let proceedsLeft = e.value.minus(e.fee);
      let unitsLeft = e.quantity;
      for (const lot of takeFifo(queue, e.quantity)) {
        const proceeds = share(proceedsLeft, lot.quantity, unitsLeft);
        proceedsLeft = proceedsLeft.minus(proceeds);
        unitsLeft = unitsLeft.minus(lot.quantity);
        if (!inYear(e.day)) continue;
        const term = lot.day !== '' && longTerm(lot.day, e.day) ? 'long' : 'short';
        lines.push({ day: e.day, term, proceeds: cents(proceeds), cost: cents(lot.cost) });
      }
    }
  }
  const sum = (xs: Dec[]) => xs.reduce((a, b) => a.plus(b), ZERO);
  const short = lines.filter((l) => l.term === 'short');
  const long = lines.filter((l) => l.term === 'long');
  const p = sum(short.map((l) => l.proceeds));
  const c = sum(short.map((l) => l.cost));
  const gain = p.minus(c);
  const freigrenze = new Big(year >= 2024 ? 1000 : 600);
  const einnahmen = sum(income.map((i) => i.value));
  const wk = sum(income.map((i) => i.fee));
  const einkuenfte = einnahmen.minus(wk);
  return {
    taxableLines: short.length,
    zeile44: p.toFixed(2),
    zeile45: c.toFixed(2),
    zeile47: gain.toFixed(2),
    freigrenze: freigrenze.toFixed(0),
    // A limit, not an allowance: a net gain below it is tax-free, from it the whole net; a loss stays.
    steuerpflichtig23: (gain.gt(0) && gain.lt(freigrenze) ? ZERO : gain).toFixed(2),
    longLines: long.length,
    longGain: sum(long.map((l) => l.proceeds.minus(l.cost))).toFixed(2),
    receipts: income.length,
    zeile11: einnahmen.toFixed(2),
    werbungskosten: wk.toFixed(2),
    einkuenfte: einkuenfte.toFixed(2),
    steuerpflichtig22: (einkuenfte.lt(256) ? ZERO : einkuenfte).toFixed(2),
  };
}
