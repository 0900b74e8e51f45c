/**
 * The us reports beside Form 8949: Schedule 1 line 8v (2024 and 2025 Schedule 1: "Digital assets
 * received as ordinary income not reported elsewhere") and the allocation statement of 1 January 2025.
 */
import { describe, expect, it } from 'vitest';
import { buy, run, sell } from '../../../../test/support/gains.ts';
import type { Row, TableSource } from '../../../domain/index.ts';
import { gainsReports } from '../../reports.ts';

async function rowsOf(table: TableSource | undefined): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of table?.rows() ?? []) rows.push(row);
  return rows;
}

const tablesOf = (result: ReturnType<typeof run>) =>
  Object.fromEntries(gainsReports(result, { currency: 'USD' }).map((t) => [t.spec.name, t]));

describe('us reports', () => {
  it('returns Schedule 1 line 8v per tax year: the rounded receipts by category and token, and their TOTAL', async () => {
    const result = run(
      [
        buy('i1', '2024-05-01', 'ETH', '0.01', '30.005', { income: 'staking' }),
        buy('i2', '2025-02-01', 'ETH', '0.01', '25.125', { income: 'staking' }),
        buy('i3', '2025-03-01', 'ETH', '0.02', '50.335', { income: 'staking' }),
        buy('i4', '2025-04-01', 'DAI', '10', '10.001', { income: 'income' }),
        buy('b1', '2025-04-02', 'ETH', '1', '3000'),
      ],
      { taxRules: 'us', timeZone: 'UTC' },
    );
    const rows = await rowsOf(tablesOf(result)['schedule-1']);
    // Each receipt rounded half to even once: 30.00, 25.12 + 50.34 = 75.46, 10.00.
    expect(rows.map((row) => row.slice(0, 5))).toEqual([
      ['2024', '8v', 'staking: ETH', '1', '30.00'],
      [
        '2024',
        '8v',
        'TOTAL: Digital assets received as ordinary income not reported elsewhere',
        '1',
        '30.00',
      ],
      ['2025', '8v', 'income: DAI', '1', '10.00'],
      ['2025', '8v', 'staking: ETH', '2', '75.46'],
      [
        '2025',
        '8v',
        'TOTAL: Digital assets received as ordinary income not reported elsewhere',
        '3',
        '85.46',
      ],
    ]);
  });

  it('returns the allocation statement: per wallet and token the lots, dates and basis, and a TOTAL that adds them', async () => {
    const result = run(
      [
        buy('a', '2023-01-10', 'ETH', '1', '100.004', { account: 'A' }),
        buy('b', '2024-01-10', 'ETH', '2', '300.004', { account: 'B' }),
        sell('s', '2024-06-01', 'ETH', '1', '400', { account: 'B' }),
        sell('t', '2025-02-01', 'ETH', '1', '500', { account: 'B' }),
      ],
      { taxRules: 'us', timeZone: 'UTC' },
    );
    const rows = await rowsOf(tablesOf(result)['basis-allocation-2025']);
    // B's 2024 sale took A's lot (universal FIFO) while B's records gave up one of B's two units:
    // B keeps its other unit of lot b; A's unit, whose lot's basis the sale used, takes the unit
    // of lot b the sale left unused. 300.004 / 2 = 150.002 each, shown 150.00; TOTAL rows after each wallet.
    expect(rows.map((row) => row.slice(0, 6))).toEqual([
      ['A', 'ETH', '1', '2024-01-10', '150.00', 'b'],
      ['A', 'ETH', '1', null, '150.00', null],
      ['B', 'ETH', '1', '2024-01-10', '150.00', 'b'],
      ['B', 'ETH', '1', null, '150.00', null],
    ]);
    expect(rows.map((row) => String(row[6]).split(' ')[0])).toEqual(['basis', 'TOTAL', 'the', 'TOTAL']);
  });
});
