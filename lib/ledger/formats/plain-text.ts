/**
 * What the Beancount and hledger journals share: the accounts an entry set uses, commodity names
 * their tools accept, and text without the characters their syntax reserves.
 */
import type { Account, JournalEntry, LedgerFormatContext } from '../types.ts';

/** Every account the entries and the balance assertions use, by code, in first-use order. */
export function usedAccounts(entries: readonly JournalEntry[], context: LedgerFormatContext): Account[] {
  const seen = new Map<string, Account>();
  for (const entry of entries)
    for (const p of entry.postings) if (!seen.has(p.account.code)) seen.set(p.account.code, p.account);
  for (const b of context.balances ?? []) if (!seen.has(b.account.code)) seen.set(b.account.code, b.account);
  return [...seen.values()];
}

/** Every token the entries and balance assertions use, in first-use order. */
export function usedTokens(entries: readonly JournalEntry[], context: LedgerFormatContext): string[] {
  const seen = new Set<string>();
  for (const entry of entries) for (const p of entry.postings) if (p.token !== undefined) seen.add(p.token);
  for (const b of context.balances ?? []) seen.add(b.token);
  return [...seen];
}

/**
 * Beancount commodity names (`[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]`) for the tokens: upper-cased,
 * other characters as `-`, padded to two characters; two tokens that would share a name (`stETH`
 * and `STETH`) get distinct ones with a numbered suffix.
 */
export function commodityNames(tokens: readonly string[]): Map<string, string> {
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const token of tokens) {
    let base = token.toUpperCase().replace(/[^A-Z0-9'._-]/g, '-');
    if (!/^[A-Z]/.test(base)) base = `X${base}`;
    base = base.replace(/[^A-Z0-9]+$/, '');
    if (base.length < 2) base = `${base}X`;
    base = base.slice(0, 20);
    let name = base;
    for (let n = 2; taken.has(name); n += 1) name = `${base}-${n}`;
    taken.add(name);
    names.set(token, name);
  }
  return names;
}

/** Text for a quoted string or a description: one line, without quotes, backslashes or semicolons. */
export function plainText(text: string): string {
  return text
    .replace(/[\r\n\t]+/g, ' ')
    .replace(/["\\]/g, "'")
    .replace(/;/g, ',');
}

/** The day after a `YYYY-MM-DD` date (Beancount asserts a balance at the start of its day). */
export function nextDay(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}
