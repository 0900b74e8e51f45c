import Big from 'big.js';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import { balanceChanges } from './changes.ts';
import { reconcile } from './reconcile.ts';
import { differenceWarnings, reconciliationRecord } from './summary.ts';

const asOf = Date.parse('2026-01-10T00:00:00.000Z');

describe('reconcile', () => {
  it('carries the reported balance back by the later movements and subtracts exactly', () => {
    const rows = reconcile({
      computed: new Map([['led_a', new Map([['ETH', new Big('1.000000000000000001')]])]]),
      reported: [{ ledgerId: 'led_a', symbol: 'ETH', amount: '3.5', asOfMs: asOf }],
      later: [
        { ledgerId: 'led_a', symbol: 'ETH', transactionId: 't1', date: '', change: '2.5', atMs: asOf - 10 },
        // At or after asOf: not in the reported balance, so not taken off it.
        { ledgerId: 'led_a', symbol: 'ETH', transactionId: 't2', date: '', change: '7', atMs: asOf },
      ],
    });
    expect(rows).toEqual([
      expect.objectContaining({
        computed: '1.000000000000000001',
        reported: '3.5',
        laterMovements: '2.5',
        laterMovementCount: 1,
        reportedAtPeriodEnd: '1',
        difference: '-0.000000000000000001',
      }),
    ]);
    // The end of 2025 in Berlin: 23:00 UTC on 31 December, said as that day in the zone.
    const record = reconciliationRecord(rows, '2025-12-31T23:00:00.000Z', 'Europe/Berlin');
    expect(record.status).toBe('differences');
    expect(record.periodEnd).toBe('2025-12-31T23:00:00.000Z');
    expect(record.note).toBe(
      'not reconciled: 1 of 1 ledger balances at the end of 2025-12-31 (Europe/Berlin) differ from what the service reports',
    );
    const [warning] = differenceWarnings(record, 'Europe/Berlin');
    expect(warning).toContain('ledger led_a, token ETH');
    expect(warning).toContain(
      'give 1.000000000000000001 at the end of 2025-12-31 (Europe/Berlin), the service',
    );
    expect(warning).toContain('difference -0.000000000000000001. What to do:');
  });

  it('counts a token the service leaves out as reported 0, and leaves all-zero rows out', () => {
    const rows = reconcile({
      computed: new Map([
        [
          'led_a',
          new Map([
            ['SOL', new Big('2')],
            ['DAI', new Big('0')],
          ]),
        ],
      ]),
      reported: [],
      later: [],
    });
    expect(rows.map((r) => [r.symbol, r.difference])).toEqual([['SOL', '-2']]);
  });
});

describe('balanceChanges', () => {
  it('takes the fee quantity off in its token, but not again in a fee row whose outgoing movement is the fee', () => {
    const tx = (category: string) => ({
      category,
      movements: [{ symbol: 'ETH', amount: '-0.5' }],
      fee: { symbol: 'ETH', quantity: '0.01' },
    });
    expect(balanceChanges(tx('trade'), DEFAULT_SHAPE.fields).bySymbol.get('ETH')?.toFixed()).toBe('-0.51');
    expect(balanceChanges(tx('fee'), DEFAULT_SHAPE.fields).bySymbol.get('ETH')?.toFixed()).toBe('-0.5');
  });
});
