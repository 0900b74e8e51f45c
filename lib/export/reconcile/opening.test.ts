import { describe, expect, it } from 'vitest';
import { type ClosedPrevious, openingRecord, openingWarnings } from './opening.ts';

const START = '2025-02-01T00:00:00.000Z';
const self = { profile: 'acme', periodLabel: '2025-02', timeZone: 'UTC' };
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
      'opening balances break: 2 of 3 ledger balances at the start of 2025-02-01 (UTC) differ from the closing balances of the closed 2025-01 (run 20250202T000000Z-abc123)',
    );
  });

  it('does not compare closing balances taken before the closed period was over, and says so', () => {
    const record = openingRecord([], START, closed({ at: '2025-01-20T10:00:00.000Z', balances: [] }), self);
    expect(record.status).toBe('not-checked');
    expect(record.note).toContain(
      'its closing balances hold at 2025-01-20 10:00:00 (UTC), not at the start of 2025-02-01 (UTC)',
    );
  });

  it('says when the closed set records no balances, and when no closed period ends where it begins', () => {
    expect(openingRecord([], START, closed(null), self).note).toBe(
      'opening balances not checked against the closed 2025-01 (run 20250202T000000Z-abc123): its manifest records no closing balances',
    );
    expect(openingRecord([], START, null, self)).toMatchObject({
      status: 'no-closed-previous',
      previousSet: null,
      periodStart: START,
      note: 'opening balances not checked: no closed period of acme ends at the start of 2025-02-01 (UTC), where 2025-02 begins',
    });
  });

  it("says the period's start as a day in its zone, the machine field kept as the instant", () => {
    // February in Berlin begins at 23:00 UTC on 31 January.
    const start = '2025-01-31T23:00:00.000Z';
    const previous = {
      ...closed({ at: start, balances: [{ ledgerId: 'led_a', symbol: 'ETH', amount: '1' }] }),
    };
    const berlin = { ...self, timeZone: 'Europe/Berlin' };
    const record = openingRecord(
      [{ ledgerId: 'led_a', symbol: 'ETH', amount: '1' }],
      start,
      previous,
      berlin,
    );
    expect(record).toMatchObject({ status: 'continues', periodStart: start });
    expect(record.note).toBe(
      'opening balances continue the closed 2025-01 (run 20250202T000000Z-abc123): 1 ledger balance at the start of 2025-02-01 (Europe/Berlin) equal its closing balances',
    );
    const broken = openingRecord([], start, previous, berlin);
    expect(openingWarnings(broken, { ...berlin, runId: 'r2' })[0]).toContain(
      '(acme 2025-02, run r2) opens at the start of 2025-02-01 (Europe/Berlin) with 0;',
    );
  });
});
