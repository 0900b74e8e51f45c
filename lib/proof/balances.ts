/**
 * Months that chain in their balances (issue 42, item 3): a period's opening balances, per ledger
 * and token, against the closing balances of the period before, as the two sets' manifests record
 * them (`reconciliation.openingBalances`, `reconciliation.closingBalances`). Read by the export's
 * opening check and by `verify`. Exact decimals; a ledger and token one side leaves out is 0 there.
 */
import Big from 'big.js';

/** One ledger's balance of one token, as a manifest records it. */
export interface RecordedBalance {
  ledgerId: string;
  symbol: string;
  /** Exact decimal. */
  amount: string;
}

/** A ledger and token whose opening is not the previous closing. */
export interface BalanceBreak {
  ledgerId: string;
  symbol: string;
  /** This period's opening balance. */
  opening: string;
  /** The previous period's closing balance. */
  previousClosing: string;
  /** `opening - previousClosing`. */
  difference: string;
}

/** What a manifest records of its balances (the fields this module reads). */
interface BalancesManifest {
  reconciliation?: {
    periodStart?: unknown;
    periodEnd?: unknown;
    openingBalances?: unknown;
    closingBalances?: unknown;
  };
}

/** Recorded balances at an instant. */
export interface BalancesAt {
  /** ISO instant the balances hold at. */
  at: string;
  balances: RecordedBalance[];
}

/**
 * The closing balances a manifest records, and the instant they hold at (`reconciliation.periodEnd`:
 * the period's end, or the export's start when the period was not over); null when it records
 * none (no reconciliation, or a render from a snapshot).
 */
export function closingBalancesOf(manifest: unknown): BalancesAt | null {
  const record = (manifest as BalancesManifest | null)?.reconciliation;
  return balancesAt(record?.periodEnd, record?.closingBalances);
}

/** The opening balances a manifest records at `reconciliation.periodStart`; null when none. */
export function openingBalancesOf(manifest: unknown): BalancesAt | null {
  const record = (manifest as BalancesManifest | null)?.reconciliation;
  return balancesAt(record?.periodStart, record?.openingBalances);
}

function balancesAt(at: unknown, balances: unknown): BalancesAt | null {
  if (typeof at !== 'string' || !Array.isArray(balances)) return null;
  const valid = balances.every(
    (b) =>
      typeof b?.ledgerId === 'string' &&
      typeof b.symbol === 'string' &&
      typeof b.amount === 'string' &&
      isDecimal(b.amount),
  );
  return valid ? { at, balances: balances as RecordedBalance[] } : null;
}

function isDecimal(text: string): boolean {
  try {
    new Big(text);
    return true;
  } catch {
    return false;
  }
}

const key = (ledgerId: string, symbol: string) => JSON.stringify([ledgerId, symbol]);

interface Pair {
  ledgerId: string;
  symbol: string;
  opening: Big;
  closing: Big;
}

/**
 * Every ledger and token whose opening differs from the previous closing (missing on one side: 0
 * there), in ledger then token order.
 */
export function balanceBreaks(
  opening: readonly RecordedBalance[],
  previousClosing: readonly RecordedBalance[],
): BalanceBreak[] {
  const pairs = new Map<string, Pair>();
  const entry = (b: RecordedBalance): Pair => {
    const k = key(b.ledgerId, b.symbol);
    const found = pairs.get(k) ?? {
      ledgerId: b.ledgerId,
      symbol: b.symbol,
      opening: new Big(0),
      closing: new Big(0),
    };
    pairs.set(k, found);
    return found;
  };
  for (const b of opening) {
    const e = entry(b);
    e.opening = e.opening.plus(b.amount);
  }
  for (const b of previousClosing) {
    const e = entry(b);
    e.closing = e.closing.plus(b.amount);
  }
  return [...pairs.values()]
    .filter((e) => !e.opening.eq(e.closing))
    .sort((a, b) => compare(a.ledgerId, b.ledgerId) || compare(a.symbol, b.symbol))
    .map((e) => ({
      ledgerId: e.ledgerId,
      symbol: e.symbol,
      opening: e.opening.toFixed(),
      previousClosing: e.closing.toFixed(),
      difference: e.opening.minus(e.closing).toFixed(),
    }));
}

/** How many ledger balances (ledger and token pairs) the lists hold between them. */
export function pairCount(...lists: readonly (readonly RecordedBalance[])[]): number {
  return new Set(lists.flat().map((b) => key(b.ledgerId, b.symbol))).size;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
