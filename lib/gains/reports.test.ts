import { describe, expect, it } from 'vitest';
import { buy, move, run, sell } from '../../test/support/gains.ts';
import type { Row, TableSource } from '../domain/index.ts';
import {
  disposalsTable,
  gainsReports,
  gainsSummaryTable,
  holdingsTable,
  incomeTable,
  warningsTable,
} from './reports.ts';

async function rowsOf(table: TableSource): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of table.rows()) rows.push(row);
  return rows;
}

const cells = (table: TableSource, row: Row, keys: readonly string[]) =>
  keys.map((key) => row[table.spec.columns.findIndex((c) => c.key === key)]);

describe('disposalsTable', () => {
  it('returns one Form 8949 row per lot with ISO instants shown in the report zone', async () => {
    const table = disposalsTable(
      run([buy('b', '2024-01-10', 'ETH', '1', '100'), sell('s', '2025-02-10', 'ETH', '1', '150')], {
        timeZone: 'Europe/Paris',
      }),
    );
    const [row] = await rowsOf(table);
    expect(row).toEqual([
      'ETH',
      '1',
      '2024-01-10T12:00:00.000Z',
      '2025-02-10T12:00:00.000Z',
      '150',
      '100',
      '50',
      'long',
      '2025',
      'A',
      'b',
      's',
    ]);
  });

  it('returns datetime columns carrying the report zone', () => {
    const table = disposalsTable(run([], { timeZone: 'Europe/Paris' }));
    expect(table.spec.columns.filter((c) => c.kind === 'datetime').map((c) => c.timeZone)).toEqual([
      'Europe/Paris',
      'Europe/Paris',
    ]);
  });
});

describe('gainsSummaryTable', () => {
  it('returns gains and losses apart, net = gains + losses', async () => {
    // Lots: 1 @ 100 and 1 @ 300; sell 2 for 400 (200 each, FIFO): +100 and −100. Net 0.
    const table = gainsSummaryTable(
      run([
        buy('b1', '2025-01-10', 'ETH', '1', '100'),
        buy('b2', '2025-01-11', 'ETH', '1', '300'),
        sell('s', '2025-02-10', 'ETH', '2', '400'),
      ]),
    );
    const [row] = await rowsOf(table);
    expect(
      cells(table, row ?? [], [
        'tax_year',
        'token',
        'term',
        'lines',
        'proceeds',
        'cost',
        'gains',
        'losses',
        'net',
      ]),
    ).toEqual(['2025', 'ETH', 'short', '2', '400', '400', '100', '-100', '0']);
  });

  it('returns the tax year bounds of a UK tax year', async () => {
    const table = gainsSummaryTable(
      run([buy('b', '2025-01-10', 'ETH', '1', '1'), sell('s', '2025-05-01', 'ETH', '1', '2')], {
        taxYearStart: { month: 4, day: 6 },
      }),
    );
    const [row] = await rowsOf(table);
    expect(cells(table, row ?? [], ['tax_year', 'first_day', 'last_day'])).toEqual([
      '2025/26',
      '2025-04-06',
      '2026-04-05',
    ]);
  });
});

describe('incomeTable', () => {
  it('returns receipts summed per tax year, category and token, and a TOTAL per tax year', async () => {
    // Two staking rewards of 0.01 (25 and 26.5) → 0.02, 51.5.
    const table = incomeTable(
      run([
        buy('r1', '2025-05-01', 'ETH', '0.01', '25', { income: 'staking' }),
        buy('r2', '2025-06-01', 'ETH', '0.01', '26.5', { income: 'staking' }),
      ]),
    );
    expect(await rowsOf(table)).toEqual([
      ['2025', '2025-01-01 to 2025-12-31: the whole tax year 2025', 'staking', 'ETH', '2', '0.02', '51.5'],
      ['2025', '2025-01-01 to 2025-12-31: the whole tax year 2025', null, 'TOTAL', '2', null, '51.5'],
    ]);
  });
});

describe('holdingsTable', () => {
  it('returns the roll-forward per account with zero checks', async () => {
    // A: +2 (100), −0.5 moved (25), −1 sold (50) → 0.5 (25). B: +0.5 (25) in.
    const table = holdingsTable(
      run(
        [
          buy('a', '2025-01-10', 'ETH', '2', '100'),
          move('m', '2025-02-10', 'ETH', '0.5', 'A', 'B'),
          sell('s', '2025-03-10', 'ETH', '1', '70'),
        ],
        { pooling: 'account' },
      ),
    );
    const rows = await rowsOf(table);
    const keys = ['account', 'acquired_cost', 'transferred_in_cost', 'disposed_cost', 'transferred_out_cost'];
    expect(
      rows.map((row) =>
        cells(table, row, [...keys, 'closing_quantity', 'closing_cost', 'check_quantity', 'check_cost']),
      ),
    ).toEqual([
      ['A', '100', '0', '50', '25', '0.5', '25', '0', '0'],
      ['B', '0', '25', '0', '0', '0.5', '25', '0', '0'],
    ]);
  });

  it('returns the zero-basis quantity apart from the lots disposed', async () => {
    const table = holdingsTable(
      run([buy('a', '2025-01-10', 'ETH', '1', '10'), sell('s', '2025-02-10', 'ETH', '3', '90')]),
    );
    const [row] = await rowsOf(table);
    expect(
      cells(table, row ?? [], ['disposed_quantity', 'unmatched_disposed_quantity', 'closing_quantity']),
    ).toEqual(['1', '2', '0']);
  });
});

describe('warningsTable', () => {
  it('returns one row per warning with the transaction id', async () => {
    const table = warningsTable(run([sell('s', '2025-02-10', 'ETH', '1', '90')]));
    const [row] = await rowsOf(table);
    expect(cells(table, row ?? [], ['transaction_id', 'kind', 'token', 'quantity'])).toEqual([
      's',
      'zero-basis',
      'ETH',
      '1',
    ]);
  });
});

describe('gainsReports', () => {
  it('returns the five reports in workbook order', () => {
    expect(gainsReports(run([])).map((t) => t.spec.name)).toEqual([
      'disposals',
      'gains_summary',
      'income',
      'holdings',
      'gains_warnings',
    ]);
  });
});

describe('gainsReports of every rule set', () => {
  it("returns each table with a description of its rows, which the Read me's file list shows (walk-through 2026-12-08)", () => {
    const described = (['generic', 'us', 'uk', 'de'] as const).flatMap((taxRules) =>
      gainsReports(run([], { taxRules })).map(({ spec }) => ({
        taxRules,
        name: spec.name,
        description: spec.description ?? '',
      })),
    );

    expect(new Set(described.map(({ name }) => name))).toEqual(
      new Set([
        'disposals',
        'gains_summary',
        'income',
        'holdings',
        'gains_warnings',
        'pool_history',
        'tax_summary',
        'schedule-1',
        'basis-allocation-2025',
      ]),
    );
    // A sentence, not the sheet's title again: what one row of the file is.
    expect(described.filter(({ description }) => description.split(' ').length < 6)).toEqual([]);
  });
});
