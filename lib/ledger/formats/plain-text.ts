/**
 * What the Beancount and hledger journals share: the accounts an entry set uses, commodity names
 * their tools accept, text without the characters their syntax reserves, and a writer that runs
 * over the entries once (from an array, or streamed from the spool).
 */
import { shownName } from '../errors.ts';
import { type JournalName, mapNames, type NameRule } from '../names.ts';
import type {
  Account,
  BalanceAssertion,
  JournalEntry,
  LedgerFile,
  LedgerFormatContext,
  LedgerStream,
} from '../types.ts';

/** Every account the entries and the balance assertions use, by code, in first-use order. */
export function usedAccounts(entries: readonly JournalEntry[], context: LedgerFormatContext): Account[] {
  if (context.accounts !== undefined) return [...context.accounts];
  const seen = new Map<string, Account>();
  for (const entry of entries)
    for (const p of entry.postings) if (!seen.has(p.account.code)) seen.set(p.account.code, p.account);
  for (const b of context.balances ?? []) if (!seen.has(b.account.code)) seen.set(b.account.code, b.account);
  return [...seen.values()];
}

/** Every token the entries and balance assertions use, in first-use order. */
export function usedTokens(entries: readonly JournalEntry[], context: LedgerFormatContext): string[] {
  if (context.tokens !== undefined) return [...context.tokens];
  const seen = new Set<string>();
  for (const entry of entries) for (const p of entry.postings) if (p.token !== undefined) seen.add(p.token);
  for (const b of context.balances ?? []) seen.add(b.token);
  return [...seen];
}

/** Beancount's reserved words a commodity cannot be (its lexer reads them as values). */
const BEANCOUNT_KEYWORDS: ReadonlySet<string> = new Set(['TRUE', 'FALSE', 'NULL']);

/** A Beancount commodity name from a token, as natural as it can be (two tokens may share it). */
function beancountNatural(token: string): string {
  let base = token.toUpperCase().replace(/[^A-Z0-9'._-]/g, '-');
  if (!/^[A-Z]/.test(base)) base = `X${base}`;
  // Cut to 20, and what the cut leaves at the end that may not end a name taken off again.
  base = base
    .replace(/[^A-Z0-9]+$/, '')
    .slice(0, 20)
    .replace(/[^A-Z0-9]+$/, '');
  return base.length < 2 ? `${base}X` : base;
}

/**
 * Beancount commodity names (https://beancount.github.io/docs/beancount_language_syntax.html#commodities-currencies:
 * `[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]`, at most 24 characters) for the tokens: upper-cased, other
 * characters as `-`, a leading `X` where the token starts otherwise, at least two characters, cut to
 * 20. Tokens that would share a name (`stETH` and `STETH`), or would be the operating currency
 * (`usd` in a USD journal) or a keyword (`TRUE`, `FALSE`, `NULL`), each get `-` and a hash of the
 * token instead (`STETH-1A2B3C4D`). Names already `declared` by a journal read with this one
 * (named over its own tokens) stay, and the others keep clear of them.
 */
export function commodityNames(
  tokens: readonly string[],
  currency: string,
  declared: readonly string[] = [],
): Map<string, JournalName> {
  const rule: NameRule = {
    target: 'commodity',
    natural: beancountNatural,
    distinct: (token, suffix) =>
      `${beancountNatural(token)
        .slice(0, 24 - suffix.length - 1)
        .replace(/[^A-Z0-9]+$/, '')}-${suffix}`,
    reserved: (name) => name === currency || BEANCOUNT_KEYWORDS.has(name),
  };
  const before = mapNames(declared, rule, 'token symbol');
  const taken = new Set([...before.values()].map((n) => n.name));
  const fresh = mapNames(
    tokens.filter((token) => !before.has(token)),
    rule,
    'token symbol',
    taken,
  );
  return new Map([...before, ...fresh]);
}

/** Text for a quoted string or a description: one line, without quotes, backslashes or semicolons. */
export function plainText(text: string): string {
  return text
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/["\\]/g, "'")
    .replace(/;/g, ',');
}

/**
 * The header's record of the names in the data a journal does not write as they are, and what it
 * writes for each (none: no lines).
 */
export function nameLines(names: readonly JournalName[]): string[] {
  if (names.length === 0) return [];
  return [
    '; Names in the data written otherwise here (a hash of the name keeps apart names that would be the same):',
    ...names.map((n) => `;   ${n.field} ${shownName(n.original)}: ${n.target} ${n.name}`),
  ];
}

/** The day after a `YYYY-MM-DD` date (Beancount asserts a balance at the start of its day). */
export function nextDay(date: string): string {
  const next = new Date(`${date}T00:00:00Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}

/** A journal text written in one pass: its head, each entry, the month ends due before it, the tail. */
export interface TextWriter {
  head(): string;
  /** The text of an entry, after the assertions of the month ends before its date. */
  entry(entry: JournalEntry): string;
  /** The assertions left after the last entry. */
  tail(): string;
}

/** Hands out the month ends' assertions in date order, those before a date at a time. */
export function balanceQueue(balances: readonly BalanceAssertion[] | undefined) {
  let next = 0;
  const list = balances ?? [];
  return {
    /** The assertions dated before `date` (every one left when `date` is null), grouped by date. */
    before(date: string | null): BalanceAssertion[][] {
      const groups: BalanceAssertion[][] = [];
      while (next < list.length) {
        const b = list[next] as BalanceAssertion;
        if (date !== null && b.date >= date) break;
        const last = groups.at(-1);
        if (last !== undefined && last[0]?.date === b.date) last.push(b);
        else groups.push([b]);
        next += 1;
      }
      return groups;
    },
  };
}

/** The one file of a writer, from an array of entries. */
export function writtenFile(
  name: string,
  contentType: string,
  entries: readonly JournalEntry[],
  writer: TextWriter,
): LedgerFile {
  const parts = [writer.head()];
  for (const entry of entries) parts.push(writer.entry(entry));
  parts.push(writer.tail());
  return { name, contentType, body: parts.join('') };
}

/** The one file of a writer, streamed from the entries as they are read. */
export function streamedFile(
  name: string,
  contentType: string,
  entries: AsyncIterable<JournalEntry>,
  writer: () => TextWriter,
): LedgerStream {
  return {
    name,
    contentType,
    chunks: (async function* () {
      const w = writer();
      yield w.head();
      for await (const entry of entries) yield w.entry(entry);
      yield w.tail();
    })(),
  };
}
