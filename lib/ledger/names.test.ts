/**
 * The journal's names for names in the data: injective over any set of names (property tests with
 * fast-check, lone surrogates and control characters included), always a name the format allows,
 * independent of the order the names are met in, and the natural form for a name no other shares.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ACCOUNT_SEGMENT, createChart, parseChart } from './chart.ts';
import { JournalNameError } from './errors.ts';
import { hledgerSymbols } from './formats/hledger.ts';
import { commodityNames } from './formats/plain-text.ts';
import { mapNames, nameRegistry } from './names.ts';

const RUNS = { numRuns: 200 };

/** Any UTF-16 text, lone surrogates included, short, with many near-collisions (few characters). */
const anyText = fc.string({
  unit: fc.oneof(
    fc.constantFrom(
      'a',
      'A',
      '.',
      '-',
      '_',
      ' ',
      '"',
      "'",
      ';',
      '\n',
      '\u0000',
      '\ud800',
      '\udc00',
      'é',
      '🚀',
    ),
    fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
  ),
  maxLength: 30,
});
const nameSets = fc.uniqueArray(fc.oneof(anyText, fc.string({ maxLength: 200 })), { maxLength: 25 });

const injective = (names: Map<string, { name: string }>) =>
  new Set([...names.values()].map((n) => n.name)).size === names.size;

describe('journal names', () => {
  it('gives any set of wallet ids or token symbols distinct account name segments Beancount and hledger take', () => {
    fc.assert(
      fc.property(nameSets, (originals) => {
        const names = mapNames(originals, ACCOUNT_SEGMENT, 'wallet id');
        expect(injective(names)).toBe(true);
        for (const { name } of names.values()) expect(name).toMatch(/^[A-Z0-9][A-Za-z0-9-]{0,127}$/);
      }),
      RUNS,
    );
  });

  it('gives any set of token symbols distinct Beancount commodities, none the operating currency or a keyword', () => {
    fc.assert(
      fc.property(nameSets, (tokens) => {
        const names = commodityNames(tokens, 'USD');
        expect(injective(names)).toBe(true);
        for (const { name } of names.values()) {
          expect(name).toMatch(/^[A-Z][A-Z0-9'._-]{0,22}[A-Z0-9]$/);
          expect(['USD', 'TRUE', 'FALSE', 'NULL']).not.toContain(name);
        }
      }),
      RUNS,
    );
  });

  it('gives any set of token symbols distinct hledger commodities without a quote, semicolon or line break, none the currency', () => {
    fc.assert(
      fc.property(nameSets, (tokens) => {
        const names = hledgerSymbols(tokens, 'USD');
        expect(injective(names)).toBe(true);
        for (const { name } of names.values()) {
          expect(name).toMatch(/^[^";\p{Cc}\u2028\u2029]+$/u);
          expect(name).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
          expect(Array.from(name).length).toBeLessThanOrEqual(128);
          expect(name).not.toBe('USD');
        }
      }),
      RUNS,
    );
  });

  it('names the same whatever order the names are met in, as the chart meets them while the engine runs', () => {
    fc.assert(
      fc.property(
        nameSets.chain((names) =>
          fc.tuple(fc.constant(names), fc.shuffledSubarray(names, { minLength: names.length })),
        ),
        ([originals, shuffled]) => {
          const registry = nameRegistry(ACCOUNT_SEGMENT, 'wallet id');
          for (const original of shuffled) registry.name(original);
          const all = mapNames(originals, ACCOUNT_SEGMENT, 'wallet id');
          for (const original of originals) expect(registry.final(original)).toBe(all.get(original)?.name);
        },
      ),
      RUNS,
    );
  });

  it('keeps the natural form of a name no other shares, and gives each of those that share one a hash of its name', () => {
    const names = mapNames(
      ['w.1', 'w-1', 'W_1', 'wallet-2', 'acc_582cda1f80df'],
      ACCOUNT_SEGMENT,
      'wallet id',
    );
    expect(names.get('wallet-2')?.name).toBe('Wallet-2');
    expect(names.get('acc_582cda1f80df')?.name).toBe('Acc-582cda1f80df');
    for (const shared of ['w.1', 'w-1', 'W_1']) expect(names.get(shared)?.name).toMatch(/^W-1-[0-9A-F]{8}$/);
  });

  it('refuses, naming the field and the value, a token whose account the chart gives another token', () => {
    const chart = createChart(parseChart({ asset: { tokens: { BTC: { code: 'Assets:Crypto:ETH' } } } }));
    chart.asset('BTC', 'A');
    const error = (() => {
      try {
        chart.asset('ETH', 'A');
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(JournalNameError);
    expect(error).toMatchObject({ field: 'token symbol', value: 'ETH' });
    expect((error as Error).message).toMatch(
      /^token symbol: "ETH" cannot be given an account of its own: Assets:Crypto:ETH is also the account of token symbol "BTC"/,
    );
  });
});
