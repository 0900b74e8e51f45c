/**
 * The two sides' inputs: the balances computed from a snapshot's transactions up to the period
 * end, and the movements after the period end, searched from the service for that purpose.
 */
import Big from 'big.js';
import type { RawTransaction, TransactionFieldMap, TransactionQuery } from '../../pbs/index.ts';
import { getPath } from '../../pbs/index.ts';
import { readSnapshotRecords, transactionId, transactionInstant } from '../snapshot/index.ts';
import { balanceChanges } from './changes.ts';
import type { LaterMovement } from './reconcile.ts';

/** Balances per ledger id, then per token symbol. */
export type LedgerBalances = Map<string, Map<string, Big>>;

/** What the computation read, besides the balances. */
export interface ComputeCounts {
  transactions: number;
  /** Amounts (movement or fee) that were not decimals, or had no token: left out. */
  unreadableAmounts: number;
  /** Transactions without a ledger id: left out. */
  withoutLedger: number;
}

/** Adds one transaction's changes into `balances`; returns its changes, or null without a ledger. */
function addTransaction(
  balances: LedgerBalances,
  tx: RawTransaction,
  fields: TransactionFieldMap,
  counts: ComputeCounts,
): Map<string, Big> | null {
  counts.transactions += 1;
  const ledgerId = getPath(tx, fields.ledgerId);
  const { bySymbol, unreadable } = balanceChanges(tx, fields);
  counts.unreadableAmounts += unreadable;
  if (typeof ledgerId !== 'string' || ledgerId === '') {
    counts.withoutLedger += 1;
    return null;
  }
  let ledger = balances.get(ledgerId);
  if (!ledger) {
    ledger = new Map();
    balances.set(ledgerId, ledger);
  }
  for (const [symbol, change] of bySymbol)
    ledger.set(symbol, (ledger.get(symbol) ?? new Big(0)).plus(change));
  return bySymbol;
}

/**
 * The balances of every ledger and token at `endMs` from the snapshot's transactions dated before
 * it (the snapshot holds the whole history when the gains reports are asked).
 */
export async function computedBalances(
  snapshotFile: string,
  fields: TransactionFieldMap,
  endMs: number,
): Promise<{ balances: LedgerBalances; counts: ComputeCounts }> {
  const { balances, counts } = await balancesAtInstants(snapshotFile, fields, [endMs]);
  return { balances: balances[0] as LedgerBalances, counts: counts[0] as ComputeCounts };
}

/** Balances at each of a list of instants, and what was read to compute each. */
export interface TalliedBalances {
  /** The instants (epoch ms): transactions dated before each are in its balances. */
  instants: readonly number[];
  balances: LedgerBalances[];
  counts: ComputeCounts[];
}

/** Balances tallied one transaction at a time, as a reader of the run's records meets them. */
export interface BalanceTally {
  /** Adds a transaction to the balances of every instant it is dated before. */
  add(tx: RawTransaction): void;
  /** The balances so far. */
  result(): TalliedBalances;
}

/**
 * A tally of the balances at each of `instants` (see {@link BalanceTally}): the report model keeps
 * one while it observes the run's records, so the reconciliation does not read the snapshot again.
 */
export function createBalanceTally(fields: TransactionFieldMap, instants: readonly number[]): BalanceTally {
  const balances: LedgerBalances[] = instants.map(() => new Map());
  const counts: ComputeCounts[] = instants.map(() => ({
    transactions: 0,
    unreadableAmounts: 0,
    withoutLedger: 0,
  }));
  return {
    add(tx) {
      const atMs = transactionInstant(tx, fields, transactionId(tx, fields));
      instants.forEach((instant, i) => {
        if (atMs < instant)
          addTransaction(balances[i] as LedgerBalances, tx, fields, counts[i] as ComputeCounts);
      });
    },
    result: () => ({ instants, balances, counts }),
  };
}

/**
 * The balances of every ledger and token at each of `instants` (epoch ms), from the snapshot's
 * transactions dated before each, in one pass over the snapshot: a period's opening (at its
 * start) and closing (at its end) together, for a run that did not tally them as it assembled.
 */
export async function balancesAtInstants(
  snapshotFile: string,
  fields: TransactionFieldMap,
  instants: readonly number[],
): Promise<TalliedBalances> {
  const tally = createBalanceTally(fields, instants);
  for await (const record of readSnapshotRecords(snapshotFile)) {
    if (record.kind === 'transaction') tally.add(record.data);
  }
  return tally.result();
}

/** What the later movements are searched with. */
export interface LaterSource {
  transactionPages(query: TransactionQuery): AsyncIterable<{ items: RawTransaction[] }>;
}

/**
 * Every movement of the transactions dated in `[startMs, endMs)`, searched from the service (one
 * search, every page), per ledger and token, with the transaction's instant.
 */
export async function laterMovements(
  source: LaterSource,
  fields: TransactionFieldMap,
  startMs: number,
  endMs: number,
): Promise<(LaterMovement & { atMs: number })[]> {
  if (endMs <= startMs) return [];
  const out: (LaterMovement & { atMs: number })[] = [];
  const counts: ComputeCounts = { transactions: 0, unreadableAmounts: 0, withoutLedger: 0 };
  const seen = new Set<string>();
  const query = { window: { start: new Date(startMs), end: new Date(endMs) } };
  for await (const page of source.transactionPages(query)) {
    for (const tx of page.items) {
      const id = transactionId(tx, fields);
      if (seen.has(id)) continue;
      seen.add(id);
      const atMs = transactionInstant(tx, fields, id);
      if (atMs < startMs || atMs >= endMs) continue;
      const changes = addTransaction(new Map(), tx, fields, counts);
      const ledgerId = getPath(tx, fields.ledgerId) as string;
      for (const [symbol, change] of changes ?? []) {
        const date = new Date(atMs).toISOString();
        out.push({ ledgerId, symbol, transactionId: id, date, change: change.toFixed(), atMs });
      }
    }
  }
  return out.sort((a, b) => a.atMs - b.atMs || (a.transactionId < b.transactionId ? -1 : 1));
}
