import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.ts';
import {
  CLOSE_FORMAT,
  type CloseRecord,
  closeCovering,
  closeKey,
  closePeriodLabel,
  closesInForce,
  periodStates,
} from './records.ts';

const record = (id: string, action: CloseRecord['action'], period = '2025-10'): CloseRecord => ({
  format: CLOSE_FORMAT,
  id,
  action,
  profile: 'acme',
  period,
  runId: '20251103T091500Z-3f9a1c',
  prefix: `reports/acme/${period}/20251103T091500Z-3f9a1c`,
  manifestSha256: 'a'.repeat(64),
  by: 'ann',
  at: '2025-11-03T09:15:00.000Z',
  reason: '',
});

describe('closePeriodLabel', () => {
  it('files a tax year as the export files it', () => {
    expect(closePeriodLabel('2024-04-06..2025-04-05')).toBe('2024-04-06_2025-04-05');
    expect(closePeriodLabel('2025-10')).toBe('2025-10');
    expect(closePeriodLabel('2025')).toBe('2025');
  });

  it('refuses anything else, naming the field', () => {
    expect(() => closePeriodLabel('2025-13', '--period')).toThrow(ValidationError);
    expect(() => closePeriodLabel('../x', '--period')).toThrow(/^--period: /);
  });
});

describe('closesInForce', () => {
  it('returns the close of a period until a later reopen, and again after a later close', () => {
    const close = record('20251103T091500000Z-close-aaaaaa', 'close');
    const reopen = record('20251201T080000000Z-reopen-bbbbbb', 'reopen');
    const again = record('20251202T080000000Z-close-cccccc', 'close');
    expect(closesInForce([close])).toEqual([close]);
    expect(closesInForce([reopen, close])).toEqual([]);
    expect(closesInForce([again, close, reopen])).toEqual([again]);
  });
});

describe('closeCovering', () => {
  it('covers the set folder and its files, not a sibling whose name starts alike', () => {
    const closes = [record('20251103T091500000Z-close-aaaaaa', 'close')];
    expect(closeCovering(closes, 'reports/acme/2025-10/20251103T091500Z-3f9a1c')).toBeDefined();
    expect(closeCovering(closes, 'reports/acme/2025-10/20251103T091500Z-3f9a1c/manifest.json')).toBeDefined();
    expect(closeCovering(closes, 'reports/acme/2025-10/20251103T091500Z-3f9a1c2')).toBeUndefined();
    expect(closeCovering(closes, 'reports/acme/2025-11/x')).toBeUndefined();
  });
});

describe('periodStates', () => {
  it('orders a period by sequence number, records written before sequences first by id', () => {
    const older = record('20251103T091500000Z-close-aaaaaa', 'close');
    const reopen = { ...record('20251201T080000000Z-reopen-bbbbbb', 'reopen'), sequence: 2 };
    // A later close whose writer's clock ran behind: its sequence, not its id, places it.
    const again = { ...record('20251130T080000000Z-close-cccccc', 'close'), sequence: 3 };

    const [state] = periodStates([again, reopen, older]);

    expect(state?.history).toEqual([older, reopen, again]);
    expect(state?.closed).toEqual(again);
  });
});

describe('closeKey', () => {
  it('names a record by its period and sequence number, an older one by its id', () => {
    const older = record('20251103T091500000Z-close-aaaaaa', 'close');
    expect(closeKey({ ...older, sequence: 12 })).toBe('closes/acme/2025-10/000012.json');
    expect(closeKey(older)).toBe('closes/acme/2025-10/20251103T091500000Z-close-aaaaaa.json');
  });
});
