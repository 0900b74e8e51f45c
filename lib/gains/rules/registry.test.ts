/**
 * A rule set is a behaviour object: one written elsewhere (here, a made-up "Testland" in the test
 * itself) is registered and runs through the engine, its choices, zone, tax year and summary
 * applied, without a line of the engine, the reports or the registry changed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buy, sell } from '../../../test/support/gains.ts';
import type { Row, TableSource } from '../../domain/index.ts';
import { ValidationError } from '../../errors.ts';
import { createGainsEngine } from '../engine.ts';
import { createFiling } from '../filing.ts';
import { gainsMoney, gainsReports, registerTaxRuleSet, resolveGainsOptions } from '../index.ts';
import type { TaxRuleSet } from './types.ts';

/** Testland: tax years from 1 July in Auckland, a two-year holding period, a return counting sales. */
const TESTLAND: TaxRuleSet = {
  id: 'testland',
  words: 'Testland (a made-up law of the tests)',
  defaults: { method: 'lifo', pooling: 'account', taxYearStart: '07-01', longTermYears: 2 },
  fixed: { taxYearStart: { allowed: ['07-01'], reason: 'the Testland tax year starts on 1 July' } },
  timeZone: 'Pacific/Auckland',
  rounding: null,
  exchangeValue: 'own',
  disposalFee: 'proceeds',
  incomeFee: 'basis',
  currency: 'NZD',
  summary: () => {
    const sales = new Map<string, number>();
    return {
      spec: () => ({
        name: 'tax_summary',
        title: 'Testland return',
        columns: [
          { key: 'tax_year', header: 'Tax year', kind: 'text' },
          { key: 'sales', header: 'Sales', kind: 'integer' },
        ],
      }),
      add: (line) => sales.set(line.taxYear, (sales.get(line.taxYear) ?? 0) + 1),
      addIncome: () => {},
      rows: () => [...sales].map(([year, count]) => [year, String(count)]),
    };
  },
};

async function rowsOf(table: TableSource | undefined): Promise<Row[]> {
  const rows: Row[] = [];
  for await (const row of table?.rows() ?? []) rows.push(row);
  return rows;
}

let unregister: (() => void) | null = null;
afterEach(() => {
  unregister?.();
  unregister = null;
});

describe('a rule set registered from its own module', () => {
  it('runs through the engine with its defaults, zone, tax year and holding period', () => {
    unregister = registerTaxRuleSet(TESTLAND);
    const events = [
      buy('b1', '2023-01-10', 'ETH', '1', '100'),
      buy('b2', '2023-03-10', 'ETH', '1', '200'),
      // 30 June 2024 in UTC, but 1 July 01:00 in Auckland: the first day of the tax year 2024/25.
      sell('s1', '2024-06-30T13:00:00Z', 'ETH', '1', '500'),
    ];
    const engine = createGainsEngine({ taxRules: 'testland' });
    expect(engine.options).toMatchObject({
      method: 'lifo',
      pooling: 'account',
      timeZone: 'Pacific/Auckland',
      taxYearStart: { month: 7, day: 1 },
      longTermYears: 2,
      taxRules: 'testland',
    });
    for (const event of events) engine.process(event);
    engine.finish();
    // LIFO takes the March lot; held less than two years: short term, in Auckland's tax year 2024/25.
    expect(engine.result().disposals).toMatchObject([
      { acquiredTxId: 'b2', cost: '200', gain: '300', term: 'short', taxYear: '2024/25' },
    ]);
  });

  it('refuses a choice its law fixes, with its reason', () => {
    unregister = registerTaxRuleSet(TESTLAND);
    const refused = (() => {
      try {
        resolveGainsOptions({ taxRules: 'testland', taxYearStart: { month: 1, day: 1 } });
      } catch (error) {
        return error;
      }
      return null;
    })();
    expect(refused).toBeInstanceOf(ValidationError);
    expect(String(refused)).toContain('the Testland tax year starts on 1 July');
  });

  it('adds its summary to the reports and to the filing of the report stage', async () => {
    unregister = registerTaxRuleSet(TESTLAND);
    const events = [
      buy('b1', '2024-08-01', 'BTC', '1', '1000'),
      sell('s1', '2024-09-01', 'BTC', '1', '1500'),
    ];
    const engine = createGainsEngine({ taxRules: 'testland' });
    for (const event of events) engine.process(event);
    engine.finish();
    const result = engine.result();
    const summary = gainsReports(result).find((table) => table.spec.title === 'Testland return');
    expect(await rowsOf(summary)).toEqual([['2024/25', '1']]);

    const filing = createFiling(result.options, { timeZone: 'UTC', gains: {} });
    filing.add(result.disposals, result.income);
    const money = gainsMoney('NZD');
    const [table] = filing.tables({ result, money, disposals: async function* () {} });
    expect(table?.spec.title).toBe('Testland return');
    expect(await rowsOf(table)).toEqual([['2024/25', '1']]);
  });

  it('is refused again once unregistered', () => {
    registerTaxRuleSet(TESTLAND)();
    expect(() => resolveGainsOptions({ taxRules: 'testland' })).toThrow('must be generic, us, uk or de');
  });
});
