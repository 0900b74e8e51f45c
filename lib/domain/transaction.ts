/**
 * The canonical transaction: what the export reads from the service's raw transactions (in any
 * field layout) and what the gains engine consumes. Amounts are exact plain decimal strings.
 */
import type { Cell } from './table.ts';

/** One token movement of a transaction; `amount` is signed (negative leaves the portfolio). */
export interface CanonicalMovement {
  symbol: string;
  /** Exact plain decimal, scale as sent. */
  amount: string;
  /** Exact plain decimal in the transaction's value currency, when sent. */
  value: string | null;
  /** Fields of the movement object the mapping does not know, by dotted path inside it. */
  extras: Readonly<Record<string, Cell>>;
}

/** A transaction with every known field read, validated and normalised. */
export interface CanonicalTransaction {
  id: string;
  /** ISO-8601 UTC instant with milliseconds, e.g. `2025-03-14T09:26:53.000Z`. */
  date: string;
  type: string | null;
  subType: string | null;
  category: string | null;
  protocol: string | null;
  hash: string | null;
  accountId: string | null;
  ledgerId: string | null;
  movements: readonly CanonicalMovement[];
  valueAmount: string | null;
  valueCurrency: string | null;
  feeAmount: string | null;
  feeCurrency: string | null;
  feeSymbol: string | null;
  feeQuantity: string | null;
  /** Fields the mapping does not know, by dotted path; arrays and empty objects as JSON text. */
  extras: Readonly<Record<string, Cell>>;
}
