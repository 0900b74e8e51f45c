import { describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import { decodePartLine, encodePartLine } from './part-line.ts';

const fields = DEFAULT_SHAPE.fields;

describe('part lines', () => {
  it('carry the instant and id ahead of the JSON, and read back to the same JSON text', () => {
    const item = { id: 'a\tb"\n', date: '2025-01-05T10:00:00.000Z', memo: 'tab\there', amount: '1.50' };
    const line = encodePartLine(item, fields);
    const decoded = decodePartLine(line, fields);
    expect(decoded).toEqual({ at: Date.parse(item.date), id: item.id, json: JSON.stringify(item) });
    expect(JSON.parse(decoded.json)).toEqual(item);
  });

  it('read a line of bare JSON by parsing it, keeping the parsed item', () => {
    const item = { id: 7, date: 1_735_689_600_000 };
    expect(decodePartLine(JSON.stringify(item), fields)).toEqual({
      at: 1_735_689_600_000,
      id: '7',
      json: JSON.stringify(item),
      data: item,
    });
  });

  it('refuse a transaction whose date cannot be read, naming the field', () => {
    expect(() => encodePartLine({ id: 'x', date: 'yesterday' }, fields)).toThrow(
      /transaction x: field "date" is not a date/,
    );
  });
});
