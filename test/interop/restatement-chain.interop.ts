/**
 * A closed month changed twice, booked with the accountants' own tools (issue 37, item 6): with
 * Debian's hledger, the closed set's journal read with the first and then the second
 * restatement's adjusting entries has the balances of a fresh export of the month as the service
 * now holds it, at cost and in tokens; with Beancount, the closed journal including both
 * adjusting files (the second declares nothing the closed journal or the first declared) passes
 * `bean-check`.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainScenario, runChainScenario } from '../close/support/restatement-chain.ts';

const run = promisify(execFile);
const hledger = async (files: string[], ...args: string[]) =>
  (await run('hledger', [...files.flatMap((file) => ['-f', file]), ...args])).stdout;

describe('two restatements of a closed month in hledger and Beancount (closed + first + second = fresh)', () => {
  let scenario: ChainScenario;
  let booked: string[];
  let fresh: string[];

  beforeAll(async () => {
    scenario = await runChainScenario('csv,beancount,hledger');
    booked = [
      join(scenario.closedRun, 'acme_2025-10_journal.hledger'),
      ...scenario.restatements.map((r) => join(r, 'acme_2025-10_adjusting_journal.hledger')),
    ];
    fresh = [join(scenario.freshRun, 'acme_2025-10_journal.hledger')];
  }, 300_000);
  afterAll(async () => {
    await scenario?.close();
  });

  // Flat, no total line (an account at 0 is not shown).
  const balance = ['bal', '--flat', '--no-total'];

  it('reads the closed journal with both restatements (every entry balanced, every assertion held)', async () => {
    expect(booked).toHaveLength(3);
    await expect(hledger(booked, 'check', '--strict')).resolves.toBeDefined();
  });

  it('balances every account at cost as the fresh export does, and not with the first restatement alone', async () => {
    const expected = await hledger(fresh, ...balance, '-B');
    expect(await hledger(booked.slice(0, 2), ...balance, '-B')).not.toEqual(expected);
    expect(await hledger(booked, ...balance, '-B')).toEqual(expected);
  });

  it('holds the tokens the fresh export holds, account by account', async () => {
    const tokens = [...balance, 'not:cur:USD'];
    expect(await hledger(booked, ...tokens)).toEqual(await hledger(fresh, ...tokens));
  });

  it('passes bean-check with both adjusting files included in the closed Beancount journal', async () => {
    const closedJournal = join(scenario.closedRun, 'acme_2025-10_journal.beancount');
    const includes = scenario.restatements.map(
      (r) => `include "${join(r, 'acme_2025-10_adjusting_journal.beancount')}"`,
    );
    const books = join(scenario.dir, 'books-with-both.beancount');
    await writeFile(books, `${await readFile(closedJournal, 'utf8')}\n${includes.join('\n')}\n`);
    await expect(run('bean-check', [books])).resolves.toBeDefined();
  });
});
