import { describe, expect, it } from 'vitest';
import { absDecimal, signDecimal, trimDecimal } from '../../domain/decimal/plain.ts';
import type { Row, TableSpec } from '../../domain/table.ts';
import { PbsExportError } from '../../errors.ts';
import type { RawTransaction } from '../../pbs/model.ts';
import { DEFAULT_SHAPE, type TransactionFieldMap } from '../../pbs/shape.ts';
import { createNormalizer, parseInstant, TransactionDataError } from './normalize.ts';

function trade(overrides: Record<string, unknown> = {}): RawTransaction {
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
      { symbol: 'ETH', amount: '-1.250000000000000000', value: '-4210.55' },
      { symbol: 'USDC', amount: '4205.120000', value: '4205.12' },
    ],
    value: { amount: '4210.55', currency: 'USD' },
    fee: { amount: '5.43', currency: 'USD', symbol: 'ETH', quantity: '0.00161' },
    lastModifiedDate: '2025-03-14T09:30:00.000Z',
    ...overrides,
  };
}

function normalizer(fields: TransactionFieldMap = DEFAULT_SHAPE.fields, timeZone = 'Europe/Berlin') {
  return createNormalizer({ fields, timeZone });
}

/** The row as an object keyed by column, for readable assertions. */
function byKey(spec: TableSpec, row: Row): Record<string, string | null> {
  return Object.fromEntries(spec.columns.map((column, i) => [column.key, row[i] ?? null]));
}

function thrown(action: () => unknown): unknown {
  try {
    action();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

describe('parseInstant', () => {
  it('returns an ISO instant with milliseconds in UTC', () => {
    expect(parseInstant('2025-03-14T10:26:53+01:00')).toBe('2025-03-14T09:26:53.000Z');
  });

  it('returns a time without offset read in the configured zone', () => {
    const reading = { offsetlessZone: 'America/New_York', epochUnit: 'milliseconds' } as const;
    expect(parseInstant('2025-03-14T09:26:53', reading)).toBe('2025-03-14T13:26:53.000Z');
  });

  it('returns null for a time without offset when no zone is configured', () => {
    expect(parseInstant('2025-03-14T09:26:53')).toBeNull();
  });

  it('returns epoch milliseconds as an instant', () => {
    expect(parseInstant(1741944413000)).toBe('2025-03-14T09:26:53.000Z');
  });

  it('returns null for text that is not a date', () => {
    expect(parseInstant('14/03/2025')).toBeNull();
  });
});

describe('createNormalizer transactions', () => {
  it('returns the fixed columns in order', () => {
    expect(
      normalizer()
        .transactionsSpec()
        .columns.map((column) => column.key),
    ).toEqual([
      'id',
      'date_utc',
      'date_local',
      'type',
      'sub_type',
      'category',
      'protocol',
      'hash',
      'account_id',
      'ledger_id',
      'in',
      'out',
      'value_amount',
      'value_currency',
      'fee_amount',
      'fee_currency',
      'fee_symbol',
      'fee_quantity',
    ]);
  });

  it('returns headers in words with units, no two alike, with the UTC zone too', () => {
    const n = normalizer(DEFAULT_SHAPE.fields, 'UTC');
    n.observe(trade());
    const headers = [n.transactionsSpec(), n.movementsSpec(), n.changesSpec()].map((spec) =>
      spec.columns.map((column) => column.header),
    );
    expect(headers.map((list) => new Set(list).size)).toEqual(headers.map((list) => list.length));
    expect(headers[0]).toEqual(
      expect.arrayContaining(['Date (UTC)', 'Date (UTC, report zone)', 'Value (USD)', 'Fee (USD)']),
    );
    expect(headers[1]).toEqual(expect.arrayContaining(['Value (USD)', 'Amount (token, signed)']));
  });

  it("returns money headers pointing to the row's currency when currencies mix", () => {
    const n = normalizer();
    n.observe(trade());
    n.observe(trade({ id: 'tx_2', value: { amount: '1', currency: 'EUR' } }));
    const headers = n.transactionsSpec().columns.map((column) => column.header);
    expect(headers).toEqual(expect.arrayContaining(["Value (in the row's currency)", 'Fee (USD)']));
  });

  it('returns number columns sized to the widest value observed, as shown', () => {
    const n = normalizer();
    n.observe(trade());
    n.observe(trade({ id: 'tx_2', value: { amount: '-1234567.5', currency: 'USD' } }));
    const widths = Object.fromEntries(
      n.transactionsSpec().columns.map((column) => [column.key, column.width]),
    );
    // `-1,234,567.50`: the value as the sheet shows it, with separators and cents.
    expect([widths.value_amount, widths.fee_amount, widths.fee_quantity]).toEqual([13, 4, 7]);
  });

  it('returns date columns in UTC and in the report zone', () => {
    const spec = normalizer().transactionsSpec();
    expect(spec.columns.slice(1, 3).map((column) => [column.kind, column.timeZone])).toEqual([
      ['datetime', 'UTC'],
      ['datetime', 'Europe/Berlin'],
    ]);
  });

  it('returns fee_quantity as an exact decimal column', () => {
    const column = normalizer()
      .transactionsSpec()
      .columns.find((c) => c.key === 'fee_quantity');
    expect([column?.kind, column?.exact]).toEqual(['decimal', true]);
  });

  it('returns the row of the default transaction shape', () => {
    const n = normalizer();
    n.observe(trade());
    expect(byKey(n.transactionsSpec(), n.transactionRow(trade()))).toEqual({
      id: 'tx_1',
      date_utc: '2025-03-14T09:26:53.000Z',
      date_local: '2025-03-14T09:26:53.000Z',
      type: 'trade',
      sub_type: 'swap',
      category: 'trade',
      protocol: 'Uniswap V3',
      hash: '0xabc',
      account_id: 'acc_1',
      ledger_id: 'led_1',
      in: '4205.12 USDC',
      out: '1.25 ETH',
      value_amount: '4210.55',
      value_currency: 'USD',
      fee_amount: '5.43',
      fee_currency: 'USD',
      fee_symbol: 'ETH',
      fee_quantity: '0.00161',
    });
  });

  it('returns several incoming movements joined by "; "', () => {
    const raw = trade({
      movements: [
        { symbol: 'ETH', amount: '0.5', value: '1' },
        { symbol: 'COMP', amount: '2', value: '3' },
      ],
    });
    const n = normalizer();
    n.observe(raw);
    expect(byKey(n.transactionsSpec(), n.transactionRow(raw)).in).toBe('0.5 ETH; 2 COMP');
  });

  it('returns null cells for missing optional fields', () => {
    const raw = { id: 'tx_2', date: '2025-03-14T09:26:53.000Z' };
    const n = normalizer();
    n.observe(raw);
    const row = byKey(n.transactionsSpec(), n.transactionRow(raw));
    expect(Object.entries(row).filter(([, cell]) => cell !== null)).toEqual([
      ['id', 'tx_2'],
      ['date_utc', '2025-03-14T09:26:53.000Z'],
      ['date_local', '2025-03-14T09:26:53.000Z'],
    ]);
  });

  it('returns in, out and direction of every amount form as the decimal module signs and trims it', () => {
    const amounts = [
      '0',
      '-0',
      '-0.000',
      '0.000',
      '10.000',
      '-10.500',
      '100',
      '-100',
      '0.0100',
      '-0.00001',
      '1e-7',
      '-1.5E+3',
      '007.10',
      '-000.0',
      '12345678901234567890.120',
    ];
    const n = normalizer();
    const txs = amounts.map((amount, i) =>
      n.canonical(trade({ id: `tx_${i}`, movements: [{ symbol: 'T', amount }] })),
    );
    for (const tx of txs) n.observeCanonical(tx);
    const spec = n.transactionsSpec();
    for (const tx of txs) {
      const amount = tx.movements[0]?.amount as string;
      // Independent expectation: the decimal module's own sign and trim of the canonical amount.
      const shown = `${trimDecimal(absDecimal(amount))} T`;
      const out = signDecimal(amount) < 0;
      const row = byKey(spec, n.toTransactionRow(tx));
      expect([row.in, row.out], amount).toEqual(out ? [null, shown] : [shown, null]);
      expect(n.toMovementRows(tx)[0]?.[6], amount).toBe(out ? 'out' : 'in');
    }
  });

  it('returns an exponent amount in plain notation', () => {
    const raw = trade({ fee: { amount: '1e-7', currency: 'BTC', symbol: 'ETH', quantity: '2.5E-8' } });
    const n = normalizer();
    n.observe(raw);
    const row = byKey(n.transactionsSpec(), n.transactionRow(raw));
    expect([row.fee_amount, row.fee_quantity]).toEqual(['0.0000001', '0.000000025']);
  });

  it('returns money to its currency minor unit, rounded half to even, and quantities as sent', () => {
    const raw = trade({
      value: { amount: '2543.5', currency: 'USD' },
      fee: { amount: '1000.5', currency: 'JPY', symbol: 'ETH', quantity: '0.024123745819401519' },
      movements: [{ symbol: 'ETH', amount: '-1.250000000000000000', value: '-0.125' }],
    });
    const n = normalizer();
    n.observe(raw);
    const row = byKey(n.transactionsSpec(), n.transactionRow(raw));
    const movement = byKey(n.movementsSpec(), n.movementRows(raw)[0] ?? []);
    expect([row.value_amount, row.fee_amount, row.fee_quantity, movement.amount, movement.value]).toEqual([
      '2543.50',
      '1000',
      '0.024123745819401519',
      '-1.250000000000000000',
      '-0.12',
    ]);
  });

  it('returns unknown fields as extra text columns in sorted order, flattened with dots', () => {
    const raw = trade({
      memo: 'rebalance',
      value: { amount: '1', currency: 'USD', rate: '1.0001' },
      chain: 'eth',
    });
    const n = normalizer();
    n.observe(raw);
    const spec = n.transactionsSpec();
    expect(spec.columns.slice(18).map((column) => [column.key, column.kind])).toEqual([
      ['chain', 'text'],
      ['memo', 'text'],
      ['value.rate', 'text'],
    ]);
  });

  it('returns the extra cells of each transaction, null where it lacks the field', () => {
    const n = normalizer();
    n.observe(trade({ memo: 'a' }));
    n.observe(trade({ id: 'tx_2', tags: ['x', 'y'] }));
    expect([
      n.transactionRow(trade({ memo: 'a' })).slice(18),
      n.transactionRow(trade({ tags: ['x', 'y'] })).slice(18),
    ]).toEqual([
      ['a', null],
      [null, '["x","y"]'],
    ]);
  });

  it('returns a literal key with a dot and a nested key of the same dotted name as two columns', () => {
    const raw = JSON.parse(
      JSON.stringify(
        trade({ 'nest.inner': 'literal', nest: { inner: 'nested' }, '': 'empty', 'a[0]': 'bracket' }),
      ),
    ) as RawTransaction;
    const n = normalizer();
    n.observe(raw);
    const spec = n.transactionsSpec();
    expect(byKey(spec, n.transactionRow(raw))).toMatchObject({
      '["nest.inner"]': 'literal',
      'nest.inner': 'nested',
      '[""]': 'empty',
      '["a[0]"]': 'bracket',
    });
  });

  it('returns a __proto__ key of the service as an extra column like any other', () => {
    const raw = JSON.parse(
      '{"id":"tx_1","date":"2025-03-14T09:26:53.000Z","__proto__":"kept","constructor":"too"}',
    ) as RawTransaction;
    const n = normalizer();
    n.observe(raw);
    const spec = n.transactionsSpec();
    const cells = byKey(spec, n.transactionRow(raw));
    expect([Object.getOwnPropertyDescriptor(cells, '__proto__')?.value, cells.constructor]).toEqual([
      'kept',
      'too',
    ]);
  });

  it('throws a TransactionDataError naming the amount with an exponent past the supported range', () => {
    const error = thrown(() =>
      normalizer().transactionRow(trade({ value: { amount: '1e5000', currency: 'USD' } })),
    );
    expect(error).toMatchObject({ path: 'value.amount', transactionId: 'tx_1' });
  });

  it('returns negative zero amounts as unsigned zero to the minor unit', () => {
    const raw = trade({
      value: { amount: '-0.000', currency: 'USD' },
      fee: { amount: '-0', currency: 'USD' },
    });
    const n = normalizer();
    n.observe(raw);
    expect(byKey(n.transactionsSpec(), n.transactionRow(raw))).toMatchObject({
      value_amount: '0.00',
      fee_amount: '0.00',
    });
  });

  it('returns numbers and booleans of extra fields as text', () => {
    const raw = trade({ confirmations: 12, internal: false, note: null });
    const n = normalizer();
    n.observe(raw);
    expect(n.transactionRow(raw).slice(18)).toEqual(['12', 'false', null]);
  });

  it('returns an extra column key prefixed when it clashes with a fixed column', () => {
    const fields = { ...DEFAULT_SHAPE.fields, type: 'kind' };
    const raw = trade({ kind: 'trade', type: 'legacy' });
    const n = normalizer(fields);
    n.observe(raw);
    expect(n.transactionsSpec().columns.at(-1)?.key).toBe('extra:type');
  });

  it('reads a transaction in another field layout through the mapping', () => {
    const fields: TransactionFieldMap = {
      ...DEFAULT_SHAPE.fields,
      id: 'txId',
      date: 'meta.timestamp',
      movements: 'legs',
      movementSymbol: 'asset.code',
      movementAmount: 'qty',
      movementValue: 'fiat',
      valueAmount: 'fiatValue',
      valueCurrency: 'fiatCurrency',
    };
    const raw = {
      txId: 'T-9',
      meta: { timestamp: 1741944413000, source: 'api' },
      legs: [{ asset: { code: 'BTC' }, qty: '0.1', fiat: '8000' }],
      fiatValue: '8000',
      fiatCurrency: 'EUR',
    };
    const n = normalizer(fields);
    n.observe(raw);
    const spec = n.transactionsSpec();
    const row = byKey(spec, n.transactionRow(raw));
    expect([row.id, row.date_utc, row.in, row.value_amount, row.value_currency, row['meta.source']]).toEqual([
      'T-9',
      '2025-03-14T09:26:53.000Z',
      '0.1 BTC',
      '8000.00',
      'EUR',
      'api',
    ]);
  });

  it('throws a TransactionDataError naming the id path and index when the id is missing', () => {
    const error = thrown(() => normalizer().transactionRow({ date: '2025-03-14T09:26:53.000Z' }, 7));
    expect(error).toMatchObject({ path: 'id', index: 7, transactionId: null, code: 'invalid_transaction' });
  });

  it('throws a TransactionDataError naming the date path and transaction id for a bad date', () => {
    const error = thrown(() => normalizer().transactionRow(trade({ date: 'yesterday' })));
    expect([error instanceof TransactionDataError, (error as Error).message]).toEqual([
      true,
      'transaction "tx_1": field "date" is not a date: "yesterday" is not an ISO-8601 instant',
    ]);
  });

  it('throws a TransactionDataError when the date is missing', () => {
    expect(() => normalizer().transactionRow(trade({ date: undefined }))).toThrow('field "date" is missing');
  });

  it('throws a TransactionDataError naming the field of a non-decimal amount', () => {
    const error = thrown(() =>
      normalizer().transactionRow(trade({ value: { amount: '4,210.55', currency: 'USD' } })),
    );
    expect(error).toMatchObject({ path: 'value.amount', transactionId: 'tx_1' });
  });

  it('throws a TransactionDataError naming the movement of a non-decimal amount', () => {
    const raw = trade({
      movements: [
        { symbol: 'ETH', amount: '1' },
        { symbol: 'BTC', amount: 'lots' },
      ],
    });
    expect(thrown(() => normalizer().transactionRow(raw))).toMatchObject({ path: 'movements[1].amount' });
  });

  it('throws a TransactionDataError for a movement without a symbol', () => {
    const raw = trade({ movements: [{ amount: '1' }] });
    expect(thrown(() => normalizer().transactionRow(raw))).toMatchObject({ path: 'movements[0].symbol' });
  });

  it('throws a PbsExportError for an extra field observe() never saw', () => {
    const n = normalizer();
    n.observe(trade());
    expect(() => n.transactionRow(trade({ surprise: 1 }))).toThrow(PbsExportError);
  });

  it('throws when observe() is called after the columns were fixed', () => {
    const n = normalizer();
    n.transactionsSpec();
    expect(() => n.observe(trade())).toThrow('observe() called after the columns were fixed');
  });
});

describe('createNormalizer canonical', () => {
  it('returns the movements with signed exact amounts', () => {
    expect(
      normalizer()
        .canonical(trade())
        .movements.map((m) => [m.symbol, m.amount, m.value]),
    ).toEqual([
      ['ETH', '-1.250000000000000000', '-4210.55'],
      ['USDC', '4205.120000', '4205.12'],
    ]);
  });

  it('returns no movements when the field is absent', () => {
    expect(normalizer().canonical(trade({ movements: undefined })).movements).toEqual([]);
  });

  it('throws when the movements field is not a list', () => {
    expect(() => normalizer().canonical(trade({ movements: 'ETH' }))).toThrow(
      'field "movements" is not a list',
    );
  });
});

describe('createNormalizer movements', () => {
  it('returns the movement columns in order', () => {
    expect(
      normalizer()
        .movementsSpec()
        .columns.map((column) => [column.key, column.kind]),
    ).toEqual([
      ['transaction_id', 'text'],
      ['date_utc', 'datetime'],
      ['date_local', 'datetime'],
      ['token', 'text'],
      ['amount', 'decimal'],
      ['value', 'decimal'],
      ['direction', 'text'],
    ]);
  });

  it('returns one row per movement with signed amount and direction', () => {
    const n = normalizer();
    n.observe(trade());
    expect(n.movementRows(trade())).toEqual([
      [
        'tx_1',
        '2025-03-14T09:26:53.000Z',
        '2025-03-14T09:26:53.000Z',
        'ETH',
        '-1.250000000000000000',
        '-4210.55',
        'out',
      ],
      [
        'tx_1',
        '2025-03-14T09:26:53.000Z',
        '2025-03-14T09:26:53.000Z',
        'USDC',
        '4205.120000',
        '4205.12',
        'in',
      ],
    ]);
  });

  it('returns unknown movement fields as extra columns', () => {
    const raw = trade({ movements: [{ symbol: 'ETH', amount: '1', value: '2', contract: '0xdead' }] });
    const n = normalizer();
    n.observe(raw);
    expect([n.movementsSpec().columns.at(-1)?.key, n.movementRows(raw)[0]?.at(-1)]).toEqual([
      'contract',
      '0xdead',
    ]);
  });

  it('returns a null value cell for a movement without value', () => {
    const raw = trade({ movements: [{ symbol: 'ETH', amount: '1' }] });
    const n = normalizer();
    n.observe(raw);
    expect(n.movementRows(raw)[0]?.[5]).toBeNull();
  });
});

describe('createNormalizer changes', () => {
  const item = (overrides: Record<string, unknown> = {}) =>
    trade({ source: { sourceGuid: 'g-1', name: 'Kraken' }, ...overrides });

  it('returns the change columns in order', () => {
    expect(
      normalizer()
        .changesSpec()
        .columns.map((column) => column.key),
    ).toEqual([
      'id',
      'date',
      'last_modified',
      'deleted',
      'source_guid',
      'source_name',
      'type',
      'sub_type',
      'category',
      'protocol',
      'hash',
      'value_amount',
      'value_currency',
    ]);
  });

  it('returns the row of a timeline item', () => {
    const n = normalizer();
    n.observeChange(item());
    expect(n.changeRow(item())).toEqual([
      'tx_1',
      '2025-03-14T09:26:53.000Z',
      '2025-03-14T09:30:00.000Z',
      'no',
      'g-1',
      'Kraken',
      'trade',
      'swap',
      'trade',
      'Uniswap V3',
      '0xabc',
      '4210.55',
      'USD',
    ]);
  });

  it('returns deleted "yes" for a tombstone without a date', () => {
    const tombstone = { id: 'tx_1', deleted: true, lastModifiedDate: '2025-04-01T00:00:00.000Z' };
    const n = normalizer();
    n.observeChange(tombstone);
    expect(n.changeRow(tombstone).slice(0, 4)).toEqual(['tx_1', null, '2025-04-01T00:00:00.000Z', 'yes']);
  });

  it('throws for an item that is not deleted and has no date', () => {
    expect(() => normalizer().changeRow(item({ date: undefined }))).toThrow('field "date" is missing');
  });

  it('returns change extras independent of the extras of search transactions', () => {
    const n = normalizer();
    n.observe(trade({ memo: 'x' }));
    n.observeChange(item({ revision: 3 }));
    expect([n.transactionsSpec().columns.at(-1)?.key, n.changesSpec().columns.at(-1)?.key]).toEqual([
      'memo',
      'revision',
    ]);
  });

  it('returns unknown fields of a timeline item as extra columns', () => {
    const n = normalizer();
    n.observeChange(item({ revision: 3 }));
    expect([n.changesSpec().columns.at(-1)?.key, n.changeRow(item({ revision: 3 })).at(-1)]).toEqual([
      'revision',
      '3',
    ]);
  });
});
