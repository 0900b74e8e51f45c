/**
 * Issue 39, item 5: Beancount gives back each token posting's cost to the cent. Beancount holds a
 * cost per unit and multiplies it by the quantity in Python's decimal context (28 significant
 * digits); the products are computed here by Python itself (`python3`, its `decimal` module), from
 * the cost per unit as the journal writes it.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { JournalEntry, LedgerFormatContext } from '../types.ts';
import { beancountText } from './beancount.ts';

/**
 * Quantity × cost per unit in Python's default decimal context, as Beancount computes a position's
 * cost; a total cost (`{{…}}`, `total` true) first divided by the quantity, as Beancount does.
 */
function pythonCosts(pairs: [string, string, boolean][]): string[] {
  const script = [
    'import sys, json',
    'from decimal import Decimal',
    'for q, c, total in json.load(sys.stdin):',
    '    unit = Decimal(c) / abs(Decimal(q)) if total else Decimal(c)',
    '    print(Decimal(q) * unit)',
  ].join('\n');
  const out = execFileSync('python3', ['-c', script], { input: JSON.stringify(pairs), encoding: 'utf8' });
  return out.trim().split('\n');
}

// Quantities and totals of the demo (lib/simulator) whose `{{total}}` Beancount gave back a cent short.
const CASES: [quantity: string, total: string][] = [
  ['2332.225893838', '374205.17'],
  ['-22.729952541', '3652.98'],
  ['849586.215519', '849586.22'],
  ['602256.623805716514470614', '602539.39'],
  ['0.000000000000000001', '0.01'],
  ['123456789012.123456', '0.03'],
  ['3', '100.00'],
];

describe('Beancount token costs', () => {
  it('writes a cost per unit whose product with the quantity is the total, in 28 significant digits', () => {
    const entry: JournalEntry = {
      id: 'J1',
      date: '2025-01-01',
      description: 'costs',
      txIds: [],
      postings: CASES.map(([quantity, total]) => ({
        account: { code: 'Assets:Crypto:SOL', name: 'SOL', kind: 'asset' },
        debit: quantity.startsWith('-') ? '0' : total,
        credit: quantity.startsWith('-') ? total : '0',
        currency: 'USD',
        quantity,
        token: 'SOL',
      })),
    };
    const context = {
      currency: 'USD',
      period: { start: '2025-01-01', end: '2025-01-31' },
      settings: {},
      createdAt: new Date('2025-02-01T00:00:00Z'),
      balances: [],
      accounts: [],
      tokens: ['SOL'],
    } as unknown as LedgerFormatContext;
    const written = [
      ...beancountText([entry], context).matchAll(/Assets:Crypto:SOL {2}(\S+) SOL \{(\{?)(\S+) USD\}\}?/g),
    ];
    expect(written.length).toBe(CASES.length);
    const costs = pythonCosts(written.map((m) => [m[1] as string, m[3] as string, m[2] === '{']));
    expect(costs.map((c) => Number(c).toFixed(2))).toEqual(
      CASES.map(([quantity, total]) => (quantity.startsWith('-') ? `-${total}` : total)),
    );
    // Not close: equal, once the trailing zeros of 28 digits are dropped.
    for (const [index, cost] of costs.entries()) {
      const [quantity, total] = CASES[index] as [string, string];
      expect(cost.replace(/\.?0+$/, '')).toBe(
        `${quantity.startsWith('-') ? '-' : ''}${total}`.replace(/\.?0+$/, ''),
      );
    }
  });
});
