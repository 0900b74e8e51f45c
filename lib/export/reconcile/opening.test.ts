import { describe, expect, it } from 'vitest';
import { type ClosedPrevious, openingRecord } from './opening.ts';

const START = '2025-02-01T00:00:00.000Z';
const self = { profile: 'acme', periodLabel: '2025-02' };
const closed = (closing: ClosedPrevious['closing']): ClosedPrevious => ({
  prefix: 'reports/acme/2025-01/20250202T000000Z-abc123',
  runId: '20250202T000000Z-abc123',
  manifestSha256: 'ab'.repeat(32),
  period: { label: '2025-01', start: '2025-01-01T00:00:00.000Z', end: START },
  closedAt: '2025-02-03T00:00:00.000Z',
  closedBy: 'ann@firm.example',
  closing,
});

describe('openingRecord', () => {
  it('breaks exactly, a token one side leaves out counting as 0 there', () => {
    const record = openingRecord(
      [
        { ledgerId: 'led_a', symbol: 'ETH', amount: '1.000000000000000001' },
        { ledgerId: 'led_b', symbol: 'SOL', amount: '2' },
      ],
      START,
      closed({
        at: START,
        balances: [
          { ledgerId: 'led_a', symbol: 'ETH', amount: '1' },
          { ledgerId: 'led_a', symbol: 'DAI', amount: '0.5' },
          { ledgerId: 'led_b', symbol: 'SOL', amount: '2.0' },
        ],
      }),
      self,
    );
    expect(record.status).toBe('break');
    expect(record.breaks).toEqual([
      { ledgerId: 'led_a', symbol: 'DAI', opening: '0', previousClosing: '0.5', difference: '-0.5' },
      {
        ledgerId: 'led_a',
        symbol: 'ETH',
        opening: '1.000000000000000001',
        previousClosing: '1',
        difference: '0.000000000000000001',
      },
    ]);
    expect(record.note).toBe(
      'opening balances break: 2 of 3 ledger balances at 2025-02-01T00:00:00.000Z differ from the closing balances of the closed 2025-01 (run 20250202T000000Z-abc123)',
    );
  });

  it('does not compare closing balances taken before the closed period was over, and says so', () => {
    const record = openingRecord([], START, closed({ at: '2025-01-20T10:00:00.000Z', balances: [] }), self);
    expect(record.status).toBe('not-checked');
    expect(record.note).toContain('its closing balances hold at 2025-01-20T10:00:00.000Z, not at 2025-02-01');
  });

  it('says when the closed set records no balances, and when no closed period ends where it begins', () => {
    expect(openingRecord([], START, closed(null), self).note).toBe(
      'opening balances not checked against the closed 2025-01 (run 20250202T000000Z-abc123): its manifest records no closing balances',
    );
    expect(openingRecord([], START, null, self)).toMatchObject({
      status: 'no-closed-previous',
      previousSet: null,
    });
  });
});
