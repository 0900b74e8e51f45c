import { describe, expect, it } from 'vitest';
import { PbsResponseError } from './errors.ts';
import { parseDateBounds, parseProtocols, validateIdRecords, validateTransactions } from './schemas.ts';
import { resolveShape } from './shape.ts';

const shape = resolveShape();
const tx = (extra: Record<string, unknown> = {}) => ({
  id: 't1',
  date: '2025-03-14T09:26:53.000Z',
  ...extra,
});

describe('validateTransactions', () => {
  it('returns the very same objects with unknown fields untouched', () => {
    const items = [tx({ custom: { nested: [1, '2'] }, amount: '0.000000000000000001' })];

    const result = validateTransactions(items, shape.fields, 'items', '/v2/transactions');

    expect(result[0]).toBe(items[0]);
    expect(result[0]).toEqual(tx({ custom: { nested: [1, '2'] }, amount: '0.000000000000000001' }));
  });

  it('throws PbsResponseError naming the item index and id field when the id is missing', () => {
    expect(() =>
      validateTransactions([tx(), { date: '2025-01-01T00:00:00Z' }], shape.fields, 'items', '/p'),
    ).toThrow(expect.objectContaining({ name: 'PbsResponseError', field: 'items[1].id' }));
  });

  it('throws PbsResponseError naming the date field when the date is not an instant', () => {
    expect(() => validateTransactions([tx({ date: 'yesterday' })], shape.fields, 'items', '/p')).toThrow(
      expect.objectContaining({ field: 'items[0].date' }),
    );
  });

  it('returns items whose id and date live at mapped nested paths', () => {
    const fields = { ...shape.fields, id: 'meta.txId', date: 'meta.at' };
    const items = [{ meta: { txId: 'x', at: 1741944413000 } }];

    expect(validateTransactions(items, fields, null, '/p')).toBe(items);
  });

  it('returns deleted timeline items that have no date', () => {
    const items = [{ id: 'gone', deleted: true }];

    expect(validateTransactions(items, shape.fields, 'items', '/p', 'deleted')).toBe(items);
  });

  it('throws PbsResponseError for an item that is not an object', () => {
    expect(() => validateTransactions(['x'], shape.fields, 'items', '/p')).toThrow(PbsResponseError);
  });

  it('throws the schema messages for an array item, a numeric id and a date that is not finite', () => {
    const message = (items: unknown[]) => {
      try {
        validateTransactions(items, shape.fields, 'items', '/p');
      } catch (error) {
        return [(error as PbsResponseError).field, (error as Error).message];
      }
      return null;
    };

    expect(message([[]])).toEqual(['items[0]', expect.stringContaining('expected object')]);
    expect(message([tx({ id: 7 })])).toEqual(['items[0].id', expect.stringContaining('expected string')]);
    expect(message([tx({ date: Number.NaN })])?.[0]).toBe('items[0].date');
    expect(message([tx({ date: Number.POSITIVE_INFINITY })])?.[0]).toBe('items[0].date');
    expect(message([tx({ date: null })])?.[0]).toBe('items[0].date');
  });

  it('returns items whose date is epoch milliseconds or an ISO instant with any offset', () => {
    const items = [tx({ date: 1_741_944_413_000 }), tx({ date: '2025-03-14T10:26:53+01:00' })];

    expect(validateTransactions(items, shape.fields, 'items', '/p')).toBe(items);
  });

  it('throws PbsResponseError naming the date of an instant without an offset, when no zone is configured', () => {
    expect(() =>
      validateTransactions([tx({ date: '2025-03-14T09:26:53' })], shape.fields, 'items', '/p'),
    ).toThrow(/items\[0\]\.date: "2025-03-14T09:26:53" has no offset .*shape\.instants\.offsetlessZone/);
  });

  it('throws PbsResponseError naming the date of epoch seconds read as milliseconds', () => {
    expect(() => validateTransactions([tx({ date: 1_741_944_413 })], shape.fields, 'items', '/p')).toThrow(
      /items\[0\]\.date: .*1970.*epochUnit to "seconds"/,
    );
  });
});

describe('validateIdRecords', () => {
  it('throws PbsResponseError naming the index when an account id is not a string', () => {
    expect(() => validateIdRecords([{ id: 'a' }, { id: 7 }], 'items', '/v2/accounts')).toThrow(
      expect.objectContaining({ field: 'items[1].id' }),
    );
  });
});

describe('parseDateBounds', () => {
  it('returns Dates for ISO instants', () => {
    expect(
      parseDateBounds(
        { earliestDate: '2024-01-01T00:00:00.000Z', latestDate: '2025-01-01T00:00:00.000Z' },
        shape,
        '/p',
      ),
    ).toEqual({
      earliest: new Date('2024-01-01T00:00:00.000Z'),
      latest: new Date('2025-01-01T00:00:00.000Z'),
    });
  });

  it('returns nulls for an empty portfolio', () => {
    expect(parseDateBounds({ earliestDate: null, latestDate: null }, shape, '/p')).toEqual({
      earliest: null,
      latest: null,
    });
  });

  it('returns bounds read from other field names', () => {
    const custom = resolveShape({ dateBounds: { earliestPath: 'range.from', latestPath: 'range.to' } });

    expect(
      parseDateBounds({ range: { from: '2024-01-01T00:00:00Z', to: '2025-01-01T00:00:00Z' } }, custom, '/p')
        .latest,
    ).toEqual(new Date('2025-01-01T00:00:00Z'));
  });

  it('throws PbsResponseError naming a missing bound', () => {
    expect(() => parseDateBounds({ earliestDate: null }, shape, '/p')).toThrow(
      expect.objectContaining({ field: 'latestDate' }),
    );
  });
});

describe('parseProtocols', () => {
  it('returns the protocol names of the default field', () => {
    expect(parseProtocols({ defiProtocols: ['Aave V3'] }, shape, '/p')).toEqual(['Aave V3']);
  });

  it('returns the protocol names of a bare array', () => {
    expect(parseProtocols(['Lido'], resolveShape({ metadata: { protocolsPath: null } }), '/p')).toEqual([
      'Lido',
    ]);
  });

  it('throws PbsResponseError naming the entry that is not a string', () => {
    expect(() => parseProtocols({ defiProtocols: ['a', 3] }, shape, '/p')).toThrow(
      expect.objectContaining({ field: 'defiProtocols.1' }),
    );
  });
});
