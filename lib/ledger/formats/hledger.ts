/**
 * An hledger journal (https://hledger.org/1.25/hledger.html#journal-format): each token a
 * commodity with its total cost (`0.5 BTC @@ 12500.00 USD`), accounts and commodities declared
 * (so `hledger check --strict` passes), and a balance assertion (`= 0.5 BTC`) per asset account
 * and token at each month end.
 */
import { LedgerFormatError, shownName } from '../errors.ts';
import { cutPoints, type JournalName, mapNames, type NameRule, wellFormed } from '../names.ts';
import type { Account, JournalEntry, LedgerFormat, LedgerFormatContext, Posting } from '../types.ts';
import {
  balanceQueue,
  nameLines,
  plainText,
  streamedFile,
  type TextWriter,
  usedAccounts,
  usedTokens,
  writtenFile,
} from './plain-text.ts';

const NAME = 'journal.hledger';
const TYPE = 'text/plain; charset=utf-8';

/** The hledger journal format. */
export const hledgerFormat: LedgerFormat = {
  id: 'hledger',
  description:
    'hledger journal: tokens as commodities at cost (@@), a balance assertion per account and token at each month end',
  files: (entries, context) => [writtenFile(NAME, TYPE, entries, hledgerWriter(entries, context))],
  stream: (entries, context) => [streamedFile(NAME, TYPE, entries, () => hledgerWriter([], context))],
};

/** A commodity symbol as hledger reads it: quoted unless it is letters only. */
export function hledgerSymbol(token: string): string {
  return /^[A-Za-z]+$/.test(token) ? token : `"${token.replace(/"/g, "'")}"`;
}

/** The longest commodity symbol made from a token. */
const SYMBOL_MAX = 128;

/**
 * A token's symbol as natural as it can be: hledger reads a quoted symbol up to a `"`, `;` or line
 * end (https://hledger.org/1.25/hledger.html#commodity), so `"` becomes `'`, `;` `,`, control
 * characters and line separators a space, lone surrogates U+FFFD; at most 128 characters.
 */
function hledgerNatural(token: string): string {
  const clean = wellFormed(token)
    .replace(/[\p{Cc}\u2028\u2029]/gu, ' ')
    .replace(/"/g, "'")
    .replace(/;/g, ',');
  return cutPoints(clean, SYMBOL_MAX) || '?';
}

/**
 * The tokens' commodity symbols (before quoting): the token itself where hledger can read it, its
 * {@link hledgerNatural} form otherwise; tokens that would share one (`X"Y` and `X'Y`), or be the
 * reporting currency, each get `-` and a hash of the token instead.
 */
export function hledgerSymbols(tokens: readonly string[], currency: string): Map<string, JournalName> {
  const rule: NameRule = {
    target: 'commodity',
    natural: hledgerNatural,
    distinct: (token, suffix) =>
      `${cutPoints(hledgerNatural(token), SYMBOL_MAX - suffix.length - 1)}-${suffix}`,
    reserved: (name) => name === currency,
  };
  return mapNames(tokens, rule, 'token symbol');
}

/**
 * Refuses an account code hledger would read otherwise: a line break or control character, two
 * spaces (which end the account name), a space at either end, or brackets round it (a virtual
 * posting).
 */
function checkAccount(account: Account): void {
  const { code, kind } = account;
  if (/[\p{Cc}\u2028\u2029]| {2}|^ | $|^[([].*[)\]]$/u.test(code))
    throw new LedgerFormatError(
      'hledger',
      `account ${JSON.stringify(code)} (${kind}) is not an hledger account name: it must be one line without two spaces in a row, spaces at its ends or brackets round it (set journal.chart, or leave hledger out of journal.formats)`,
    );
}

/** The journal's text. */
export function hledgerText(entries: readonly JournalEntry[], context: LedgerFormatContext): string {
  return writtenFile(NAME, TYPE, entries, hledgerWriter(entries, context)).body as string;
}

function hledgerWriter(known: readonly JournalEntry[], context: LedgerFormatContext): TextWriter {
  const { currency, period } = context;
  const accounts = usedAccounts(known, context);
  for (const account of accounts) checkAccount(account);
  const tokens = usedTokens(known, context);
  const mapped = hledgerSymbols(tokens, currency);
  const symbol = (token: string) => {
    const found = mapped.get(token);
    if (found === undefined)
      throw new LedgerFormatError('hledger', `token ${shownName(token)} is not among the journal's tokens`);
    return hledgerSymbol(found.name);
  };
  // Recorded: the tokens not written as they are.
  const recorded = [...mapped.values()]
    .filter((n) => n.name !== n.original)
    .map((n) => ({ ...n, name: hledgerSymbol(n.name) }));
  const queue = balanceQueue(context.balances);
  // One transaction of assertions per month end, after the month's entries.
  const assertions = (date: string | null) =>
    queue
      .before(date)
      .map(
        (group) =>
          `${group[0]?.date} * Balances at the month end (assertions)\n${group
            .map((b) => `    ${b.account.code}  0 ${symbol(b.token)} = ${b.quantity} ${symbol(b.token)}\n`)
            .join('')}\n`,
      )
      .join('');
  return {
    head: () =>
      [
        `; Journal entries ${period.start} to ${period.end}, in ${currency}. Check: hledger -f FILE check --strict`,
        ...nameLines([...(context.names ?? []), ...recorded]),
        '',
        ...accounts.map((account) => `account ${account.code}  ; ${plainText(account.name)}`),
        `commodity ${hledgerSymbol(currency)} 1000.00`,
        ...tokens.map((token) => `commodity ${symbol(token)}`),
        '',
        '',
      ].join('\n'),
    entry: (entry) =>
      [
        assertions(entry.date),
        `${entry.date} * ${plainText(entry.description)}  ; entry:${entry.id}${entry.txIds.length > 0 ? `, txids:${plainText(entry.txIds.join(' '))}` : ''}\n`,
        ...entry.postings.map((p) => `    ${p.account.code}  ${amount(p, currency, symbol)}\n`),
        '\n',
      ].join(''),
    tail: () => assertions(null),
  };
}

/** A posting's amount: the token with its total cost, or money. */
function amount(p: Posting, currency: string, symbolOf: (token: string) => string): string {
  const money = p.debit !== '0' ? p.debit : `-${p.credit}`;
  const symbol = hledgerSymbol(currency);
  if (p.token === undefined || p.quantity === undefined || /^-?0(\.0*)?$/.test(p.quantity))
    return `${money === '-0' ? '0' : money} ${symbol}`;
  const total = p.debit !== '0' ? p.debit : p.credit;
  return `${p.quantity} ${symbolOf(p.token)} @@ ${total} ${symbol}`;
}
