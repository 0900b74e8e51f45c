import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemTexts } from './item-texts.ts';

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
