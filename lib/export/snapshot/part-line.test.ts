import { describe, expect, it } from 'vitest';
import { parseJson } from '../../domain/index.ts';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import { decodePartLine, decodePartLineBytes, encodePartLine, partLineJson } from './part-line.ts';

const fields = DEFAULT_SHAPE.fields;

describe('part lines', () => {
  it('carry the instant and id ahead of the JSON, and read back to the same JSON text', () => {
    const item = { id: 'a\tb"\n', date: '2025-01-05T10:00:00.000Z', memo: 'tab\there', amount: '1.50' };
    const line = encodePartLine(item, fields);
    const decoded = decodePartLine(line, fields);
    expect(decoded).toEqual({
      at: Date.parse(item.date),
      id: item.id,
      json: JSON.stringify(item),
      plain: true,
    });
    expect(JSON.parse(decoded.json)).toEqual(item);
  });

  it('mark only the JSON of a page without exact numbers as plain, and keep exact tokens as sent', () => {
    const { value } = parseJson('{"id":"x","date":"2025-01-05T10:00:00.000Z","amount":1.50}');
    const exact = decodePartLine(encodePartLine(value as Record<string, unknown>, fields, true), fields);
    expect(exact.plain).toBeUndefined();
    expect(exact.json).toBe('{"id":"x","date":"2025-01-05T10:00:00.000Z","amount":1.50}');
    const plain = decodePartLine(
      encodePartLine({ id: 'p', date: 1_735_689_600_000, amount: 1.5 }, fields, false),
      fields,
    );
    expect(plain).toEqual({
      at: 1_735_689_600_000,
      id: 'p',
      json: '{"id":"p","date":1735689600000,"amount":1.5}',
      plain: true,
    });
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

  it('read from their bytes to the instant, id and JSON bytes that decoding the text gives', () => {
    const items: [Record<string, unknown>, boolean][] = [
      [{ id: 'tx-1', date: '2025-01-05T10:00:00.000Z', memo: 'é€😀' }, false],
      [{ id: 'ü "\\ id\t', date: '1969-12-31T23:59:59.500Z' }, false],
      [{ id: 42, date: 1_735_689_600_123 }, true],
      [{ id: '', date: 0 }, false],
    ];
    for (const [item, exact] of items) {
      let text: string;
      try {
        text = encodePartLine(item, fields, exact);
      } catch {
        continue;
      }
      const fromText = decodePartLine(text, fields);
      const fromBytes = decodePartLineBytes(Buffer.from(text, 'utf8'), fields);
      expect({ at: fromBytes.at, id: fromBytes.id, plain: fromBytes.plain }).toEqual({
        at: fromText.at,
        id: fromText.id,
        plain: fromText.plain === true,
      });
      expect(fromBytes.json.toString('utf8')).toBe(fromText.json);
    }
    const bare = JSON.stringify({ id: 'b', date: 1_735_689_600_000 });
    expect(decodePartLineBytes(Buffer.from(bare), fields)).toMatchObject({
      at: 1_735_689_600_000,
      id: 'b',
      plain: false,
      data: { id: 'b', date: 1_735_689_600_000 },
    });
  });

  it('write an item sent over several lines from its text, whole, even when the item given is cut down', () => {
    const sent =
      '{\n  "id": "x",\n  "date": "2025-01-05T10:00:00.000Z",\n  "memo": "a b",\n  "amount": 1.50\n}';
    const cutDown = { id: 'x', date: '2025-01-05T10:00:00.000Z' };
    expect(partLineJson(cutDown, false, sent.replace('1.50', '1.5'))).toBe(
      '{"id":"x","date":"2025-01-05T10:00:00.000Z","memo":"a b","amount":1.5}',
    );
    expect(partLineJson(cutDown, true, sent)).toBe(
      '{"id":"x","date":"2025-01-05T10:00:00.000Z","memo":"a b","amount":1.50}',
    );
    expect(partLineJson(cutDown, false, '{"id":"x"}')).toBe('{"id":"x"}');
  });
});
