/**
 * The reconciliation in the PDF tax pack (issue 42, item 2), read with poppler's `pdftotext` (an
 * independent reader): `pbs-export run` against the simulator on loopback. On the demo the pack
 * says reconciled; with the simulator told to hide one transaction it names that ledger and token
 * with a difference equal to the hidden movement (computed here from the simulator's own data);
 * with a service that reports no balances it says not reconciled and why.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.ts';
import {
  type BalanceFaults,
  DEFAULT_PROFILES,
  Portfolio,
  type RunningSimulator,
  startSimulator,
} from '../../lib/simulator/index.ts';

const exec = promisify(execFile);
const demo = DEFAULT_PROFILES.find((p) => p.name === 'demo');
if (demo === undefined) throw new Error('no demo profile');

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

interface Tx {
  id: string;
  date: string;
  category: string;
  ledgerId: string;
  movements: { symbol: string; amount: string }[];
  fee: { symbol: string | null; quantity: string | null };
}

/** A live demo transaction of March 2025 with one movement and no fee in another token: its change is that movement. */
function hiddenCandidate(): { tx: Tx; symbol: string; change: Big } {
  const portfolio = new Portfolio({ ...demo, profileGuid: demo?.profileGuid } as never, 1);
  for (let i = 0; i < portfolio.count; i += 1) {
    if (portfolio.isDeleted(i)) continue;
    const tx = portfolio.transaction(i) as unknown as Tx;
    const [movement] = tx.movements;
    if (!tx.date.startsWith('2025-03') || tx.movements.length !== 1 || movement === undefined) continue;
    // This test's rule: the movement, less a fee charged in the same token.
    const fee = tx.fee.symbol === null || tx.fee.quantity === null ? null : tx.fee;
    if (fee !== null && fee.symbol !== movement.symbol) continue;
    const change = new Big(movement.amount).minus(fee === null ? 0 : new Big(fee.quantity ?? 0).abs());
    return { tx, symbol: movement.symbol, change };
  }
  throw new Error('no transaction to hide in 2025-03');
}

/** `pbs-export run` of the demo for `period` with the gains into CSV and a workbook (so the pack). */
async function run(period: string, config?: object) {
  const err: string[] = [];
  const env: Record<string, string> = {
    PBS_API_KEY: demo?.apiKey ?? '',
    PBS_API_SECRET: demo?.apiSecret ?? '',
  };
  const flags: string[] = [];
  if (config === undefined) env.PBS_BASE_URL = sim?.url ?? '';
  else {
    const file = join(dir, 'service.json');
    await writeFile(file, JSON.stringify({ baseUrl: sim?.url, ...config }));
    flags.push('--config', file);
  }
  const outDir = join(dir, `out-${period}`);
  const argv = [
    'run',
    '--profile',
    'demo',
    '--period',
    period,
    '--report',
    'transactions',
    '--report',
    'gains',
  ];
  const code = await main([...argv, '--format', 'csv,xlsx', '--out', outDir, ...flags], {
    stdout: { write: () => true },
    stderr: { write: (text: string) => err.push(text) },
    env,
    now: () => new Date(),
  });
  expect(code, err.join('')).toBe(0);
  const entries = await readdir(outDir, { recursive: true, withFileTypes: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const file = (suffix: string) => files.find((f) => f.endsWith(suffix));
  const manifest = JSON.parse(await readFile(file('manifest.json') as string, 'utf8'));
  const pack = file('_tax_pack.pdf');
  expect(pack).toBeDefined();
  const { stdout } = await exec('pdftotext', ['-layout', pack as string, '-']);
  const csvFile = file('_reconciliation.csv');
  const rows =
    csvFile === undefined
      ? []
      : (parse(await readFile(csvFile), { bom: true, columns: true }) as Record<string, string>[]);
  const readme = await readFile(file('README.txt') as string, 'utf8');
  return { manifest, text: stdout, rows, readme };
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
    const { tx, symbol, change } = hiddenCandidate();
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
