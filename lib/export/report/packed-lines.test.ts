import { describe, expect, it } from 'vitest';
import { createPackedLines } from './packed-lines.ts';

describe('packed lines', () => {
  it('gives back every text as it was added, in order, across chunks and more than once', () => {
    // Chunks of 64 characters: most texts are deflated, the last few are not yet.
    const packed = createPackedLines(64);
    const texts = Array.from({ length: 200 }, (_, index) =>
      JSON.stringify({
        index,
        token: index % 3 === 0 ? 'ÉTH 🦊' : 'BTC',
        note: index % 7 === 0 ? '' : '\ud800',
      }),
    );
    packed.add(texts.slice(0, 1));
    packed.add([]);
    packed.add(texts.slice(1, 150));
    packed.add(texts.slice(150));
    expect([...packed.texts()]).toEqual(texts);
    expect([...packed.texts()]).toEqual(texts);
  });

  it('keeps empty texts and gives nothing when nothing was added', () => {
    expect([...createPackedLines(4).texts()]).toEqual([]);
    const packed = createPackedLines(4);
    packed.add(['', 'a', '', '']);
    packed.add(['']);
    expect([...packed.texts()]).toEqual(['', 'a', '', '', '']);
  });
});
