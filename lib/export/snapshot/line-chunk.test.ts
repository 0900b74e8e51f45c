import { describe, expect, it } from 'vitest';
import { appendLine, mostLineBytes } from './line-chunk.ts';

describe('one NDJSON line encoded into a chunk', () => {
  const texts = ['', 'plain', 'é', '€ and 𝄞', '\u0000\u007f\u0080\u07ff\u0800\uffff', '"quoted\\"'];

  it('writes prefix, JSON text or its bytes, suffix and a newline, within the bytes it promises', () => {
    for (const prefix of ['', '17\t"tx"\tp', 'ü']) {
      for (const suffix of ['', '}']) {
        for (const text of texts) {
          for (const json of [text, new TextEncoder().encode(text)]) {
            const chunk = Buffer.alloc(mostLineBytes(json, prefix, suffix) + 4, 0xff);
            const end = appendLine(chunk, 2, json, prefix, suffix);
            const expected = Buffer.from(`${prefix}${text}${suffix}\n`, 'utf8');
            expect(chunk.subarray(2, end).equals(expected)).toBe(true);
            // Nothing written outside the line.
            expect(chunk[0]).toBe(0xff);
            expect(chunk[1]).toBe(0xff);
            expect(chunk.subarray(end).every((byte) => byte === 0xff)).toBe(true);
          }
        }
      }
    }
  });
});
