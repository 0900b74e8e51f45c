import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addDecimal, compareDecimal, subtractDecimal } from '../../domain/decimal/plain.ts';
import type { CanonicalMovement, CanonicalTransaction } from '../../domain/index.ts';
import { minorUnit, moneyCell } from '../../domain/money.ts';
import type { Row, TableSource } from '../../domain/table.ts';
import { createSummary, TOTAL } from './summary.ts';

function tx(overrides: Partial<CanonicalTransaction> = {}): CanonicalTransaction {
  return {
    id: 'tx_1',
    date: '2025-03-14T09:26:53.000Z',
    type: 'trade',
    subType: 'swap',
    category: 'trade',
    protocol: 'Uniswap V3',
    hash: '0xabc',
    accountId: 'acc_1',
    ledgerId: 'led_1',
    movements: [
      { symbol: 'ETH', amount: '-1.250000000000000000', value: '-4210.55', extras: {} },
      { symbol: 'USDC', amount: '4205.120000', value: '4205.12', extras: {} },
    ],
    valueAmount: '4210.55',
    valueCurrency: 'USD',
    feeAmount: '5.43',
    feeCurrency: 'USD',
    feeSymbol: 'ETH',
    feeQuantity: '0.00161',
    extras: {},
    ...overrides,
  };
}

async function rowsOf(table: TableSource | undefined): Promise<Row[]> {
  const rows: Row[] = [];
  if (table === undefined) return rows;
  for await (const row of table.rows()) rows.push(row);
  return rows;
}

async function summarise(transactions: CanonicalTransaction[], timeZone = 'UTC') {
  const summary = createSummary({ timeZone });
  for (const transaction of transactions) summary.add(transaction);
  const [byMonth, byToken] = summary.tables();
  return { byMonth: await rowsOf(byMonth), byToken: await rowsOf(byToken), tables: summary.tables() };
}

const amount = fc
  .tuple(fc.boolean(), fc.bigInt({ min: 0n, max: 10n ** 30n }), fc.integer({ min: 0, max: 18 }))
  .map(([negative, digits, scale]) => {
    const text = digits.toString().padStart(scale + 1, '0');
    const plain = scale === 0 ? text : `${text.slice(0, -scale)}.${text.slice(-scale)}`;
    return negative && digits !== 0n ? `-${plain}` : plain;
  });

const movement: fc.Arbitrary<CanonicalMovement> = fc.record({
  symbol: fc.constantFrom('ETH', 'USDC', 'BTC'),
  amount,
  value: fc.option(amount, { nil: null }),
  extras: fc.constant({}),
});

const transaction: fc.Arbitrary<CanonicalTransaction> = fc
  .record({
    date: fc
      .integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2026, 0, 1) })
      .map((ms) => new Date(ms).toISOString()),
    protocol: fc.option(fc.constantFrom('Aave V3', 'Uniswap V3'), { nil: null }),
    category: fc.option(fc.constantFrom('trade', 'lending'), { nil: null }),
    valueAmount: fc.option(amount, { nil: null }),
    valueCurrency: fc.option(fc.constantFrom('USD', 'EUR', 'JPY', 'BTC'), { nil: null }),
    feeAmount: fc.option(amount, { nil: null }),
    feeCurrency: fc.option(fc.constantFrom('USD', 'EUR', 'JPY'), { nil: null }),
    movements: fc.array(movement, { maxLength: 4 }),
  })
  .map((fields) => tx(fields));

const sum = (cells: (string | null | undefined)[]) =>
  cells.reduce<string>((a, b) => addDecimal(a, b ?? '0'), '0');

describe('createSummary', () => {
  it('returns the by-month and by-token tables', async () => {
    const { tables } = await summarise([]);
    expect(tables.map((table) => table.spec.name)).toEqual(['summary_by_month', 'summary_by_token']);
  });

  it('returns the by-month columns', async () => {
    const { tables } = await summarise([]);
    expect(tables[0]?.spec.columns.map((column) => [column.key, column.kind])).toEqual([
      ['month', 'text'],
      ['protocol', 'text'],
      ['category', 'text'],
      ['currency', 'text'],
      ['count', 'integer'],
      ['value', 'decimal'],
      ['fees', 'decimal'],
    ]);
  });

  it('returns the by-token columns', async () => {
    const { tables } = await summarise([]);
    expect(tables[1]?.spec.columns.map((column) => column.key)).toEqual([
      'token',
      'currency',
      'in_quantity',
      'out_quantity',
      'net_quantity',
      'in_value',
      'out_value',
      'net_value',
    ]);
  });

  it('returns a zero TOTAL row for no transactions', async () => {
    expect((await summarise([])).byMonth).toEqual([[TOTAL, null, null, null, '0', '0', '0']]);
  });

  it('returns one row per month, protocol and category with exact sums, then TOTAL', async () => {
    const { byMonth } = await summarise([
      tx({ valueAmount: '0.1', feeAmount: '0.01' }),
      tx({ id: 'tx_2', valueAmount: '0.2', feeAmount: '0.02' }),
      tx({
        id: 'tx_3',
        protocol: null,
        category: 'transfer',
        date: '2025-04-01T10:00:00.000Z',
        valueAmount: '5',
      }),
    ]);
    expect(byMonth).toEqual([
      ['2025-03', 'Uniswap V3', 'trade', 'USD', '2', '0.30', '0.03'],
      ['2025-04', null, 'transfer', 'USD', '1', '5.00', '5.43'],
      [TOTAL, null, null, 'USD', '3', '5.30', '5.46'],
    ]);
  });

  it('returns a protocol named "(none)" and the transactions of no protocol as two rows', async () => {
    const { byMonth } = await summarise([
      tx({ protocol: '(none)', valueAmount: '1', feeAmount: null }),
      tx({ id: 'tx_2', protocol: null, valueAmount: '2', feeAmount: null }),
    ]);
    expect(byMonth).toEqual([
      ['2025-03', '(none)', 'trade', 'USD', '1', '1.00', '0.00'],
      ['2025-03', null, 'trade', 'USD', '1', '2.00', '0.00'],
      [TOTAL, null, null, 'USD', '2', '3.00', '0.00'],
    ]);
  });

  it('returns the month of a transaction in the report time zone', async () => {
    const { byMonth } = await summarise([tx({ date: '2025-03-31T22:30:00.000Z' })], 'Europe/Berlin');
    expect(byMonth[0]?.[0]).toBe('2025-04');
  });

  it('returns separate rows and totals per currency', async () => {
    const { byMonth } = await summarise([
      tx({ valueAmount: '10', feeAmount: null }),
      tx({ valueAmount: '7', valueCurrency: 'EUR', feeAmount: null }),
    ]);
    expect(byMonth.filter((row) => row[0] === TOTAL)).toEqual([
      [TOTAL, null, null, 'EUR', '1', '7.00', '0.00'],
      [TOTAL, null, null, 'USD', '1', '10.00', '0.00'],
    ]);
  });

  it('returns a fee in another currency under that currency without counting the transaction twice', async () => {
    const { byMonth } = await summarise([tx({ valueAmount: '10', feeAmount: '1', feeCurrency: 'EUR' })]);
    expect(byMonth.slice(0, 2)).toEqual([
      ['2025-03', 'Uniswap V3', 'trade', 'EUR', '0', '0.00', '1.00'],
      ['2025-03', 'Uniswap V3', 'trade', 'USD', '1', '10.00', '0.00'],
    ]);
  });

  it('returns token in, out (positive) and net quantities and values', async () => {
    const { byToken } = await summarise([tx()]);
    expect(byToken).toEqual([
      ['ETH', 'USD', '0', '1.25', '-1.25', '0.00', '4210.55', '-4210.55'],
      ['USDC', 'USD', '4205.12', '0', '4205.12', '4205.12', '0.00', '4205.12'],
      [TOTAL, 'USD', null, null, null, '4205.12', '4210.55', '-5.43'],
    ]);
  });

  it('returns quantities beyond float precision exactly', async () => {
    const movements = [
      { symbol: 'ETH', amount: '0.000000000000000001', value: null, extras: {} },
      { symbol: 'ETH', amount: '123456789012345678.1', value: null, extras: {} },
    ];
    const { byToken } = await summarise([tx({ movements })]);
    expect(byToken[0]?.[2]).toBe('123456789012345678.100000000000000001');
  });

  it('returns money to the minor unit, each transaction rounded once, half to even', async () => {
    const { byMonth, byToken } = await summarise([
      tx({ valueAmount: '0.125', feeAmount: '0.005', movements: [] }),
      tx({ id: 'tx_2', valueAmount: '0.125', feeAmount: '0.005', movements: [] }),
      tx({ id: 'tx_3', valueAmount: '1000.5', valueCurrency: 'JPY', feeAmount: null, movements: [] }),
      tx({
        id: 'tx_4',
        valueAmount: '0.123456789',
        valueCurrency: 'BTC',
        feeAmount: null,
        movements: [{ symbol: 'ETH', amount: '1', value: '0.005', extras: {} }],
      }),
    ]);
    // 0.125 → 0.12 twice (not 0.25 → 0.25); 0.005 → 0.00; JPY has no decimals; BTC keeps its own.
    expect(byMonth.filter((row) => row[0] === TOTAL)).toEqual([
      [TOTAL, null, null, 'BTC', '1', '0.123456789', '0'],
      [TOTAL, null, null, 'JPY', '1', '1000', '0'],
      [TOTAL, null, null, 'USD', '2', '0.24', '0.00'],
    ]);
    expect(byToken[0]).toEqual(['ETH', 'BTC', '1', '0', '1', '0.005', '0', '0.005']);
  });

  it('returns money headers naming the currency and number columns as wide as their widest cell, totals included', async () => {
    const { tables } = await summarise([
      tx({ feeAmount: '600000.5' }),
      tx({ id: 'tx_2', feeAmount: '600000.5', date: '2025-04-01T00:00:00.000Z' }),
    ]);
    const columns = tables[0]?.spec.columns ?? [];
    expect(columns.map((column) => [column.header, column.width])).toEqual([
      ['Month', undefined],
      ['Protocol', undefined],
      ['Category', undefined],
      ['Currency', undefined],
      ['Transactions (count)', 1],
      ['Value (USD)', '8,421.10'.length],
      // The TOTAL `1,200,001.00` is wider than any month's `600,000.50`.
      ['Fees (USD)', '1,200,001.00'.length],
    ]);
  });

  it('returns rows in the same order whatever the order of the transactions', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { maxLength: 15 }), async (transactions) => {
        const forward = await summarise(transactions);
        const backward = await summarise([...transactions].reverse());
        expect([backward.byMonth, backward.byToken]).toEqual([forward.byMonth, forward.byToken]);
      }),
    );
  });

  it('returns by-month totals equal to the exact sums of the rows per currency, as shown', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { maxLength: 20 }), async (transactions) => {
        const { byMonth } = await summarise(transactions);
        const rows = byMonth.filter((row) => row[0] !== TOTAL);
        for (const total of byMonth.filter((row) => row[0] === TOTAL)) {
          const mine = rows.filter((row) => row[3] === total[3]);
          expect([
            total[4],
            compareDecimal(total[5] as string, sum(mine.map((row) => row[5]))),
            compareDecimal(total[6] as string, sum(mine.map((row) => row[6]))),
          ]).toEqual([String(mine.reduce((n, row) => n + Number(row[4]), 0)), 0, 0]);
        }
      }),
    );
  });

  it('returns every money cell of a currency with a minor unit with exactly its decimals', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { maxLength: 20 }), async (transactions) => {
        const { byMonth, byToken } = await summarise(transactions);
        const cells = [
          ...byMonth.flatMap((row) => [row[5], row[6]].map((cell) => [row[3], cell] as const)),
          ...byToken.flatMap((row) => [row[5], row[6], row[7]].map((cell) => [row[1], cell] as const)),
        ];
        const wrong = cells.filter(([currency, cell]) => {
          const digits = minorUnit(currency ?? null);
          if (digits === null || cell === null || cell === undefined) return false;
          return (cell.split('.')[1]?.length ?? 0) !== digits;
        });
        expect(wrong).toEqual([]);
      }),
    );
  });

  it('returns by-month totals equal to the sums of the transactions each rounded to its minor unit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { maxLength: 20 }), async (transactions) => {
        const { byMonth } = await summarise(transactions);
        const totals = byMonth.filter((row) => row[0] === TOTAL);
        // An amount without a currency counts in its row's currency (the value's, else the fee's).
        const rowCurrency = (t: CanonicalTransaction) => t.valueCurrency ?? t.feeCurrency;
        const shownValues = transactions.map((t) => moneyCell(t.valueAmount, rowCurrency(t)));
        const shownFees = transactions.map((t) => moneyCell(t.feeAmount, t.feeCurrency ?? rowCurrency(t)));
        expect([
          totals.reduce((n, row) => n + Number(row[4]), 0),
          compareDecimal(sum(totals.map((row) => row[5])), sum(shownValues)),
          compareDecimal(sum(totals.map((row) => row[6])), sum(shownFees)),
        ]).toEqual([transactions.length, 0, 0]);
      }),
    );
  });

  it('keeps only the totals when no tables are asked for: no tables, and the same totals', async () => {
    await fc.assert(
      fc.property(fc.array(transaction, { maxLength: 20 }), (transactions) => {
        const full = createSummary({ timeZone: 'Europe/Berlin' });
        const totalsOnly = createSummary({ timeZone: 'Europe/Berlin', tables: false });
        for (const transaction of transactions) {
          full.add(transaction);
          totalsOnly.add(transaction);
        }
        expect(totalsOnly.tables()).toEqual([]);
        expect(totalsOnly.totals()).toEqual(full.totals());
      }),
    );
  });

  it('returns by-token rows whose net is in minus out and whose totals are the row sums', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { maxLength: 20 }), async (transactions) => {
        const { byToken } = await summarise(transactions);
        const rows = byToken.filter((row) => row[0] !== TOTAL);
        for (const row of rows) {
          expect(row[4]).toBe(subtractDecimal(row[2] as string, row[3] as string));
          expect(compareDecimal(row[7] as string, subtractDecimal(row[5] as string, row[6] as string))).toBe(
            0,
          );
          expect(compareDecimal(row[3] as string, '0')).toBeGreaterThanOrEqual(0);
        }
        for (const total of byToken.filter((row) => row[0] === TOTAL)) {
          const mine = rows.filter((row) => row[1] === total[1]);
          expect([
            compareDecimal(total[5] as string, sum(mine.map((row) => row[5]))),
            compareDecimal(total[6] as string, sum(mine.map((row) => row[6]))),
          ]).toEqual([0, 0]);
        }
      }),
    );
  });

  it('returns by-token net quantities equal to the exact sum of the movement amounts', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(transaction, { maxLength: 20 }), async (transactions) => {
        const { byToken } = await summarise(transactions);
        const amounts = transactions.flatMap((t) => t.movements.map((m) => m.amount));
        const nets = byToken.filter((row) => row[0] !== TOTAL).map((row) => row[4]);
        expect(compareDecimal(sum(nets), sum(amounts))).toBe(0);
      }),
    );
  });

  it('returns every decimal cell in plain notation', async () => {
    const { byMonth, byToken } = await summarise([
      tx({ valueAmount: '0.0000001', feeAmount: '100000000000000000000000' }),
    ]);
    const decimals = [...byMonth.flatMap((row) => row.slice(5)), ...byToken.flatMap((row) => row.slice(2))];
    expect(decimals.filter((cell) => cell !== null && !/^-?\d+(\.\d+)?$/.test(cell))).toEqual([]);
  });
});
