/**
 * HMRC identification inside the gains engine (method `hmrc`): the engine hands every event to the
 * ledger (hmrc.ts), which keeps the section 104 pools and the days waiting for their 30 days; the
 * days' disposals, withdrawals and pool changes are recorded in the engine's state as they are
 * settled, and an observer is told each day once it is final (hmrc-replay.ts).
 */
import { Big, text, ZERO } from '../../../domain/index.ts';
import {
  activityOf,
  addFlow,
  DAY_MS,
  type EngineState,
  type Identification,
  snapshot,
  taxYear,
  warnAt,
} from '../../engine-state.ts';
import { shares } from '../../lots.ts';
import { localDate } from '../../tax-year.ts';
import type { GainsObserver } from '../../types.ts';
import { dayNumber, type HmrcDisposal, HmrcLedger, joinIds } from './hmrc.ts';
import { createHmrcReplay, type HmrcReplay } from './hmrc-replay.ts';

/**
 * Days after the period's last day whose events HMRC identification reads: a disposal on the
 * period's last day is matched with the acquisitions of the next 30 days (TCGA 1992 s 106A). A
 * tax-year export that stopped at 5 April would lose those matches, so the history is fetched, and
 * given to the engine, through the 30 days after the period's last day; the reports still keep to
 * the period.
 */
export const THIRTY_DAYS = 30;

/**
 * HMRC identification for engine `s`: its ledger, and (with an observer) the replay that tells the
 * observer each day once its 30 days are matched.
 */
export function createHmrcIdentification(s: EngineState, observer: GainsObserver | null): Identification {
  const { options } = s;
  // HMRC identification knows a disposal's cost only once its 30 days are matched: told then.
  const replay: HmrcReplay | null =
    observer === null
      ? null
      : createHmrcReplay(observer, {
          timeZone: options.timeZone,
          scale: options.fiatScale,
          rounding: options.rounding,
        });
  const ledger = createLedger(s, replay);
  return {
    tells: replay !== null,
    // HMRC identification reports whole local days.
    reported: (date) =>
      (s.startDate === null || date >= s.startDate) && (s.endDate === null || date <= s.endDate),
    reads: (event, date) => readsPastPeriod(s, event.time, date),
    arrive: (date) => ledger.arrive(date),
    acquire(event, date, quantity, cost, reported, move) {
      ledger.acquire(event, date, quantity, cost, reported);
      replay?.hold(event, reported, date, move());
    },
    dispose(event, date, quantity, reported) {
      // uk: SA108 takes gross proceeds, the fees are allowable costs (added to the parts' costs).
      const gross = s.fees.disposal === 'cost';
      const value = new Big(event.value ?? 0);
      const fee = new Big(event.fee);
      ledger.dispose(event, date, quantity, gross ? value : value.minus(fee), gross ? fee : ZERO, reported);
      replay?.hold(event, reported, date);
    },
    move(event, date, fee, reported) {
      if (fee.gt(0)) ledger.addCost(event.token, date, fee, event.txId, reported, event.from);
      replay?.hold(event, reported, date);
    },
    withdraw(event, date, quantity, reported) {
      ledger.withdraw(event, date, quantity, reported);
      replay?.hold(event, reported, date);
    },
    pools: () => ledger.pools(),
    finish() {
      ledger.finish();
      replay?.finish();
    },
    carry: () => ledger.carry(),
    restore: (state) => ledger.restore(state),
    matchedAhead: (date) => replay?.matchedAhead(date) ?? [],
  };
}

/**
 * Whether an event after the period end can still change the period's figures: an event of the 30
 * days after the period's last day that the history given reaches (`historyEnd`) may be matched
 * with a disposal of the period (30-day rule, or the same-day rule of its own day first). It is
 * processed, not reported.
 */
function readsPastPeriod(s: EngineState, time: number, date: string): boolean {
  const { historyEnd } = s.options;
  if (s.endDate === null || historyEnd === null || time >= historyEnd) return false;
  return dayNumber(date) <= dayNumber(s.endDate) + THIRTY_DAYS;
}

/**
 * HMRC identification's ledger: its days' disposals, withdrawals and pool changes are recorded in
 * `s` as they are settled.
 */
function createLedger(s: EngineState, replay: HmrcReplay | null): HmrcLedger {
  return new HmrcLedger(s.options.fiatScale, s.options.rounding, {
    beforeDay(day) {
      // The days before are final: the observer is told them before the opening or closing.
      replay?.settled(new Date(day * DAY_MS).toISOString().slice(0, 10));
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
      replay?.disposal(d, s.disposals.slice(from));
    },
    withdrawal(token, w, taken, cost, shortfall) {
      replay?.withdrawal(token, localDate(w.time, s.options.timeZone), taken, cost);
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
        for (const txId of change.txIds) replay?.fee(change.token, change.date, txId);
      if (!change.reported) return;
      if (change.change === 'fee') addFlow(activityOf(s, '', change.token).transferredIn, ZERO, change.cost);
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
  });
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
