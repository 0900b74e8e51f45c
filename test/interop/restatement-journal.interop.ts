/**
 * The accountants' own tool agrees with a restatement's adjusting entries (issue 28): with
 * Debian's hledger (1.25), the closed set's hledger journal read together with the adjusting
 * entries' journal has, at the adjusting date, the balances of the corrected journal (a fresh
 * export of the changed October): at cost in the reporting currency (`bal -B`), and in tokens.
 * The Beancount file of the adjusting entries, included in the closed Beancount journal, passes
 * `bean-check` (it does not open again what the closed journal opened).
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JournalScenario, runJournalScenario } from '../close/support/journal-restatement.ts';

const run = promisify(execFile);
const hledger = async (files: string[], ...args: string[]) =>
  (await run('hledger', [...files.flatMap((file) => ['-f', file]), ...args])).stdout;

describe('adjusting entries in hledger (closed + adjusting = corrected)', () => {
  let scenario: JournalScenario;
  let closed: string[];
  let corrected: string[];

  beforeAll(async () => {
    scenario = await runJournalScenario('csv,beancount,hledger');
    closed = [
      join(scenario.closedRun, 'acme_2025-10_journal.hledger'),
      join(scenario.restatement, 'acme_2025-10_adjusting_journal.hledger'),
    ];
    corrected = [join(scenario.freshRun, 'acme_2025-10_journal.hledger')];
  }, 240_000);
  afterAll(async () => {
    await scenario?.close();
  });

  // Up to the adjusting date (1 November) included; flat, no total line (an account at 0 is not shown).
  const balance = ['bal', '--flat', '--no-total', '-e', '2025-11-02'];

  it('reads the closed journal with the adjusting entries (every entry balanced, every assertion held)', async () => {
    await expect(hledger(closed, 'check', '--strict')).resolves.toBeDefined();
    await expect(hledger(corrected, 'check', '--strict')).resolves.toBeDefined();
  });

  it('balances every account at cost as the corrected journal does', async () => {
    const before = await hledger([closed[0] as string], ...balance, '-B');
    const after = await hledger(closed, ...balance, '-B');
    expect(after).not.toEqual(before);
    expect(after).toEqual(await hledger(corrected, ...balance, '-B'));
  });

  it('holds the tokens the corrected journal holds, account by account', async () => {
    const tokens = [...balance, 'not:cur:USD'];
    expect(await hledger(closed, ...tokens)).toEqual(await hledger(corrected, ...tokens));
  });

  it('writes the adjusting entries in Beancount too, which bean-check accepts included in the closed journal', async () => {
    const closedJournal = join(scenario.closedRun, 'acme_2025-10_journal.beancount');
    const adjusting = join(scenario.restatement, 'acme_2025-10_adjusting_journal.beancount');
    // Beancount's way of reading two files: the closed journal (its options) includes the other.
    const books = join(scenario.dir, 'books-with-adjusting.beancount');
    await writeFile(books, `${await readFile(closedJournal, 'utf8')}\ninclude "${adjusting}"\n`);
    await expect(run('bean-check', [books])).resolves.toBeDefined();
    // The include is read: its entry is in the books.
    const query = "SELECT DISTINCT entry_meta('entry') WHERE date = 2025-11-01";
    const { stdout } = await run('bean-query', [books, query]);
    expect(stdout).toContain('restatement:2025-10:');
  });
});
