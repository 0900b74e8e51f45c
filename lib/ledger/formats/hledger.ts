/**
 * An hledger journal (https://hledger.org/1.25/hledger.html#journal-format): each token a
 * commodity with its total cost (`0.5 BTC @@ 12500.00 USD`), accounts and commodities declared
 * (so `hledger check --strict`-style checks pass), and a balance assertion (`= 0.5 BTC`) per
 * asset account and token at each month end.
 */
import type { JournalEntry, LedgerFormat, LedgerFormatContext, Posting } from '../types.ts';
import { plainText, usedAccounts, usedTokens } from './plain-text.ts';

/** The hledger journal format. */
export const hledgerFormat: LedgerFormat = {
  id: 'hledger',
  description:
    'hledger journal: tokens as commodities at cost (@@), a balance assertion per account and token at each month end',
  files(entries, context) {
    return [
      {
        name: 'journal.hledger',
        contentType: 'text/plain; charset=utf-8',
        body: hledgerText(entries, context),
      },
    ];
  },
};

/** A commodity symbol as hledger reads it: quoted unless it is letters only. */
export function hledgerSymbol(token: string): string {
  return /^[A-Za-z]+$/.test(token) ? token : `"${token.replace(/"/g, "'")}"`;
}

/** The journal's text. */
export function hledgerText(entries: readonly JournalEntry[], context: LedgerFormatContext): string {
  const { currency, period } = context;
  const out: string[] = [
    `; Journal entries ${period.start} to ${period.end}, in ${currency}. Check: hledger -f FILE check`,
    '',
  ];
  for (const account of usedAccounts(entries, context))
    out.push(`account ${account.code}  ; ${plainText(account.name)}`);
  out.push(`commodity ${hledgerSymbol(currency)} 1000.00`);
  for (const token of usedTokens(entries, context)) out.push(`commodity ${hledgerSymbol(token)}`);
  out.push('');
  const balances = [...(context.balances ?? [])];
  let b = 0;
  const flushBalances = (before: string | null) => {
    let date: string | null = null;
    while (b < balances.length) {
      const balance = balances[b];
      if (balance === undefined || (before !== null && balance.date >= before)) break;
      if (balance.date !== date) {
        if (date !== null) out.push('');
        date = balance.date;
        out.push(`${balance.date} * Balances at the month end (assertions)`);
      }
      out.push(
        `    ${balance.account.code}  0 ${hledgerSymbol(balance.token)} = ${balance.quantity} ${hledgerSymbol(balance.token)}`,
      );
      b += 1;
    }
    if (date !== null) out.push('');
  };
  for (const entry of entries) {
    flushBalances(entry.date);
    out.push(
      `${entry.date} * ${plainText(entry.description)}  ; entry:${entry.id}${entry.txIds.length > 0 ? `, txids:${plainText(entry.txIds.join(' '))}` : ''}`,
    );
    for (const p of entry.postings) out.push(`    ${p.account.code}  ${amount(p, currency)}`);
    out.push('');
  }
  flushBalances(null);
  return `${out.join('\n')}\n`;
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
