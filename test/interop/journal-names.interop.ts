/**
 * Journals no name can break (issue #37, items 4 and 8): wallet ids that differ only in punctuation
 * or case, and token symbols with line breaks, `;`, quotes, keywords of the formats, the reporting
 * currency in lower case, a long symbol and every hostile text of the simulator, each get an
 * account, a commodity and month-end balance assertions of their own, as Debian's hledger and
 * bean-check (and bean-report, bean-query) read the files: both checks pass, each tool finds one
 * transaction per journal entry, and every wallet and token holds what it bought.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Big } from '../../lib/domain/index.ts';
import { HOSTILE_TEXTS } from '../../lib/simulator/data.ts';
import { leg, tx } from '../support/gains.ts';
import { type JournalRun, runJournal } from '../support/journal.ts';
import { tool } from './support/tool.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'journal-names-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** What hledger's JSON says of an amount. */
interface HledgerAmount {
  acommodity: string;
  aquantity: { decimalMantissa: number; decimalPlaces: number };
}

/** A transaction as `hledger print -O json` gives it. */
interface HledgerTransaction {
  tdescription: string;
  tpostings: {
    paccount: string;
    pamount: HledgerAmount[];
    pbalanceassertion: { baamount: HledgerAmount } | null;
  }[];
}

const quantity = (a: HledgerAmount) =>
  new Big(a.aquantity.decimalMantissa).div(new Big(10).pow(a.aquantity.decimalPlaces)).toFixed();

/** Writes a run's hledger and Beancount files; both checks must pass without a word. */
async function checkedFiles(name: string, run: JournalRun): Promise<{ hledger: string; beancount: string }> {
  const hledger = join(dir, `${name}.hledger`);
  const beancount = join(dir, `${name}.beancount`);
  await writeFile(hledger, run.files.find((f) => f.name === 'journal.hledger')?.body as string);
  await writeFile(beancount, run.files.find((f) => f.name === 'journal.beancount')?.body as string);
  expect(await tool('hledger', ['-f', hledger, 'check', '--strict'])).toEqual({ code: 0, output: '' });
  expect(await tool('bean-check', [beancount])).toEqual({ code: 0, output: '' });
  return { hledger, beancount };
}

/**
 * hledger's reading of the journal: the entries (the month ends' assertion transactions apart),
 * what each asset account holds of each commodity, and the quantities asserted for it.
 */
async function hledgerReading(file: string) {
  const printed = await tool('hledger', ['-f', file, 'print', '-O', 'json']);
  expect(printed.code).toBe(0);
  const all = JSON.parse(printed.output) as HledgerTransaction[];
  const entries = all.filter((t) => t.tdescription !== 'Balances at the month end (assertions)');
  const held = new Map<string, Big>();
  const asserted = new Map<string, string[]>();
  for (const t of all)
    for (const p of t.tpostings) {
      if (!p.paccount.startsWith('Assets:Crypto:')) continue;
      for (const a of p.pamount) {
        const key = `${p.paccount}\u0000${a.acommodity}`;
        held.set(key, (held.get(key) ?? new Big(0)).plus(quantity(a)));
      }
      const b = p.pbalanceassertion?.baamount;
      if (b !== undefined) {
        const key = `${p.paccount}\u0000${b.acommodity}`;
        asserted.set(key, [...(asserted.get(key) ?? []), quantity(b)]);
      }
    }
  return { entries: entries.length, held, asserted };
}

/** bean-report's count of directives of a kind (`Transaction`, `Balance`). */
async function beancountDirectives(file: string): Promise<Record<string, number>> {
  const report = await tool('bean-report', [file, 'stats-directives']);
  expect(report.code).toBe(0);
  return Object.fromEntries(
    [...report.output.matchAll(/^(\w+)\s+(\d+)$/gm)].map((m) => [m[1] as string, Number(m[2])]),
  );
}

/** bean-query's sum of each asset account's postings per commodity. */
async function beancountHeld(file: string): Promise<Map<string, string>> {
  const query =
    'SELECT account, currency, sum(number) AS n WHERE account ~ "^Assets:Crypto:" GROUP BY account, currency';
  const result = await tool('bean-query', ['-f', 'csv', file, query]);
  expect(result.code).toBe(0);
  const [, ...lines] = result.output.trim().split('\n');
  return new Map(
    lines.map((line) => {
      const [account, currency, n] = line.split(',').map((cell) => cell.trim());
      return [`${account}\u0000${currency}`, new Big(n as string).toFixed()];
    }),
  );
}

/** Each name buys `i + 1` units for `10 × (i + 1)` USD, a minute after the one before. */
function buys(names: readonly string[], as: 'wallet' | 'token') {
  return names.map((name, i) =>
    tx({
      id: `buy-${i}`,
      date: new Date(Date.parse('2025-01-02T00:00:00.000Z') + i * 60_000).toISOString(),
      ...(as === 'wallet' ? { accountId: name } : {}),
      movements: [leg(as === 'wallet' ? 'ETH' : name, String(i + 1), String(10 * (i + 1)))],
    }),
  );
}

const bought = (names: readonly string[]) => names.map((_, i) => String(i + 1)).sort();
const MONTH_ENDS = 12;

describe('journals whose wallet ids and token symbols would break them, read back by hledger and bean-check', () => {
  it("gives wallets whose ids differ only in punctuation or case (w.1, w-1, W_1), and the simulator's hostile texts as wallet ids, an account and a balance assertion each", async () => {
    const wallets = ['w.1', 'w-1', 'W_1', ...HOSTILE_TEXTS];
    const run = await runJournal(buys(wallets, 'wallet'), {
      gains: { pooling: 'account' },
      journal: { chart: { asset: { perWallet: true } } },
    });
    const { hledger, beancount } = await checkedFiles('wallets', run);

    const read = await hledgerReading(hledger);
    expect(read.entries).toBe(run.manifest.entries);
    // One account per wallet, each holding what that wallet bought, asserted at every month end.
    expect(read.held.size).toBe(wallets.length);
    expect([...read.held.values()].map((q) => q.toFixed()).sort()).toEqual(bought(wallets));
    for (const [key, q] of read.held)
      expect(read.asserted.get(key)).toEqual(Array(MONTH_ENDS).fill(q.toFixed()));

    const directives = await beancountDirectives(beancount);
    expect(directives.Transaction).toBe(run.manifest.entries);
    expect(directives.Balance).toBe(wallets.length * MONTH_ENDS);
    const held = await beancountHeld(beancount);
    expect(held.size).toBe(wallets.length);
    expect([...held.values()].sort()).toEqual(bought(wallets));
  });

  it("gives token symbols with a line break, ';', quotes, Beancount's keywords, usd in a USD journal, a long symbol and the simulator's hostile texts a commodity, an account and a balance assertion each", async () => {
    const tokens = [
      ...new Set([
        'A\nB',
        'X\n2025-01-01 * injected',
        'X;Y',
        'X"Y',
        "X'Y",
        'abcdefghijklmnopqrs-tuvwxyz',
        'usd',
        'TRUE',
        'NULL',
        'stETH',
        'STETH',
        ...HOSTILE_TEXTS,
      ]),
    ];
    const run = await runJournal(buys(tokens, 'token'));
    const { hledger, beancount } = await checkedFiles('tokens', run);

    const read = await hledgerReading(hledger);
    expect(read.entries).toBe(run.manifest.entries);
    const commodities = (keys: Iterable<string>) => new Set([...keys].map((key) => key.split('\u0000')[1]));
    // One account and one commodity per token, each holding what was bought, asserted monthly.
    expect(read.held.size).toBe(tokens.length);
    expect(new Set([...read.held.keys()].map((key) => key.split('\u0000')[0])).size).toBe(tokens.length);
    expect([...read.held.values()].map((q) => q.toFixed()).sort()).toEqual(bought(tokens));
    for (const [key, q] of read.held)
      expect(read.asserted.get(key)).toEqual(Array(MONTH_ENDS).fill(q.toFixed()));
    expect(commodities(read.held.keys()).has('USD')).toBe(false);

    const directives = await beancountDirectives(beancount);
    expect(directives.Transaction).toBe(run.manifest.entries);
    expect(directives.Balance).toBe(tokens.length * MONTH_ENDS);
    const held = await beancountHeld(beancount);
    expect(held.size).toBe(tokens.length);
    expect(commodities(held.keys()).size).toBe(tokens.length);
    expect(commodities(held.keys()).has('USD')).toBe(false);
    expect([...held.values()].sort()).toEqual(bought(tokens));
  });
});
