import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExactNumber, parseJson, stringifyJson } from './exact-json.ts';
import { itemTexts, parseListBody } from './item-texts.ts';

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
