/**
 * A closed month changed twice (issue 37, items 5 and 6): a check that finds nothing new since
 * the last restatement publishes none; the second restatement supersedes the first, and the
 * closed journal plus every restatement's adjusting entries, booked in sequence, balance as a
 * fresh export of the month as the service now holds it (summed here from the CSV files alone,
 * csv-parse and big.js; the interop suite checks the same with hledger and bean-check).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ChainScenario, runChainScenario } from './support/restatement-chain.ts';

type Row = Record<string, string>;
const csv = async (file: string) => parse(await readFile(file), { bom: true, columns: true }) as Row[];
const ADJUSTING = 'acme_2025-10_adjusting_journal.csv';

/** Debit − credit and quantity per `account · currency · token` (zero sums left out). */
function balances(...journals: Row[][]): Map<string, { net: string; quantity: string }> {
  const sums = new Map<string, { net: Big; quantity: Big }>();
  for (const row of journals.flat()) {
    const key = `${row.account} · ${row.currency} · ${row.token ?? ''}`;
    const sum = sums.get(key) ?? { net: new Big(0), quantity: new Big(0) };
    sum.net = sum.net.plus(row.debit || '0').minus(row.credit || '0');
    sum.quantity = sum.quantity.plus(row.quantity || '0');
    sums.set(key, sum);
  }
  const out = new Map<string, { net: string; quantity: string }>();
  for (const [key, sum] of [...sums].sort(([a], [b]) => (a < b ? -1 : 1)))
    if (!sum.net.eq(0) || !sum.quantity.eq(0))
      out.set(key, { net: sum.net.toFixed(), quantity: sum.quantity.toFixed() });
  return out;
}

describe('a closed month changed twice (CLI over the simulator on loopback)', () => {
  let run: ChainScenario;
  const manifest = async (folder: string) =>
    JSON.parse(await readFile(join(folder, 'manifest.json'), 'utf8'));

  beforeAll(async () => {
    run = await runChainScenario();
  }, 300_000);
  afterAll(async () => {
    await run?.close();
  });

  it('publishes no second restatement when nothing changed since the first', async () => {
    expect(run.quietCheck).toBe('1 closed period checked: no change\n');
    // The two restatements are the two changes': none from the quiet check.
    expect(run.restatements).toHaveLength(2);
  });

  it("books the closed journal plus every restatement's adjusting entries in sequence to a fresh export's balances", async () => {
    const closed = await csv(join(run.closedRun, 'acme_2025-10_journal.csv'));
    const [first, second] = await Promise.all(run.restatements.map((r) => csv(join(r, ADJUSTING))));
    const fresh = await csv(join(run.freshRun, 'acme_2025-10_journal.csv'));

    expect(balances(closed, first as Row[])).not.toEqual(balances(fresh));
    expect(balances(closed, first as Row[], second as Row[])).toEqual(balances(fresh));
  });

  it('names the restatement it supersedes, in its manifest and its Read me', async () => {
    const [first, second] = run.restatements as [string, string];
    const [earlier, later] = [await manifest(first), await manifest(second)];

    expect(earlier.supersedes).toBeUndefined();
    expect(later.supersedes).toEqual({
      prefix: `restatements/acme/2025-10/${first.split('/').at(-1)}`,
      checkedAt: earlier.checkedAt,
    });
    // It states every change since the close again: the trade changed twice, the deleted one, the added one.
    expect(later.counts).toMatchObject({ added: 1, modified: 1, deleted: 1 });
    const readme = await readFile(join(second, 'README.txt'), 'utf8');
    expect(readme).toContain(
      `Supersedes: the restatement ${later.supersedes.prefix} (checked at ${earlier.checkedAt})`,
    );
  });

  it('asks the timeline from when the closed set was fetched', async () => {
    const closedManifest = await manifest(run.closedRun);
    expect((await manifest(run.restatements[0] as string)).since).toBe(closedManifest.createdAt);
  });

  it('is rebuilt byte for byte offline given the superseded corrected snapshot, and refused without it', async () => {
    const second = run.restatements[1] as string;
    expect([run.rebuilt.code, run.rebuilt.output]).toEqual([0, expect.stringContaining('restatement')]);
    const names = (await readdir(second)).filter((name) => name.includes('adjusting'));
    expect(names.length).toBeGreaterThan(0);
    for (const name of names)
      expect([name, await readFile(join(run.rebuilt.folder as string, name), 'utf8')]).toEqual([
        name,
        await readFile(join(second, name), 'utf8'),
      ]);
    expect(run.withoutSuperseded.code).toBe(1);
    expect(run.withoutSuperseded.output).toMatch(
      /supersedes the restatement restatements\/acme\/2025-10\/.*restate --superseded FILE/,
    );
  });
});
