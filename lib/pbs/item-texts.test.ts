import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExactNumber, parseJson, stringifyJson } from '../domain/index.ts';
import { itemTexts, parseListBody, parseListBodyFields } from './item-texts.ts';

describe('itemTexts', () => {
  it('returns the text of each item of the array at the path, as sent (spaces, escapes, number tokens kept)', () => {
    const body =
      ' { "page" : 1 , "items" : [ {"id":"a\\"}","n":1.50} , {"id": "b\\\\", "x":[1,{"y":"]"}]} ,"c\\u00e9", 12e3, null ] , "total":2 } ';

    expect(itemTexts(body, 'items')).toEqual([
      '{"id":"a\\"}","n":1.50}',
      '{"id": "b\\\\", "x":[1,{"y":"]"}]}',
      '"c\\u00e9"',
      '12e3',
      'null',
    ]);
  });

  it('follows a dotted path, takes the last of repeated keys (as JSON.parse does), and a bare array body', () => {
    expect(itemTexts('{"data":{"rows":[1]},"data":{"rows":[2,3]}}', 'data.rows')).toEqual(['2', '3']);
    expect(itemTexts('{"it\\u0065ms":[true]}', 'items')).toEqual(['true']);
    expect(itemTexts('[{"a":1},[]]', null)).toEqual(['{"a":1}', '[]']);
  });

  it('returns null when the path leads to no array', () => {
    expect(itemTexts('{"items":{}}', 'items')).toBeNull();
    expect(itemTexts('{"other":[]}', 'items')).toBeNull();
    expect(itemTexts('[1]', 'items')).toBeNull();
  });

  it('returns texts that parse to the items, for any JSON items, compact or indented', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue()), fc.constantFrom(undefined, 2), (items, indent) => {
        const body = JSON.stringify({ total: items.length, items, after: { items: 'no' } }, null, indent);
        const texts = itemTexts(body, 'items');
        expect(texts?.map((text) => JSON.parse(text))).toEqual(JSON.parse(body).items);
      }),
    );
  });
});

describe('parseListBody', () => {
  it('parses as parseJson does, number tokens a double would change kept exactly, with the items texts', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.oneof(
            fc.jsonValue().map((value) => JSON.stringify(value)),
            fc.constantFrom(
              '1.50',
              '1e3',
              '-0',
              '12345678901234567890',
              '0.1',
              '"a:1.50]"',
              '[1.0,{"x":-2E2}]',
            ),
          ),
        ),
        fc.constantFrom('1', '2.50'),
        (texts, page) => {
          const body = `{"page":${page},"items":[${texts.join(',')}]}`;
          const parsed = parseListBody(body, 'items');
          const expected = parseJson(body);
          expect(stringifyJson(parsed.value)).toBe(stringifyJson(expected.value));
          expect(parsed.exactNumbers).toBe(isExactlyNeeded(body));
          expect(parsed.itemTexts).toEqual(texts);
        },
      ),
    );
  });

  it('throws SyntaxError for a body that is not JSON, as JSON.parse does', () => {
    expect(() => parseListBody('{"items":[1,', 'items')).toThrow(SyntaxError);
  });
});

describe('parseListBodyFields', () => {
  const item = fc.record(
    {
      id: fc.oneof(fc.string(), fc.integer()),
      date: fc.constantFrom('2025-01-05T10:00:00.000Z', 1_735_689_600_000, null),
      meta: fc.oneof(fc.record({ ref: fc.string(), other: fc.jsonValue() }), fc.string(), fc.constant(null)),
      rest: fc.jsonValue(),
    },
    { requiredKeys: [] },
  );
  const token = fc.constantFrom('1.50', '1e3', '-0', '12345678901234567890', '0.1');
  const itemText = fc.oneof(
    item.map((value) => JSON.stringify(value)),
    fc.jsonValue().map((value) => JSON.stringify(value)),
    token.map((number) => `{"id":"x","amount":${number},"meta":{"ref":${number}}}`),
  );

  it('gives what parseListBody gives, each object item holding only the fields asked for', () => {
    fc.assert(
      fc.property(fc.array(itemText), token, (texts, total) => {
        const body = ` {"items" : [ ${texts.join(' ,')} ] , "total":${total}} `;
        const whole = parseListBody(body, 'items');
        const cut = parseListBodyFields(body, 'items', ['id', 'meta.ref']);
        const expected = (whole.value as { items: unknown[] }).items.map((value) =>
          value !== null && typeof value === 'object' && !Array.isArray(value) && !isExactNumber(value)
            ? onlyFields(value as Record<string, unknown>)
            : value,
        );
        expect(stringifyJson(cut.value)).toBe(stringifyJson({ ...(whole.value as object), items: expected }));
        expect(cut.exactNumbers).toBe(whole.exactNumbers);
        expect(cut.itemTexts).toEqual(texts);
      }),
    );
  });

  it('refuses exactly the bodies JSON.parse refuses', () => {
    const edit = fc.record({
      at: fc.nat(),
      remove: fc.nat({ max: 2 }),
      insert: fc.constantFrom('', ',', ']', '[', '}', '{', '"', ':', '\\', 'x', ' ', '1'),
    });
    fc.assert(
      fc.property(fc.array(itemText, { minLength: 1 }), edit, (texts, { at, remove, insert }) => {
        const valid = `{"page":1,"items":[${texts.join(',')}],"total":2}`;
        const cutAt = at % valid.length;
        const body = valid.slice(0, cutAt) + insert + valid.slice(cutAt + remove);
        expect(throws(() => parseListBodyFields(body, 'items', ['id']))).toBe(throws(() => JSON.parse(body)));
      }),
      { numRuns: 500 },
    );
  });

  it('cuts the items of a bare array body, and parses whole, without texts, a body whose items it cannot find', () => {
    expect(parseListBodyFields('[{"id":"a","x":1},2]', null, ['id'])).toEqual({
      value: [{ id: 'a' }, 2],
      exactNumbers: false,
      itemTexts: ['{"id":"a","x":1}', '2'],
    });
    expect(parseListBodyFields('{"items":{"id":"a","x":1}}', 'items', ['id'])).toEqual({
      value: { items: { id: 'a', x: 1 } },
      exactNumbers: false,
    });
  });
});

/** The fields `parseListBodyFields` keeps in the test above: `id` and `meta.ref`, where present. */
function onlyFields(value: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  if (value.id !== undefined) kept.id = value.id;
  const meta = value.meta;
  const ref = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>).ref : undefined;
  if (ref !== undefined) kept.meta = { ref };
  return kept;
}

function throws(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch {
    return true;
  }
}

/** Whether a body holds a number token a double would change: parsed losslessly, any token kept as text. */
function isExactlyNeeded(body: string): boolean {
  let kept = false;
  JSON.parse(
    JSON.stringify(parseJson(body).value, (_key, value) => {
      if (isExactNumber(value)) kept = true;
      return isExactNumber(value) ? value.value : value;
    }),
  );
  return kept;
}
