import { describe, expect, it } from 'vitest';
import { SheetNames } from './sheet-names.ts';

describe('SheetNames', () => {
  it('returns characters Excel forbids replaced by underscores', () => {
    expect(new SheetNames().allocate('a[b]c:d*e?f/g\\h')).toBe('a_b_c_d_e_f_g_h');
  });

  it('returns names cut to 31 characters', () => {
    expect(new SheetNames().allocate('x'.repeat(40))).toHaveLength(31);
  });

  it('returns a continuation name that keeps its suffix within 31 characters', () => {
    expect(new SheetNames().allocate('x'.repeat(40), 2)).toBe(`${'x'.repeat(27)} (2)`);
  });

  it('returns a numbered name for a case-insensitive clash', () => {
    const names = new SheetNames();
    names.allocate('Trades');

    expect(names.allocate('TRADES')).toBe('TRADES (2)');
  });

  it('returns Sheet for empty, apostrophe-only and reserved titles', () => {
    const names = new SheetNames();

    expect([names.allocate(''), names.allocate("''"), names.allocate('History')]).toEqual([
      'Sheet',
      'Sheet (2)',
      'Sheet (3)',
    ]);
  });

  it('returns names without leading or trailing apostrophes', () => {
    expect(new SheetNames().allocate("'Quoted'")).toBe('Quoted');
  });
});
