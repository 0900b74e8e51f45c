/**
 * A Beancount journal read together with another (a restatement's adjusting entries, included in
 * the closed journal): it opens only the accounts and declares only the commodities the other
 * does not, and names the tokens as the other does.
 */
import { describe, expect, it } from 'vitest';
import type { JournalEntry, LedgerFormatContext } from '../types.ts';
import { beancountText } from './beancount.ts';

const entry: JournalEntry = {
  id: 'restatement:2025-10',
  date: '2025-11-01',
  description: 'Adjusting entry',
  txIds: [],
  postings: [
    {
      account: { code: 'Assets:Crypto:STETH', name: 'STETH', kind: 'asset' },
      debit: '10.00',
      credit: '0',
      currency: 'USD',
      quantity: '1',
      token: 'STETH',
    },
    {
      account: { code: 'Assets:Crypto:SOL', name: 'SOL', kind: 'asset' },
      debit: '5.00',
      credit: '0',
      currency: 'USD',
      quantity: '2',
      token: 'SOL',
    },
    {
      account: { code: 'Income:Crypto:Realised-Gains', name: 'Gains', kind: 'gain' },
      debit: '0',
      credit: '15.00',
      currency: 'USD',
    },
  ],
};

const context: LedgerFormatContext = {
  currency: 'USD',
  period: { start: '2025-11-01', end: '2025-11-01' },
  settings: {},
  balances: [],
};

describe('a Beancount journal with what another journal declares', () => {
  it('opens every account and declares every commodity on its own', () => {
    const text = beancountText([entry], context);
    expect(text.match(/ open .*/g)).toEqual([
      ' open Assets:Crypto:STETH',
      ' open Assets:Crypto:SOL',
      ' open Income:Crypto:Realised-Gains',
    ]);
    expect(text.match(/ commodity .*/g)).toEqual([' commodity STETH', ' commodity SOL']);
  });

  it('leaves out what the other declares, and names the tokens as the other does', () => {
    // The other journal held stETH and STETH: it named its STETH apart from stETH.
    const declared = {
      accounts: ['Assets:Crypto:STETH', 'Income:Crypto:Realised-Gains'],
      tokens: ['stETH', 'STETH'],
    };
    const other = beancountText([], { ...context, accounts: [], tokens: declared.tokens });
    const named = /commodity (\S+)\n {2}token: "STETH"/.exec(other)?.[1];
    expect(named).toMatch(/^STETH-[0-9A-F]{8}$/);
    const text = beancountText([entry], { ...context, declared });
    expect(text.match(/ open .*/g)).toEqual([' open Assets:Crypto:SOL']);
    expect(text.match(/ commodity .*/g)).toEqual([' commodity SOL']);
    expect(text).toContain(`Assets:Crypto:STETH  1 ${named} {10 USD}`);
  });
});
