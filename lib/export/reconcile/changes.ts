/**
 * What one transaction does to its ledger's balances, per token, read through the service's field
 * map: the sum of its movements in each token, less the fee quantity in the fee's token (except in
 * a `fee` transaction with outgoing movements: those movements are the fee themselves). The same
 * rule GAPS.md's reported balances are consistent with (docs/accountant/reconciliation.md).
 */
import Big from 'big.js';
import type { TransactionFieldMap } from '../../pbs/index.ts';
import { getPath, isExactNumber } from '../../pbs/index.ts';

/** The fields {@link balanceChanges} reads. */
export type ChangeFields = Pick<
  TransactionFieldMap,
  'movements' | 'movementSymbol' | 'movementAmount' | 'feeSymbol' | 'feeQuantity' | 'category'
>;

/** A decimal, or null for a value that is none (then it moves nothing, and is counted). */
export function readDecimal(value: unknown): Big | null {
  if (isExactNumber(value)) return readDecimal(value.value);
  if (typeof value === 'number') return Number.isFinite(value) ? new Big(value) : null;
  if (typeof value !== 'string' || !/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value.trim())) return null;
  try {
    return new Big(value.trim());
  } catch {
    return null;
  }
}

/** One transaction's change per token symbol, and how many of its amounts could not be read. */
export interface TransactionChanges {
  bySymbol: Map<string, Big>;
  unreadable: number;
}

/** The balance changes of `tx` per token (see the module's rule). */
export function balanceChanges(tx: unknown, fields: ChangeFields): TransactionChanges {
  const bySymbol = new Map<string, Big>();
  let unreadable = 0;
  const add = (symbol: unknown, amount: Big | null) => {
    if (typeof symbol !== 'string' || amount === null) {
      unreadable += 1;
      return;
    }
    bySymbol.set(symbol, (bySymbol.get(symbol) ?? new Big(0)).plus(amount));
  };
  const movements = getPath(tx, fields.movements);
  let outgoing = false;
  for (const move of Array.isArray(movements) ? movements : []) {
    const amount = readDecimal(getPath(move, fields.movementAmount));
    if (amount?.lt(0)) outgoing = true;
    add(getPath(move, fields.movementSymbol), amount);
  }
  const quantityText = getPath(tx, fields.feeQuantity);
  const feeIsMovement = getPath(tx, fields.category) === 'fee' && outgoing;
  if (!feeIsMovement && quantityText !== null && quantityText !== undefined) {
    const quantity = readDecimal(quantityText);
    add(getPath(tx, fields.feeSymbol), quantity === null ? null : quantity.abs().times(-1));
  }
  return { bySymbol, unreadable };
}
