import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from './utf8.ts';

/** Bytes of mostly ASCII with every kind of other byte among them: lead, continuation, invalid. */
const bodyBytes = fc
  .array(
    fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 0, max: 0x7f }) },
      fc.integer({ min: 0x80, max: 0xff }),
    ),
    {
      maxLength: 300,
    },
  )
  .map((values) => Buffer.from(values));

describe('decodeUtf8', () => {
  it("gives Buffer#toString('utf8')'s text for any bytes, malformed UTF-8 included, whatever the piece size", () => {
    fc.assert(
      fc.property(bodyBytes, fc.constantFrom(1, 2, 3, 5, 16, 1024), (bytes, pieceBytes) => {
        expect(decodeUtf8(bytes, pieceBytes)).toBe(bytes.toString('utf8'));
      }),
      { numRuns: 5_000 },
    );
  });

  it('gives back any text encoded as UTF-8: accents, symbols, emoji, a byte-order mark', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 200 }),
        fc.constantFrom(1, 4, 1024),
        (text, pieceBytes) => {
          const withBom = `\uFEFF${text}`;
          expect(decodeUtf8(Buffer.from(withBom, 'utf8'), pieceBytes)).toBe(withBom);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('decodes a large mostly-ASCII body with a few characters far apart', () => {
    const text = `${'{"a":"x"},'.repeat(20_000)}"é"${'[1,2],'.repeat(20_000)}"✓😀"`;
    expect(decodeUtf8(Buffer.from(text, 'utf8'))).toBe(text);
    expect(decodeUtf8(Buffer.alloc(0))).toBe('');
  });
});
