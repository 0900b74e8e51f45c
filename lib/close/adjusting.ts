/**
 * Adjusting entries of a restatement: booked in the first open period, they bring the ledger from
 * the closed journal's balances to the corrected journal's. They need the journal report's
 * entries of the closed period twice: as delivered (the closed set's journal, or a journal run
 * on the closed snapshot) and corrected (a journal run on the corrected snapshot).
 */
import {
  absDecimal,
  addDecimal,
  isZeroDecimal,
  signDecimal,
  subtractDecimal,
} from '../domain/decimal/plain.ts';
import type { Account, JournalEntry, Posting } from '../ledger/types.ts';

/** Balance (debit − credit) and quantity per account, currency and token. */
interface Balance {
  account: Account;
  currency: string;
  token?: string;
  net: string;
  quantity: string;
}

function balances(entries: Iterable<JournalEntry>): Map<string, Balance> {
  const out = new Map<string, Balance>();
  for (const entry of entries) {
    for (const posting of entry.postings) {
      const key = JSON.stringify([posting.account.code, posting.currency, posting.token ?? null]);
      const seen = out.get(key) ?? {
        account: posting.account,
        currency: posting.currency,
        ...(posting.token !== undefined ? { token: posting.token } : {}),
        net: '0',
        quantity: '0',
      };
      seen.net = addDecimal(seen.net, subtractDecimal(posting.debit, posting.credit));
      if (posting.quantity !== undefined) seen.quantity = addDecimal(seen.quantity, posting.quantity);
      out.set(key, seen);
    }
  }
  return out;
}

/** What the adjusting entry is. */
export interface AdjustingOptions {
  /** Its date: the first day of the first open period, `YYYY-MM-DD`. */
  date: string;
  /** Its id, e.g. `restatement:2025-10:20251201T…`. */
  id: string;
  /** Its description, e.g. the restatement's sentence. */
  description: string;
  /** Transactions the restatement names (added, modified, deleted). */
  txIds: string[];
}

/**
 * One balanced entry whose postings are, per account (and currency, token), the corrected balance
 * minus the closed one; none when every balance is the same. Closed plus adjusting equals
 * corrected, account by account, because both journals balance.
 */
export function adjustingEntries(
  closed: Iterable<JournalEntry>,
  corrected: Iterable<JournalEntry>,
  options: AdjustingOptions,
): JournalEntry[] {
  const before = balances(closed);
  const after = balances(corrected);
  const postings: Posting[] = [];
  for (const key of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const was = before.get(key);
    const now = after.get(key);
    const line = (now ?? was) as Balance;
    const net = subtractDecimal(now?.net ?? '0', was?.net ?? '0');
    const quantity = subtractDecimal(now?.quantity ?? '0', was?.quantity ?? '0');
    if (isZeroDecimal(net) && isZeroDecimal(quantity)) continue;
    postings.push({
      account: line.account,
      debit: signDecimal(net) > 0 ? net : '0',
      credit: signDecimal(net) < 0 ? absDecimal(net) : '0',
      currency: line.currency,
      ...(line.token !== undefined ? { token: line.token } : {}),
      ...(isZeroDecimal(quantity) ? {} : { quantity }),
    });
  }
  if (postings.length === 0) return [];
  return [
    { id: options.id, date: options.date, txIds: options.txIds, description: options.description, postings },
  ];
}
