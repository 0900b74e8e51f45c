/**
 * A Beancount journal (https://beancount.github.io/docs/beancount_language_syntax.html): each
 * token a commodity held at cost, written per unit (`0.5 BTC {25000.00000… USD}`) with the digits
 * that make Beancount compute back the posting's total cost to the cent (see `perUnit`), every account
 * opened on the first day, and a `balance` assertion per asset account and token at each month
 * end (dated the next day: Beancount checks a balance at the start of its date). Lots are booked
 * with `booking_method "NONE"`: the carrying value of what leaves comes from the gains engine
 * (the profile's method and pooling), not from Beancount's own matching. A journal meant to be
 * included by another (a restatement's adjusting entries, by the closed journal) leaves out the
 * `open` and `commodity` directives that journal has (`LedgerFormatContext.declared`).
 */
import { Big, mulDiv, text } from '../../domain/index.ts';
import { LedgerFormatError } from '../errors.ts';
import type { JournalName } from '../names.ts';
import type { BalanceAssertion, JournalEntry, LedgerFormat, LedgerFormatContext, Posting } from '../types.ts';
import {
  balanceQueue,
  commodityNames,
  nameLines,
  nextDay,
  plainText,
  streamedFile,
  type TextWriter,
  usedAccounts,
  usedTokens,
  writtenFile,
} from './plain-text.ts';

const ROOTS = /^(Assets|Liabilities|Equity|Income|Expenses)(:[A-Z0-9][A-Za-z0-9-]*)+$/;
const NAME = 'journal.beancount';
const TYPE = 'text/plain; charset=utf-8';

/** The Beancount journal format. */
export const beancountFormat: LedgerFormat = {
  id: 'beancount',
  description:
    'Beancount journal: tokens as commodities at cost, a balance assertion per account and token at each month end',
  files: (entries, context) => [writtenFile(NAME, TYPE, entries, beancountWriter(entries, context))],
  stream: (entries, context) => [streamedFile(NAME, TYPE, entries, () => beancountWriter([], context))],
};

/** The journal's text. Throws {@link LedgerFormatError} for an account Beancount cannot name. */
export function beancountText(entries: readonly JournalEntry[], context: LedgerFormatContext): string {
  return writtenFile(NAME, TYPE, entries, beancountWriter(entries, context)).body as string;
}

/**
 * The writer of a Beancount journal; `known` are the entries when they are at hand (else the
 * context names the accounts and tokens).
 */
function beancountWriter(known: readonly JournalEntry[], context: LedgerFormatContext): TextWriter {
  const { currency, period } = context;
  const accounts = usedAccounts(known, context);
  for (const account of accounts) {
    if (!ROOTS.test(account.code))
      throw new LedgerFormatError(
        'beancount',
        `account "${account.code}" (${account.kind}) is not a Beancount account name: it must start with Assets, Liabilities, Equity, Income or Expenses and each part with a capital letter or digit (set journal.chart paths, or leave beancount out of journal.formats)`,
      );
  }
  const declared = {
    accounts: new Set(context.declared?.accounts ?? []),
    tokens: new Set(context.declared?.tokens ?? []),
  };
  // Named over the declared tokens first: a name the other journal gave stays the same here.
  const mapped = commodityNames(usedTokens(known, context), currency, [...declared.tokens]);
  const names = new Map([...mapped].map(([token, n]) => [token, n.name]));
  const fresh = usedTokens(known, context).filter((token) => !declared.tokens.has(token));
  // Recorded: a token its metadata cannot show as it is, or whose name carries a hash.
  const recorded = fresh
    .map((token) => mapped.get(token) as JournalName)
    .filter((n) => n.distinct || plainText(n.original) !== n.original);
  const queue = balanceQueue(context.balances);
  // A month's assertions follow its last entry (they are dated the day after the month end).
  const assertions = (date: string | null) =>
    queue
      .before(date)
      .flat()
      .map((b) => `${assertion(b, names)}\n`)
      .join('');
  return {
    head: () =>
      [
        `; Journal entries ${period.start} to ${period.end}, in ${currency}. Check: bean-check FILE`,
        ...nameLines([...(context.names ?? []), ...recorded]),
        `option "title" "Digital assets ${period.start} to ${period.end}"`,
        `option "operating_currency" "${currency}"`,
        'option "booking_method" "NONE"',
        '',
        ...accounts
          .filter((account) => !declared.accounts.has(account.code))
          .map((account) => `${period.start} open ${account.code}`),
        ...fresh.map(
          (token) => `${period.start} commodity ${names.get(token)}\n  token: "${plainText(token)}"`,
        ),
        '',
        '',
      ].join('\n'),
    entry: (entry) =>
      [
        assertions(entry.date),
        `${entry.date} * "${plainText(entry.description)}"\n`,
        `  entry: "${entry.id}"\n`,
        entry.txIds.length > 0 ? `  txids: "${plainText(entry.txIds.join(' '))}"\n` : '',
        ...entry.postings.map((p) => `  ${p.account.code}  ${amount(p, currency, names)}\n`),
        '\n',
      ].join(''),
    tail: () => assertions(null),
  };
}

function assertion(balance: BalanceAssertion, names: Map<string, string>): string {
  return `${nextDay(balance.date)} balance ${balance.account.code}  ${balance.quantity} ${names.get(balance.token)}`;
}

/** A posting's amount: the token at its cost per unit (see {@link perUnit}), or money. */
function amount(p: Posting, currency: string, names: Map<string, string>): string {
  const money = p.debit !== '0' ? p.debit : `-${p.credit}`;
  if (p.token === undefined || p.quantity === undefined || /^-?0(\.0*)?$/.test(p.quantity))
    return `${money === '-0' ? '0' : money} ${currency}`;
  const total = p.debit !== '0' ? p.debit : p.credit;
  return `${p.quantity} ${names.get(p.token)} {${perUnit(total, p.quantity)} ${currency}}`;
}

/**
 * The cost per unit of `quantity` tokens costing `total`, with the digits that make Beancount give
 * back `total` exactly. Beancount keeps a cost per unit (a total cost `{{…}}` is divided by the
 * quantity in Python's 28 significant digits, and its products then fall short: 374205.1699…
 * shown as 374205.16) and computes the position's cost as quantity × cost per unit in 28
 * significant digits. Rounded at 32 decimals plus the quantity's integer digits, the product is
 * within 10⁻³² of `total`, inside half the last of its 28 digits (a total of a cent or more): it
 * rounds to `total` itself.
 */
export function perUnit(total: string, quantity: string): string {
  const units = new Big(quantity).abs();
  const integerDigits = Math.max(units.e + 1, 1);
  return text(mulDiv(new Big(total), new Big(1), units, 32 + integerDigits));
}
