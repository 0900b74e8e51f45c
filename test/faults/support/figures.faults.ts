import { describe, expect, it } from 'vitest';
import { aggregate, formatTables } from './global-setup.ts';

describe('faults suite figures', () => {
  it('sums rows by name, keeps the largest peak RSS, and prints a total row', () => {
    const text = formatTables(
      aggregate([
        { table: 'faults', name: 'service 429', row: { injected: 3, survived: 3 } },
        { table: 'faults', name: 'service 429', row: { injected: 2, survived: 2 } },
        { table: 'faults', name: 's3 part', row: { injected: 1, survived: 1, reruns: 1 } },
        { table: 'load', name: 'jobs', row: { jobs: 4, peakRssMb: 120 } },
        { table: 'load', name: 'jobs', row: { jobs: 4, peakRssMb: 90 } },
      ]),
    );
    expect(text).toMatch(/service 429\s+5\s+5\s+0\s+0\n/);
    expect(text).toMatch(/TOTAL\s+6\s+6\s+0\s+1/);
    expect(text).toMatch(/jobs\s+8\s+0\s+0\s+0\s+0\s+120/);
  });
});
