import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isExactNumber, mayHoldInexactNumbers, parseJson, stringifyJson } from './exact-json.ts';

/** A JSON number token of any form: sign, up to 25 digits, a fraction with trailing zeros, an exponent. */
const numberToken = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.stringMatching(/^(0|[1-9]\d{0,24})$/),
    fc.option(fc.stringMatching(/^\d{1,20}$/), { nil: undefined }),
    fc.option(
      fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 40 })),
      {
        nil: undefined,
      },
    ),
  )
  .map(([sign, whole, fraction, exponent]) => {
    const point = fraction === undefined ? '' : `.${fraction}`;
    const power = exponent === undefined ? '' : `${exponent[0]}${exponent[1]}${exponent[2]}`;
    return `${sign}${whole}${point}${power}`;
  });

/** Compact JSON text whose numbers are tokens as typed and whose strings hold `:`, `,`, digits. */
const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    numberToken,
    fc
      .string({ unit: fc.constantFrom('a', '1', ':', ',', ']', '}', '.', 'e', '-', ' ', '"', 'é') })
      .map((text) => JSON.stringify(text)),
    fc.constantFrom('true', 'false', 'null'),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,6}$/), tie('value')), {
        maxLength: 4,
        selector: ([key]) => key,
      })
      .map((entries) => `{${entries.map(([key, value]) => `${JSON.stringify(key)}:${value}`).join(',')}}`),
  ),
})).value;

describe('parseJson and stringifyJson', () => {
  it('give back any compact JSON text byte for byte, every number token as typed', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        expect(stringifyJson(parseJson(text).value)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it('keep exactly the tokens a double would change as text, the others as numbers', () => {
    fc.assert(
      fc.property(numberToken, (token) => {
        const [value] = parseJson(`[${token}]`).value as unknown[];
        const doubleKeepsIt = String(Number(token)) === token;
        expect(isExactNumber(value) ? String(value) : value).toEqual(doubleKeepsIt ? Number(token) : token);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('mayHoldInexactNumbers', () => {
  it('is false only for text that JSON.parse and JSON.stringify give back unchanged', () => {
    fc.assert(
      fc.property(jsonText, (text) => {
        if (!mayHoldInexactNumbers(text)) expect(JSON.stringify(JSON.parse(text))).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['1234567890.123456789012345678'],
    ['-1842946284.54983280999'],
    ['12345678901234567890123'],
    ['1.50'],
    ['1e3'],
    ['-0'],
    ['0.0000001'],
  ])('finds %s among ordinary fields', (token) => {
    expect(mayHoldInexactNumbers(`{"date":"2025-03-14T09:26:53.000Z","page":1,"amount":${token}}`)).toBe(
      true,
    );
  });

  it('passes a body of canonical numbers and date-times', () => {
    expect(
      mayHoldInexactNumbers(
        '{"items":[{"d":"2025-03-14T09:26:53.000Z","n":1.5}],"page":1,"totalItems":97400}',
      ),
    ).toBe(false);
  });
});
