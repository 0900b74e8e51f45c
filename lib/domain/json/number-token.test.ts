import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mayHoldInexactNumbers } from './exact-json.ts';
import { isInexactNumberToken } from './number-token.ts';

/** The rule itself: a double does not give the token back as the same text. */
const roundTripChanges = (token: string) => String(Number(token)) !== token;

/** Every string of `alphabet` of length 1 to `maxLength`. */
function* allStrings(alphabet: readonly string[], maxLength: number): Generator<string> {
  let level = [''];
  for (let length = 1; length <= maxLength; length++) {
    const next: string[] = [];
    for (const prefix of level) for (const character of alphabet) next.push(prefix + character);
    yield* next;
    level = next;
  }
}

/** Number tokens near every edge of the rule: digit counts around 15-17, tiny and huge magnitudes. */
const numberToken = fc
  .tuple(
    fc.constantFrom('', '-'),
    fc.oneof(fc.constant('0'), fc.stringMatching(/^[1-9]\d{0,24}$/)),
    fc.option(fc.stringMatching(/^\d{1,22}$/), { nil: undefined }),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.nat(330)), {
      nil: undefined,
    }),
  )
  .map(([sign, whole, fraction, exponent]) => {
    const point = fraction === undefined ? '' : `.${fraction}`;
    return `${sign}${whole}${point}${exponent === undefined ? '' : exponent.join('')}`;
  });

/** What doubles are written as (canonical, so mostly exact), and those texts padded or cut. */
const doubleText = fc
  .tuple(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom('', '0', '00', '1'))
  .map(([value, tail]) => `${String(value)}${tail}`);

describe('isInexactNumberToken', () => {
  it('decides as String(Number(token)) !== token for every short token of number characters', () => {
    const alphabet = ['0', '1', '9', '.', '-', '+', 'e', 'E'];
    for (const token of allStrings(alphabet, 6)) {
      if (isInexactNumberToken(token, 0, token.length) !== roundTripChanges(token)) {
        expect.fail(`${token}: ${isInexactNumberToken(token, 0, token.length)}`);
      }
    }
  });

  it('decides as String(Number(token)) !== token for number tokens of any size, in place in a longer text', () => {
    fc.assert(
      fc.property(fc.oneof(numberToken, doubleText), fc.string(), fc.string(), (token, before, after) => {
        const text = `${before}${token}${after}`;
        const start = before.length;
        expect(isInexactNumberToken(text, start, start + token.length)).toBe(roundTripChanges(token));
      }),
      { numRuns: 20_000 },
    );
  });

  it('decides as String(Number(token)) !== token at the edges: 15 to 17 digits, 1e-6, 1e21, -0', () => {
    const edges = [
      '123456789012345',
      '1234567890123456',
      '12345678901234567',
      '0.12345678901234',
      '0.123456789012345',
      '9007199254740993',
      '999999999999999',
      '0.000001',
      '0.0000001',
      '-0.000001',
      '0.0000012',
      '100000000000000000000',
      '1000000000000000000000',
      '-0',
      '-0.5',
      '0',
      '-0.0',
      '1.0',
      '01',
      '1.',
      '.5',
      '-',
      '1e21',
      '1e+21',
    ];
    for (const token of edges) {
      expect([token, isInexactNumberToken(token, 0, token.length)]).toEqual([token, roundTripChanges(token)]);
    }
  });
});

/** The scan as it was first written: every match of the token pattern, checked by the round trip. */
function mayHoldInexactNumbersReference(text: string): boolean {
  const pattern = /(?:^|[:,[])[ \t\n\r]*(-?\d[\d.eE+-]*)(?=[ \t\n\r]*(?:[,}\]]|$))/g;
  for (const match of text.matchAll(pattern)) {
    if (roundTripChanges(match[1] as string)) return true;
  }
  return false;
}

describe('mayHoldInexactNumbers', () => {
  it('answers as the plain scan does (every token, String(Number(token)) !== token) on any text', () => {
    const piece = fc.oneof(
      numberToken,
      doubleText,
      fc.constantFrom(':', ',', '[', ']', '{', '}', ' ', '\n', '"', 'a', 'e', '-', '.', '0', '1.50', '"x":'),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 12 }), (pieces) => {
        const text = pieces.join('');
        expect(mayHoldInexactNumbers(text)).toBe(mayHoldInexactNumbersReference(text));
      }),
      { numRuns: 20_000 },
    );
  });

  it('answers as the plain scan does for a body that is one number, spaces around it or not', () => {
    fc.assert(
      fc.property(numberToken, fc.constantFrom('', ' ', '\n\t'), (token, space) => {
        const text = `${space}${token}${space}`;
        expect(mayHoldInexactNumbers(text)).toBe(mayHoldInexactNumbersReference(text));
      }),
      { numRuns: 5_000 },
    );
  });
});
