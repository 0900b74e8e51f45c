/**
 * The demo portfolio's balances as a test computes them from the simulator's own data (its
 * `Portfolio`, seed 1), with this file's arithmetic, not the export's: movements per token, less
 * the fee quantity in the fee's token (a `fee` row's outgoing movements are the fee itself).
 */
import Big from 'big.js';
import { DEFAULT_PROFILES, Portfolio } from '../../lib/simulator/index.ts';

/** A transaction as the simulator holds it (the fields the balances read). */
export interface DemoTx {
  id: string;
  date: string;
  category: string;
  ledgerId: string;
  movements: { symbol: string; amount: string }[];
  fee: { symbol: string | null; quantity: string | null };
}

/** Every live transaction of the demo profile. */
export function demoTransactions(): DemoTx[] {
  const demo = DEFAULT_PROFILES.find((p) => p.name === 'demo');
  if (demo === undefined) throw new Error('no demo profile');
  const portfolio = new Portfolio({ ...demo, profileGuid: demo.profileGuid } as never, 1);
  const out: DemoTx[] = [];
  for (let i = 0; i < portfolio.count; i += 1) {
    if (!portfolio.isDeleted(i)) out.push(portfolio.transaction(i) as unknown as DemoTx);
  }
  return out;
}

/** One transaction's change per token. */
export function changesOf(tx: DemoTx): Map<string, Big> {
  const out = new Map<string, Big>();
  const add = (symbol: string, amount: Big) => out.set(symbol, (out.get(symbol) ?? new Big(0)).plus(amount));
  for (const m of tx.movements) add(m.symbol, new Big(m.amount));
  const feeIsMovement = tx.category === 'fee' && tx.movements.some((m) => m.amount.startsWith('-'));
  if (!feeIsMovement && tx.fee.symbol !== null && tx.fee.quantity !== null)
    add(tx.fee.symbol, new Big(tx.fee.quantity).abs().times(-1));
  return out;
}

/** Balances per `ledger|token` of the transactions dated before `endIso` (zeros included). */
export function balancesBefore(txs: readonly DemoTx[], endIso: string): Map<string, Big> {
  const out = new Map<string, Big>();
  for (const tx of txs) {
    if (Date.parse(tx.date) >= Date.parse(endIso)) continue;
    for (const [symbol, change] of changesOf(tx)) {
      const key = `${tx.ledgerId}|${symbol}`;
      out.set(key, (out.get(key) ?? new Big(0)).plus(change));
    }
  }
  return out;
}

/**
 * The first live transaction of `month` (YYYY-MM) that moves one token in one movement: hidden
 * from the service's listings, it changes one balance by `change` (this file's arithmetic).
 */
export function oneTokenTransaction(month: string): { tx: DemoTx; symbol: string; change: Big } {
  for (const tx of demoTransactions()) {
    if (!tx.date.startsWith(month) || tx.movements.length !== 1) continue;
    const changes = [...changesOf(tx)];
    const [only] = changes;
    if (changes.length === 1 && only !== undefined) return { tx, symbol: only[0], change: only[1] };
  }
  throw new Error(`no demo transaction of ${month} moves one token`);
}
