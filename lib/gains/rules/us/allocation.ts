/**
 * The allocation of the unused basis on 1 January 2025 (Rev. Proc. 2024-28): when the pools of a
 * `wallet-from-2025` run switch from one per token to one per wallet, which wallet gets which part
 * of the universal pool's lots. Sources and the reasons for the rule: README.md in lib/gains
 * ("us: holding period and wallet-by-wallet pools").
 */
import { type Big, compareText, mulDiv, type Rounding, ZERO } from '../../../domain/index.ts';
import { type Lot, ORDERS, type Pool, shares } from '../../lots.ts';
import type { LotMethod, WalletAllocation } from '../../types.ts';

/** Why a wallet received a part of a lot. */
export type AllocationSource =
  /** Units of the lot the wallet's own records hold, whose basis the universal pool still had. */
  | 'own-units'
  /** Basis left by units sold from another wallet, given to units whose own basis was used up. */
  | 'reallocated'
  /** `account-order`: the wallet's holding, filled from the pool in consumption order. */
  | 'account-order'
  /** Basis no unit in any wallet claims, kept by the wallet that acquired the lot. */
  | 'unclaimed';

/** A part of a universal lot given to a wallet at the switch. */
export interface Grant {
  account: string;
  lot: Lot;
  quantity: Big;
  cost: Big;
  source: AllocationSource;
}

/** What one token's allocation gave: the grants, and each wallet's units no basis was left for. */
export interface TokenAllocation {
  grants: Grant[];
  /** Units a wallet's records hold that no unused basis covers (they will dispose at a zero basis). */
  uncovered: { account: string; quantity: Big }[];
}

/** The inputs of one token's allocation. */
export interface AllocationInput {
  /** The token's universal pool just before the switch. */
  universal: Pool;
  /** The wallets' own records of the token: per account, the lots (and parts) the wallet holds. */
  records: ReadonlyMap<string, Pool>;
  /** `account-order` only: each account's net holding, acquisitions minus disposals and transfers. */
  balances: ReadonlyMap<string, Big>;
  method: LotMethod;
  scale: number;
  rounding: Rounding;
}

/** A universal lot with what is left of it to allocate. */
interface Supply {
  lot: Lot;
  quantity: Big;
  cost: Big;
}

/** A part of a lot a wallet's records hold, and how much of it still wants a basis. */
interface Demand {
  account: string;
  lot: Lot;
  /** When the part arrived in the wallet (its acquisition, or the move that brought it). */
  arrived: number;
  quantity: Big;
}

/** The universal lots in consumption order, each with its own basis (an average pool's cost spread by quantity). */
function supplies(input: AllocationInput): Supply[] {
  const lots = input.universal.lots();
  const costs =
    input.method === 'average'
      ? shares(
          input.universal.cost,
          lots.map((lot) => lot.quantity),
          input.scale,
          input.rounding,
        )
      : lots.map((lot) => lot.cost);
  return lots.map((lot, index) => ({ lot, quantity: lot.quantity, cost: costs[index] ?? ZERO }));
}

/** Takes `quantity` of `from` for `account`: a pro-rata basis (rounded), the last part the exact rest. */
function grant(
  input: AllocationInput,
  from: Supply,
  account: string,
  quantity: Big,
  source: AllocationSource,
): Grant {
  const cost = quantity.eq(from.quantity)
    ? from.cost
    : mulDiv(from.cost, quantity, from.quantity, input.scale, input.rounding);
  from.quantity = from.quantity.minus(quantity);
  from.cost = from.cost.minus(cost);
  return { account, lot: from.lot, quantity, cost, source };
}

const least = (a: Big, b: Big) => (a.lt(b) ? a : b);

/**
 * The default rule (`records`), which names no account and so gives every wallet the same basis
 * whatever the accounts are called:
 * 1. Own units: every part of a lot a wallet's records hold keeps that lot's basis, as far as the
 *    universal pool still has it (specific unit allocation following the wallets' records).
 * 2. Reallocated: the units whose lot's basis the universal pool used for a sale from another
 *    wallet take the basis that sale left unused, in the method's consumption order on both sides:
 *    the units first in that order get the unused lots first in it.
 * 3. Unclaimed: basis no unit claims (more was disposed of from a wallet than its records held)
 *    stays with the wallet that acquired the lot.
 * Parts of one lot in several wallets are served in the order they arrived in their wallets.
 */
function byRecords(input: AllocationInput): TokenAllocation {
  const supply = supplies(input);
  const bySeq = new Map(supply.map((s) => [s.lot.seq, s]));
  const order = ORDERS[input.method];
  const demand: Demand[] = [];
  for (const [account, records] of input.records) {
    for (const lot of records.lots())
      demand.push({ account, lot, arrived: lot.arrived ?? lot.seq, quantity: lot.quantity });
  }
  demand.sort((a, b) => order(a.lot, b.lot) || a.arrived - b.arrived);
  const grants: Grant[] = [];
  for (const d of demand) {
    const own = bySeq.get(d.lot.seq);
    if (own === undefined || own.quantity.eq(0)) continue;
    const quantity = least(d.quantity, own.quantity);
    grants.push(grant(input, own, d.account, quantity, 'own-units'));
    d.quantity = d.quantity.minus(quantity);
  }
  let next = 0;
  const uncovered = new Map<string, Big>();
  for (const d of demand) {
    while (d.quantity.gt(0)) {
      while (next < supply.length && (supply[next] as Supply).quantity.eq(0)) next += 1;
      const from = supply[next];
      if (from === undefined) {
        uncovered.set(d.account, (uncovered.get(d.account) ?? ZERO).plus(d.quantity));
        break;
      }
      const quantity = least(d.quantity, from.quantity);
      grants.push(grant(input, from, d.account, quantity, 'reallocated'));
      d.quantity = d.quantity.minus(quantity);
    }
  }
  for (const from of supply) {
    if (from.quantity.gt(0)) grants.push(grant(input, from, from.lot.account, from.quantity, 'unclaimed'));
  }
  return { grants, uncovered: [...uncovered].map(([account, quantity]) => ({ account, quantity })) };
}

/**
 * The rule of earlier versions (`account-order`), a global allocation whose result depends on the
 * accounts' ids: each account with a positive holding, in the alphabetical order of its id, takes
 * its holding from the pool in consumption order; lots no holding claims go to the account that
 * acquired them.
 */
function byAccountOrder(input: AllocationInput): TokenAllocation {
  const supply = supplies(input);
  const grants: Grant[] = [];
  const uncovered: TokenAllocation['uncovered'] = [];
  let next = 0;
  const holders = [...input.balances]
    .filter(([, quantity]) => quantity.gt(0))
    .sort(([a], [b]) => compareText(a, b));
  for (const [account, holding] of holders) {
    let wanted = holding;
    while (wanted.gt(0)) {
      while (next < supply.length && (supply[next] as Supply).quantity.eq(0)) next += 1;
      const from = supply[next];
      if (from === undefined) {
        uncovered.push({ account, quantity: wanted });
        break;
      }
      const quantity = least(wanted, from.quantity);
      grants.push(grant(input, from, account, quantity, 'account-order'));
      wanted = wanted.minus(quantity);
    }
  }
  for (const from of supply) {
    if (from.quantity.gt(0)) grants.push(grant(input, from, from.lot.account, from.quantity, 'unclaimed'));
  }
  return { grants, uncovered };
}

/** One token's allocation at the switch under `rule`. */
export function allocateUnusedBasis(rule: WalletAllocation, input: AllocationInput): TokenAllocation {
  return rule === 'account-order' ? byAccountOrder(input) : byRecords(input);
}
