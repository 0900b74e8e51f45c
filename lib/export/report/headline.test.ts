import { describe, expect, it } from 'vitest';
import type { Row, TableSource } from '../../domain/table.ts';
import { headlineFigures } from './headline.ts';

/** A table of text columns named `keys`, its rows as given. */
function table(name: string, keys: string[], rows: Row[]): TableSource {
  return {
    spec: { name, title: name, columns: keys.map((key) => ({ key, header: key, kind: 'text' as const })) },
    rows: async function* () {
      yield* rows;
    },
  };
}

const summary = (rows: Row[]) =>
  table('gains_summary', ['tax_year', 'token', 'term', 'net', 'currency'], rows);
const income = (rows: Row[]) => table('income', ['tax_year', 'category', 'token', 'value', 'currency'], rows);

describe('headlineFigures', () => {
  it("adds up each tax year's TOTAL rows of every term and takes its income TOTAL, at the rows' places, ignoring token rows", async () => {
    const tables = [
      summary([
        ['2023/24', 'BTC', 'short', '100.10', 'GBP'],
        ['2023/24', 'TOTAL', 'short', '100.10', 'GBP'],
        ['2024/25', 'ETH', 'short', '-50.00', 'GBP'],
        ['2024/25', 'TOTAL', 'short', '-50.00', 'GBP'],
        ['2024/25', 'TOTAL', 'long', '20.05', 'GBP'],
      ]),
      income([
        ['2024/25', 'staking', 'ETH', '7.50', 'GBP'],
        ['2024/25', '', 'TOTAL', '7.50', 'GBP'],
      ]),
    ];
    expect(await headlineFigures(tables, 3)).toEqual({
      taxYears: [
        { taxYear: '2023/24', netGain: '100.10', income: '0.00', currency: 'GBP' },
        { taxYear: '2024/25', netGain: '-29.95', income: '7.50', currency: 'GBP' },
      ],
      warningsOpen: 3,
    });
  });

  it('has no headline for a run without the gains report', async () => {
    expect(await headlineFigures([income([])], 0)).toBeUndefined();
  });
});
