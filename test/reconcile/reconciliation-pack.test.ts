/**
 * The reconciliation in the PDF tax pack (issue 42, item 2), read with poppler's `pdftotext` (an
 * independent reader): `pbs-export run` against the simulator on loopback. On the demo the pack
 * says reconciled; with the simulator told to hide one transaction it names that ledger and token
 * with a difference equal to the hidden movement (computed here from the simulator's own data);
 * with a service that reports no balances it says not reconciled and why.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BalanceFaults, type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';
import { runDemoExport } from '../support/cli.ts';
import { oneTokenTransaction } from '../support/demo-balances.ts';

const exec = promisify(execFile);

let dir: string;
let sim: RunningSimulator | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-recpack-'));
});
afterEach(async () => {
  await sim?.close();
  sim = undefined;
  await rm(dir, { recursive: true, force: true });
});

/** `pbs-export run` of the demo for `period` with the gains into CSV and a workbook (so the pack). */
async function run(period: string, config?: object) {
  const result = await runDemoExport({ url: sim?.url ?? '', dir, period, format: 'csv,xlsx', config });
  expect(result.code, result.stderr).toBe(0);
  const file = (suffix: string) => result.files.find((f) => f.endsWith(suffix));
  const pack = file('_tax_pack.pdf');
  expect(pack).toBeDefined();
  const { stdout } = await exec('pdftotext', ['-layout', pack as string, '-']);
  const csvFile = file('_reconciliation.csv');
  const rows =
    csvFile === undefined
      ? []
      : (parse(await readFile(csvFile), { bom: true, columns: true }) as Record<string, string>[]);
  const readme = await readFile(file('README.txt') as string, 'utf8');
  return { manifest: result.manifest, text: stdout, rows, readme };
}

/** The pack's Reconciliation section: from its heading to the next heading (Warnings) or the end. */
function section(text: string): string {
  const start = text.indexOf("Reconciliation with the service's balances");
  expect(start).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\nWarnings\n', start);
  return text.slice(start, end < 0 ? undefined : end).replace(/[ \t]+/g, ' ');
}

const start = async (balanceFaults?: BalanceFaults, shape?: object) => {
  sim = await startSimulator({ ...(balanceFaults ? { balanceFaults } : {}), ...(shape ? { shape } : {}) });
};

describe('the reconciliation in the tax pack', () => {
  it('says reconciled on the demo, with the result of the manifest and no differing rows', async () => {
    await start();
    const { manifest, text, rows, readme } = await run('2025-03');
    expect(manifest.reconciliation.status).toBe('reconciled');
    // The Read me's file list says what a row of each reconciliation file is, not only its title
    // (walk-through 2026-12-08: it said "…_reconciliation.csv: Reconciliation").
    const listed = (name: string) =>
      readme.split('\n').find((line) => line.trim().startsWith(`demo_2025-03_${name}: `));
    expect(listed('reconciliation.csv')).toMatch(/: one row per ledger and token/);
    expect(listed('reconciliation_movements.csv')).toMatch(/: one row per movement after the period end/);
    expect(readme).not.toContain('see the columns below');
    expect(rows.length).toBeGreaterThan(0);
    const words = section(text);
    expect(words).toContain('Status reconciled');
    // The manifest's words, its period end as the pack gives dates: the last day, in the period's zone.
    expect(manifest.reconciliation.periodEnd).toBe('2025-04-01T00:00:00.000Z');
    const { note } = manifest.reconciliation;
    expect(note).toMatch(/^reconciled: \d+ ledger balances at the end of 2025-03-31 \(UTC\) equal/);
    expect(words.replace(/\s+/g, ' ')).toContain(`Result ${note}`);
    expect(words).not.toContain('T00:00:00');
    expect(words).not.toContain('Difference');
    expect(words).not.toContain('What to do');
  }, 120_000);

  it('names the ledger, token and a difference equal to the hidden movement when one transaction is hidden', async () => {
    const { tx, symbol, change } = oneTokenTransaction('2025-03');
    await start({ hide: [{ profile: 'demo', id: tx.id }] });
    const { text, rows } = await run('2025-03');
    const words = section(text);
    expect(words).toContain('Status differences: not reconciled');
    expect(words).toContain('What to do: check the service for transactions missing');
    // The differing rows, one per line: ledger, token, computed, reported at period end, difference.
    const printed = words
      .split('\n')
      .map((line) => line.trim().split(' '))
      .filter((cells) => cells.length === 5 && /^-?\d/.test(cells[4] ?? ''));
    expect(printed).toHaveLength(1);
    const [ledger, token, computed, reported, difference] = printed[0] as string[];
    expect([ledger, token]).toEqual([tx.ledgerId, symbol]);
    expect(new Big(difference as string).eq(change)).toBe(true);
    // Printed exactly as the CSV holds them (never rounded), and reported less computed.
    const csv = rows.find((r) => r.ledger_id === tx.ledgerId && r.token === symbol);
    expect([computed, reported, difference]).toEqual([
      csv?.computed,
      csv?.reported_at_period_end,
      csv?.difference,
    ]);
    expect(new Big(reported as string).minus(computed as string).eq(difference as string)).toBe(true);
  }, 120_000);

  it('says not reconciled and why when the service reports no balances', async () => {
    const shape = { balances: { source: 'none' } } as const;
    await start(undefined, shape);
    const { text } = await run('2025-02', { shape });
    const words = section(text);
    expect(words).toContain('Status not reconciled');
    expect(words).toContain('Result not reconciled: the service reports no balances');
    expect(words).not.toContain('Reconciliation sheet');
  }, 120_000);
});
