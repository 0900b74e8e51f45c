/**
 * HMRC identification: a disposal the 30-day rule matched with a later acquisition (bed and
 * breakfast) takes that acquisition's cost before it is made, while the section 104 pool still
 * counts the tokens sold. At a month end in between, the journal shows the tokens actually held at
 * the pool's average cost, and the rest of what the disposal took ahead (the buy-back's cost less
 * the pool's cost of the same tokens) on an account of its own, reversed the next day.
 */
import type { Big } from '../../../domain/index.ts';

/** One token's section 104 pool and what the 30-day rule has taken ahead of a date. */
export interface MatchedAhead {
  token: string;
  /** The pool's account (`null`: one pool for every wallet, as HMRC identification has). */
  account: string | null;
  /** The pool as the engine holds it (it still counts the tokens the matched disposals sold). */
  poolQuantity: Big;
  poolCost: Big;
  /** What the 30-day rule took, for disposals already made, from acquisitions still to come. */
  aheadQuantity: Big;
  aheadCost: Big;
}

/**
 * The carrying value of the tokens actually held, `pool − ahead` in quantity, at the pool's
 * average cost (exact); `null` when there is no match ahead or no pool to take an average of
 * (then the account keeps the pool's cost less the acquisitions' cost, as the journal posted it).
 */
export function heldAtPoolCost(position: MatchedAhead): Big | null {
  const { poolQuantity, poolCost, aheadQuantity } = position;
  if (aheadQuantity.lte(0) || poolQuantity.lte(0) || aheadQuantity.gt(poolQuantity)) return null;
  return poolCost.times(poolQuantity.minus(aheadQuantity)).div(poolQuantity);
}
