/**
 * Reconciliation per ledger and token at the period end: the balance computed from the
 * transactions against the service's reported balance carried back to the period end (reported at
 * `asOf` less the movements between the period end and `asOf`). Exact decimals throughout.
 */
import Big from 'big.js';
import type { ReportedBalance } from '../../pbs/index.ts';

/** One movement between the period end and a reported balance's `asOf`, used to carry it back. */
export interface LaterMovement {
  ledgerId: string;
  symbol: string;
  transactionId: string;
  /** ISO instant. */
  date: string;
  change: string;
}

/** One ledger and token, reconciled. */
export interface ReconciledBalance {
  ledgerId: string;
  symbol: string;
  /** From the transactions, at the period end. */
  computed: string;
  /** As the service reports it now (0 when it reports none for this token). */
  reported: string;
  /** ISO instant of the reported balance; null when the service reported none for this token. */
  reportedAsOf: string | null;
  /** The movements between the period end and `reportedAsOf`, summed. */
  laterMovements: string;
  laterMovementCount: number;
  /** `reported - laterMovements`. */
  reportedAtPeriodEnd: string;
  /**
   * `reportedAtPeriodEnd - computed`: 0 when the books hold what the service holds; a transaction
   * missing from the listings shows as its own movement.
   */
  difference: string;
}

/** What {@link reconcile} is given. */
export interface ReconcileInput {
  /** Balances computed from the transactions up to the period end, per ledger then token. */
  computed: ReadonlyMap<string, ReadonlyMap<string, Big>>;
  reported: readonly ReportedBalance[];
  /** Every transaction's changes after the period end (dated before the latest `asOf`). */
  later: readonly (LaterMovement & { atMs: number })[];
}

const key = (ledgerId: string, symbol: string) => JSON.stringify([ledgerId, symbol]);

/** Compares, per ledger and token, in ledger then token order; rows that are all zero are left out. */
export function reconcile(input: ReconcileInput): ReconciledBalance[] {
  const reported = new Map(input.reported.map((r) => [key(r.ledgerId, r.symbol), r]));
  const pairs = new Map<string, [string, string]>();
  for (const [ledgerId, tokens] of input.computed)
    for (const symbol of tokens.keys()) pairs.set(key(ledgerId, symbol), [ledgerId, symbol]);
  for (const r of input.reported) pairs.set(key(r.ledgerId, r.symbol), [r.ledgerId, r.symbol]);
  const rows: ReconciledBalance[] = [];
  for (const [k, [ledgerId, symbol]] of pairs) {
    const computed = input.computed.get(ledgerId)?.get(symbol) ?? new Big(0);
    const report = reported.get(k);
    const used = input.later.filter(
      (m) =>
        m.ledgerId === ledgerId && m.symbol === symbol && (report === undefined || m.atMs < report.asOfMs),
    );
    const later = used.reduce((sum, m) => sum.plus(m.change), new Big(0));
    const amount = new Big(report?.amount ?? 0);
    const atEnd = amount.minus(later);
    const difference = atEnd.minus(computed);
    if (computed.eq(0) && amount.eq(0) && later.eq(0)) continue;
    rows.push({
      ledgerId,
      symbol,
      computed: computed.toFixed(),
      reported: amount.toFixed(),
      reportedAsOf: report === undefined ? null : new Date(report.asOfMs).toISOString(),
      laterMovements: later.toFixed(),
      laterMovementCount: used.length,
      reportedAtPeriodEnd: atEnd.toFixed(),
      difference: difference.toFixed(),
    });
  }
  return rows.sort((a, b) => compare(a.ledgerId, b.ledgerId) || compare(a.symbol, b.symbol));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
