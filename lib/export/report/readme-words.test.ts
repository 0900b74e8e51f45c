import { describe, expect, it } from 'vitest';
import { WARNING_WORDS, warningsByKind } from './readme-words.ts';

const KINDS = ['transfer-pair', 'cost-basis', 'missing-lots', 'value', 'spam', 'category', 'opening-lots'];

describe('the Read me words of the warning kinds', () => {
  it('name, for each kind, the adjustment that resolves it, or say that none does', () => {
    const missing = Object.entries(WARNING_WORDS)
      .filter(
        ([, words]) =>
          !KINDS.some((kind) => words.includes(`"${kind}"`)) && !/no adjustment resolves it/i.test(words),
      )
      .map(([kind]) => kind);
    expect(missing).toEqual([]);
    expect(WARNING_WORDS['missing-cost-basis']).toContain('"cost-basis" adjustment');
    expect(WARNING_WORDS['zero-basis']).toContain('"missing-lots" adjustment');
  });
});

describe('warningsByKind', () => {
  it('leaves out the warnings the adjustments resolved', async () => {
    const table = {
      spec: {
        name: 'gains_warnings',
        title: 'Warnings',
        columns: [
          { key: 'kind', header: 'Kind', kind: 'text' as const },
          { key: 'resolution', header: 'Resolution', kind: 'text' as const },
        ],
      },
      async *rows() {
        yield ['zero-basis', 'open'];
        yield ['zero-basis', 'resolved by m1'];
        yield ['missing-value', 'resolved by v1'];
      },
    };
    expect([...(await warningsByKind([table]))]).toEqual([['zero-basis', 1]]);
  });
});
