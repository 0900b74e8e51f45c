import { describe, expect, it } from 'vitest';
import { instantWords } from './instant-words.ts';

describe('instantWords', () => {
  it('says a day boundary in the zone as the start of that day or the end of the day before', () => {
    expect(instantWords('2025-02-01T00:00:00.000Z', 'UTC', 'end')).toBe('the end of 2025-01-31 (UTC)');
    expect(instantWords('2025-02-01T00:00:00.000Z', 'UTC', 'start')).toBe('the start of 2025-02-01 (UTC)');
    // 1 January in Berlin begins at 23:00 UTC the day before; 1 April (summer time) at 22:00.
    expect(instantWords('2024-12-31T23:00:00.000Z', 'Europe/Berlin', 'start')).toBe(
      'the start of 2025-01-01 (Europe/Berlin)',
    );
    expect(instantWords('2025-03-31T22:00:00.000Z', 'Europe/Berlin', 'end')).toBe(
      'the end of 2025-03-31 (Europe/Berlin)',
    );
  });

  it('says any other instant as its date and time in the zone, and leaves text that is no instant', () => {
    expect(instantWords('2025-02-01T00:00:00.000Z', 'Europe/Berlin', 'end')).toBe(
      '2025-02-01 01:00:00 (Europe/Berlin)',
    );
    expect(instantWords('2025-02-14T10:32:07.250Z', 'UTC', 'end')).toBe('2025-02-14 10:32:07 (UTC)');
    expect(instantWords('soon', 'UTC', 'end')).toBe('soon');
  });
});
