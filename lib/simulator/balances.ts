/**
 * The ledgers' balances the simulator reports (GAPS.md "Reported balances"), consistent with its
 * transactions: per ledger and token, the sum of every live transaction's movements in that token,
 * less its fee quantity in the fee's token (except in a `fee` transaction with outgoing movements:
 * those movements are the fee). Balance faults make it lie on purpose: a transaction hidden from
 * every listing (still counted in the balances), or a balance reported off by a delta.
 */
import Big from 'big.js';
import { ValidationError } from '../errors.ts';
import { type CanonicalTransaction, isoInstant, type Portfolio } from './data.ts';
import type { Touched } from './past-edits.ts';
import type { BalanceFaults } from './types.ts';

export type { BalanceFaults } from './types.ts';

/** One reported balance item (GAPS.md default shape). */
export interface BalanceItem {
  symbol: string;
  amount: string;
  asOf: string;
}

/** Balances per ledger id, then per token symbol. */
type Balances = Map<string, Map<string, Big>>;

/** A decimal, or null for a value that is not one (hostile data): such an amount moves nothing. */
function decimal(value: unknown): Big | null {
  if (typeof value !== 'string' && typeof value !== 'number') return null;
  try {
    return new Big(value);
  } catch {
    return null;
  }
}

/**
 * What one transaction changes, per token: its movements, less the fee quantity in the fee's
 * token (but in a `fee` transaction with outgoing movements, which are the fee themselves).
 */
export function balanceChanges(tx: CanonicalTransaction): Map<string, Big> {
  const out = new Map<string, Big>();
  const add = (symbol: unknown, amount: Big | null) => {
    if (typeof symbol !== 'string' || amount === null) return;
    out.set(symbol, (out.get(symbol) ?? new Big(0)).plus(amount));
  };
  const movements = Array.isArray(tx.movements) ? (tx.movements as Record<string, unknown>[]) : [];
  let outgoing = false;
  for (const move of movements) {
    const amount = decimal(move?.amount);
    if (amount?.lt(0)) outgoing = true;
    add(move?.symbol, amount);
  }
  const fee = (tx.fee ?? null) as Record<string, unknown> | null;
  const quantity = decimal(fee?.quantity);
  if (!(tx.category === 'fee' && outgoing) && quantity !== null) add(fee?.symbol, quantity.abs().times(-1));
  return out;
}

function addInto(balances: Balances, tx: CanonicalTransaction, sign: 1 | -1): void {
  if (typeof tx.ledgerId !== 'string') return;
  let ledger = balances.get(tx.ledgerId);
  if (!ledger) {
    ledger = new Map();
    balances.set(tx.ledgerId, ledger);
  }
  for (const [symbol, change] of balanceChanges(tx))
    ledger.set(symbol, (ledger.get(symbol) ?? new Big(0)).plus(sign === 1 ? change : change.times(-1)));
}

/** Balances of the generated transactions, and their last change, cached per portfolio. */
const generatedCache = new WeakMap<Portfolio, { balances: Balances; latestMs: number }>();

function generatedBalances(portfolio: Portfolio): { balances: Balances; latestMs: number } {
  const cached = generatedCache.get(portfolio);
  if (cached) return cached;
  const balances: Balances = new Map();
  let latestMs = 0;
  for (let i = 0; i < portfolio.count; i += 1) {
    if (portfolio.isDeleted(i)) continue;
    addInto(balances, portfolio.transaction(i), 1);
    latestMs = Math.max(latestMs, portfolio.dateMs(i) + 1, portfolio.core(i).lastModifiedSec * 1000);
  }
  const result = { balances, latestMs };
  generatedCache.set(portfolio, result);
  return result;
}

/**
 * The reported balances of every ledger of `portfolio` now: the generated transactions with the
 * effective past edits applied (`touched`), hidden ones included, then the misreports added.
 * `asOf` is the instant of the last sync: the latest change (a transaction's `lastModifiedDate`, an
 * edit's instant), at least just after the latest transaction's date.
 */
export function reportedBalances(
  portfolio: Portfolio,
  touched: ReadonlyMap<string, Touched>,
  faults: BalanceFaults,
): Map<string, BalanceItem[]> {
  const base = generatedBalances(portfolio);
  const balances: Balances = new Map([...base.balances].map(([id, m]) => [id, new Map(m)]));
  let latestMs = base.latestMs;
  for (const [id, state] of touched) {
    const index = portfolio.liveIndexOf(id);
    if (index !== undefined) addInto(balances, portfolio.transaction(index), -1);
    if (!state.deleted) addInto(balances, state.tx, 1);
    latestMs = Math.max(latestMs, (Date.parse(String(state.tx.date)) || 0) + 1, state.atMs);
  }
  for (const wrong of faults.misreport ?? []) {
    if (wrong.profile !== portfolio.profile.name) continue;
    const ledger = balances.get(wrong.ledgerId) ?? new Map<string, Big>();
    balances.set(wrong.ledgerId, ledger);
    ledger.set(wrong.symbol, (ledger.get(wrong.symbol) ?? new Big(0)).plus(wrong.delta));
  }
  const asOf = isoInstant(latestMs);
  const out = new Map<string, BalanceItem[]>();
  for (const ledger of portfolio.ledgers) {
    const symbols = [...(balances.get(ledger.id) ?? new Map<string, Big>())].sort(([a], [b]) =>
      a < b ? -1 : a > b ? 1 : 0,
    );
    out.set(
      ledger.id,
      symbols.map(([symbol, amount]) => ({ symbol, amount: amount.toFixed(), asOf })),
    );
  }
  return out;
}

/**
 * `touched` with the hidden transactions of `portfolio` added as deleted, at no instant: gone from
 * searches and from every timeline, without a deletion ever being listed.
 */
export function withHidden(
  portfolio: Portfolio,
  touched: Map<string, Touched>,
  faults: BalanceFaults,
): Map<string, Touched> {
  for (const { profile, id } of faults.hide ?? []) {
    if (profile !== portfolio.profile.name) continue;
    const index = portfolio.liveIndexOf(id);
    const tx = touched.get(id)?.tx ?? (index === undefined ? undefined : portfolio.transaction(index));
    if (tx === undefined) continue;
    touched.set(id, { tx, deleted: true, atMs: Number.NEGATIVE_INFINITY });
  }
  return touched;
}

/** Checks balance faults as given (a file or a test): every field named with the reason. */
export function checkBalanceFaults(
  faults: BalanceFaults,
  profiles: readonly string[],
  hasLive: (profile: string, id: string) => boolean,
): void {
  (faults.hide ?? []).forEach((hide, k) => {
    if (!profiles.includes(hide?.profile))
      throw new ValidationError(
        `balanceFaults.hide[${k}].profile`,
        `no simulated profile "${hide?.profile}"`,
      );
    if (typeof hide.id !== 'string' || !hasLive(hide.profile, hide.id))
      throw new ValidationError(
        `balanceFaults.hide[${k}].id`,
        `no live transaction ${JSON.stringify(hide.id)} in profile "${hide.profile}"`,
      );
  });
  (faults.misreport ?? []).forEach((wrong, k) => {
    const at = `balanceFaults.misreport[${k}]`;
    if (!profiles.includes(wrong?.profile))
      throw new ValidationError(`${at}.profile`, `no simulated profile "${wrong?.profile}"`);
    if (typeof wrong.ledgerId !== 'string')
      throw new ValidationError(`${at}.ledgerId`, 'expected a ledger id');
    if (typeof wrong.symbol !== 'string')
      throw new ValidationError(`${at}.symbol`, 'expected a token symbol');
    if (decimal(wrong.delta) === null || typeof wrong.delta !== 'string')
      throw new ValidationError(`${at}.delta`, 'expected a decimal string');
  });
}
