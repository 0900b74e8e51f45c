/**
 * An hledger journal (https://hledger.org/1.25/hledger.html#journal-format): each token a
 * commodity with its total cost (`0.5 BTC @@ 12500.00 USD`), accounts and commodities declared
 * (so `hledger check --strict` passes), and a balance assertion (`= 0.5 BTC`) per asset account
 * and token at each month end.
 */
import type { JournalEntry, LedgerFormat, LedgerFormatContext, Posting } from '../types.ts';
import {
  balanceQueue,
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

/** The journal's text. */
export function hledgerText(entries: readonly JournalEntry[], context: LedgerFormatContext): string {
  return writtenFile(NAME, TYPE, entries, hledgerWriter(entries, context)).body as string;
}

function hledgerWriter(known: readonly JournalEntry[], context: LedgerFormatContext): TextWriter {
  const { currency, period } = context;
  const queue = balanceQueue(context.balances);
  // One transaction of assertions per month end, after the month's entries.
  const assertions = (date: string | null) =>
    queue
      .before(date)
      .map(
        (group) =>
          `${group[0]?.date} * Balances at the month end (assertions)\n${group
            .map(
              (b) =>
                `    ${b.account.code}  0 ${hledgerSymbol(b.token)} = ${b.quantity} ${hledgerSymbol(b.token)}\n`,
            )
            .join('')}\n`,
      )
      .join('');
  return {
    head: () =>
      [
        `; Journal entries ${period.start} to ${period.end}, in ${currency}. Check: hledger -f FILE check --strict`,
        '',
        ...usedAccounts(known, context).map(
          (account) => `account ${account.code}  ; ${plainText(account.name)}`,
        ),
        `commodity ${hledgerSymbol(currency)} 1000.00`,
        ...usedTokens(known, context).map((token) => `commodity ${hledgerSymbol(token)}`),
        '',
        '',
      ].join('\n'),
    entry: (entry) =>
      [
        assertions(entry.date),
        `${entry.date} * ${plainText(entry.description)}  ; entry:${entry.id}${entry.txIds.length > 0 ? `, txids:${plainText(entry.txIds.join(' '))}` : ''}\n`,
        ...entry.postings.map((p) => `    ${p.account.code}  ${amount(p, currency)}\n`),
        '\n',
      ].join(''),
    tail: () => assertions(null),
  };
}

/** A posting's amount: the token with its total cost, or money. */
function amount(p: Posting, currency: string): string {
  const money = p.debit !== '0' ? p.debit : `-${p.credit}`;
  const symbol = hledgerSymbol(currency);
  if (p.token === undefined || p.quantity === undefined || /^-?0(\.0*)?$/.test(p.quantity))
    return `${money === '-0' ? '0' : money} ${symbol}`;
  const total = p.debit !== '0' ? p.debit : p.credit;
  return `${p.quantity} ${hledgerSymbol(p.token)} @@ ${total} ${symbol}`;
}
