/**
 * A Beancount journal (https://beancount.github.io/docs/beancount_language_syntax.html): each
 * token a commodity held at cost (`0.5 BTC {{12500.00 USD}}`, the total cost), every account
 * opened on the first day, and a `balance` assertion per asset account and token at each month
 * end (dated the next day: Beancount checks a balance at the start of its date). Lots are booked
 * with `booking_method "NONE"`: the carrying value of what leaves comes from the gains engine
 * (the profile's method and pooling), not from Beancount's own matching.
 */
import { LedgerFormatError } from '../errors.ts';
import type { JournalEntry, LedgerFormat, LedgerFormatContext, Posting } from '../types.ts';
import { commodityNames, nextDay, plainText, usedAccounts, usedTokens } from './plain-text.ts';

const ROOTS = /^(Assets|Liabilities|Equity|Income|Expenses)(:[A-Z0-9][A-Za-z0-9-]*)+$/;

/** The Beancount journal format. */
export const beancountFormat: LedgerFormat = {
  id: 'beancount',
  description:
    'Beancount journal: tokens as commodities at cost, a balance assertion per account and token at each month end',
  files(entries, context) {
    return [
      {
        name: 'journal.beancount',
        contentType: 'text/plain; charset=utf-8',
        body: beancountText(entries, context),
      },
    ];
  },
};

/** The journal's text. Throws {@link LedgerFormatError} for an account Beancount cannot name. */
export function beancountText(entries: readonly JournalEntry[], context: LedgerFormatContext): string {
  const { currency, period } = context;
  const accounts = usedAccounts(entries, context);
  for (const account of accounts) {
    if (!ROOTS.test(account.code))
      throw new LedgerFormatError(
        'beancount',
        `account "${account.code}" (${account.kind}) is not a Beancount account name: it must start with Assets, Liabilities, Equity, Income or Expenses and each part with a capital letter or digit (set journal.chart paths, or leave beancount out of journal.formats)`,
      );
  }
  const names = commodityNames(usedTokens(entries, context));
  const out: string[] = [
    `; Journal entries ${period.start} to ${period.end}, in ${currency}. Check: bean-check FILE`,
    `option "title" "Digital assets ${period.start} to ${period.end}"`,
    `option "operating_currency" "${currency}"`,
    'option "booking_method" "NONE"',
    '',
  ];
  for (const account of accounts) out.push(`${period.start} open ${account.code}`);
  for (const [token, name] of names)
    out.push(`${period.start} commodity ${name}\n  token: "${plainText(token)}"`);
  out.push('');
  const balances = [...(context.balances ?? [])];
  let b = 0;
  for (const entry of entries) {
    // A month's assertions follow its last entry (they are dated the day after the month end).
    while (b < balances.length && (balances[b]?.date ?? '') < entry.date)
      out.push(assertion(balances[b++], names));
    out.push(`${entry.date} * "${plainText(entry.description)}"`);
    out.push(`  entry: "${entry.id}"`);
    if (entry.txIds.length > 0) out.push(`  txids: "${plainText(entry.txIds.join(' '))}"`);
    for (const p of entry.postings) out.push(`  ${p.account.code}  ${amount(p, currency, names)}`);
    out.push('');
  }
  while (b < balances.length) out.push(assertion(balances[b++], names));
  return `${out.join('\n')}\n`;
}

function assertion(
  balance: LedgerFormatContext['balances'] extends readonly (infer B)[] | undefined ? B | undefined : never,
  names: Map<string, string>,
): string {
  if (balance === undefined) return '';
  return `${nextDay(balance.date)} balance ${balance.account.code}  ${balance.quantity} ${names.get(balance.token)}`;
}

/** A posting's amount: the token at its total cost, or money. */
function amount(p: Posting, currency: string, names: Map<string, string>): string {
  const money = p.debit !== '0' ? p.debit : `-${p.credit}`;
  if (p.token === undefined || p.quantity === undefined || /^-?0(\.0*)?$/.test(p.quantity))
    return `${money === '-0' ? '0' : money} ${currency}`;
  const total = p.debit !== '0' ? p.debit : p.credit;
  return `${p.quantity} ${names.get(p.token)} {{${total} ${currency}}}`;
}
