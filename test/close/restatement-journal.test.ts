/**
 * Done when (issue 28), with the journal report: the adjusting entries of the restatement bring
 * the journal's balances to the corrected ones. The closed set's journal CSV plus the adjusting
 * entries' CSV equal, per account, currency and token, the journal CSV of a fresh export of the
 * changed October; summed here from the CSV files alone (csv-parse and big.js).
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type JournalScenario, runJournalScenario } from './support/journal-restatement.ts';

type Row = Record<string, string>;
const csv = async (file: string) => parse(await readFile(file), { bom: true, columns: true }) as Row[];

/** Debit − credit and quantity per `account · currency · token`, summed from the journal lines. */
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

describe('a restatement with the journal report (CLI over the simulator on loopback)', () => {
  let run: JournalScenario;
  const adjusting = 'acme_2025-10_adjusting_journal.csv';

  beforeAll(async () => {
    run = await runJournalScenario();
  }, 240_000);
  afterAll(async () => {
    await run?.close();
  });

  it("brings the closed journal's balances to a fresh export's of the changed October, per account and token", async () => {
    const closed = await csv(join(run.closedRun, 'acme_2025-10_journal.csv'));
    const entries = await csv(join(run.restatement, adjusting));
    const corrected = await csv(join(run.freshRun, 'acme_2025-10_journal.csv'));

    expect(entries.length).toBeGreaterThan(0);
    expect(new Set(entries.map((row) => row.date))).toEqual(new Set(['2025-11-01']));
    expect(balances(closed)).not.toEqual(balances(corrected));
    expect(balances(closed, entries)).toEqual(balances(corrected));
    // The adjusting entry balances, and names the three transactions in its hledger text.
    expect(balances(entries.map((row) => ({ ...row, account: '', token: '', quantity: '' })))).toEqual(
      new Map(),
    );
    const hledger = await readFile(join(run.restatement, 'acme_2025-10_adjusting_journal.hledger'), 'utf8');
    for (const id of Object.values(run.edited)) expect(hledger).toContain(id);
  });

  it('lists the adjusting files in the manifest with their SHA-256 and says them in the Read me', async () => {
    const manifest = JSON.parse(await readFile(join(run.restatement, 'manifest.json'), 'utf8'));
    expect(manifest.adjusting).toMatchObject({ date: '2025-11-01', entries: 1, formats: ['csv', 'hledger'] });
    const listed = new Map<string, string>(
      manifest.files.map((f: { name: string; sha256: string }) => [f.name, f.sha256]),
    );
    const { createHash } = await import('node:crypto');
    for (const name of [adjusting, 'acme_2025-10_adjusting_journal.hledger']) {
      const sha = createHash('sha256')
        .update(await readFile(join(run.restatement, name)))
        .digest('hex');
      expect([name, listed.get(name)]).toEqual([name, sha]);
    }
    const readme = await readFile(join(run.restatement, 'README.txt'), 'utf8');
    expect(readme).toMatch(
      /Adjusting entries: Adjusting entries dated 1 November 2025 bring the ledger to the corrected October 2025: \S/,
    );
  });

  it('is rebuilt byte for byte offline from the closed and the corrected snapshot', async () => {
    const names = (await readdir(run.restatement)).filter((name) => name.includes('adjusting'));
    expect(names.sort()).toEqual([adjusting, 'acme_2025-10_adjusting_journal.hledger'].sort());
    for (const name of names)
      expect([name, await readFile(join(run.rebuilt, name), 'utf8')]).toEqual([
        name,
        await readFile(join(run.restatement, name), 'utf8'),
      ]);
  });
});
