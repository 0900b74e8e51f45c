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
  toMinorUnit,
} from '../domain/index.ts';
import type { Account, JournalEntry, Posting } from '../ledger/index.ts';

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
 * minus the closed one (a quantity moving against its value split in two postings, see below);
 * none when every balance is the same. Closed plus adjusting equals
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
    // Written as the closed journal writes its amounts: with the currency's minor unit (`12.00`).
    const shown = (value: string) => toMinorUnit(absDecimal(value), line.currency);
    const posting = (value: string, moved: string): Posting => ({
      account: line.account,
      debit: signDecimal(value) > 0 ? shown(value) : '0',
      credit: signDecimal(value) < 0 ? shown(value) : '0',
      currency: line.currency,
      ...(line.token !== undefined ? { token: line.token } : {}),
      ...(isZeroDecimal(moved) ? {} : { quantity: moved }),
    });
    // A quantity that moves against its carrying value (fewer tokens, more cost) has no price the
    // plain-text ledgers can write (their total cost takes the quantity's sign): two postings then,
    // the tokens at no value and the value alone.
    if (!isZeroDecimal(net) && !isZeroDecimal(quantity) && signDecimal(net) !== signDecimal(quantity))
      postings.push(posting('0', quantity), posting(net, '0'));
    else postings.push(posting(net, quantity));
  }
  if (postings.length === 0) return [];
  return [
    { id: options.id, date: options.date, txIds: options.txIds, description: options.description, postings },
  ];
}

/**
 * The first day after a closed period (`2025-10` → `2025-11-01`, `2025` → `2026-01-01`, a tax
 * year `2024-04-06_2025-04-05` → `2025-04-06`): the first day that period's close leaves open.
 */
export function dayAfterPeriod(period: string): string {
  const month = /^(\d{4})-(\d{2})$/.exec(period);
  if (month !== null) return nextDay(lastDayOfMonth(Number(month[1]), Number(month[2])));
  if (/^\d{4}$/.test(period)) return `${Number(period) + 1}-01-01`;
  const end = /_(\d{4}-\d{2}-\d{2})$/.exec(period)?.[1];
  if (end === undefined) throw new Error(`not a close period: ${period}`);
  return nextDay(end);
}

function lastDayOfMonth(year: number, month: number): string {
  return new Date(Date.UTC(year, month, 0)).toISOString().slice(0, 10);
}

function nextDay(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/**
 * The date of a restatement's adjusting entries: the first day of the first open period of the
 * profile, that is the day after the latest period of `profile` closed in `closes` (a later
 * closed month is not booked into either), and never before the day after `period` itself.
 */
export function adjustingDate(
  profile: string,
  period: string,
  closes: readonly { profile: string; period: string }[],
): string {
  let date = dayAfterPeriod(period);
  for (const close of closes) {
    if (close.profile !== profile) continue;
    const after = dayAfterPeriod(close.period);
    if (after > date) date = after;
  }
  return date;
}
