/**
 * Reconciliation through the CLI against the simulator on loopback (issue 42, items 1 and 2): the
 * demo reconciles month by month; a hidden transaction, a misreported balance and a service that
 * reports no balances are each said. Expectations are computed here from the simulator's own data
 * (its `Portfolio`), with this file's arithmetic, not the client's.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../lib/cli/main.ts';
import type { ServiceShapeOverrides } from '../../lib/pbs/shape.ts';
import {
  type BalanceFaults,
  DEFAULT_PROFILES,
  Portfolio,
  type RunningSimulator,
  startSimulator,
} from '../../lib/simulator/index.ts';

const demo = DEFAULT_PROFILES.find((p) => p.name === 'demo');
if (demo === undefined) throw new Error('no demo profile');

let dir: string;
let sim: RunningSimulator | undefined;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-reconcile-'));
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

/** Every live transaction of the demo portfolio (the simulator's data, seed 1). */
function demoTransactions(): Tx[] {
  const portfolio = new Portfolio({ ...demo, profileGuid: demo?.profileGuid } as never, 1);
  const out: Tx[] = [];
  for (let i = 0; i < portfolio.count; i += 1) {
    if (portfolio.isDeleted(i)) continue;
    out.push(portfolio.transaction(i) as unknown as Tx);
  }
  return out;
}

/** This test's rule: movements per token, less the fee quantity (a fee row's outgoing movements are the fee). */
function changesOf(tx: Tx): Map<string, Big> {
  const out = new Map<string, Big>();
  const add = (symbol: string, amount: Big) => out.set(symbol, (out.get(symbol) ?? new Big(0)).plus(amount));
  for (const m of tx.movements) add(m.symbol, new Big(m.amount));
  const feeIsMovement = tx.category === 'fee' && tx.movements.some((m) => m.amount.startsWith('-'));
  if (!feeIsMovement && tx.fee.symbol !== null && tx.fee.quantity !== null)
    add(tx.fee.symbol, new Big(tx.fee.quantity).abs().times(-1));
  return out;
}

/** Balances per `ledger|token` of the transactions dated before `endIso`. */
function balancesBefore(txs: Tx[], endIso: string): Map<string, Big> {
  const out = new Map<string, Big>();
  for (const tx of txs) {
    if (Date.parse(tx.date) >= Date.parse(endIso)) continue;
    for (const [symbol, change] of changesOf(tx)) {
      const key = `${tx.ledgerId}|${symbol}`;
      out.set(key, (out.get(key) ?? new Big(0)).plus(change));
    }
  }
  return out;
}

async function start(options: { balanceFaults?: BalanceFaults; shape?: ServiceShapeOverrides } = {}) {
  sim = await startSimulator(options);
  return sim;
}

/** `pbs-export run` against the simulator `sim` (its demo profile), gains asked. */
async function run(period: string, options: { config?: object; reports?: string[]; format?: string } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const env: Record<string, string> = {
    PBS_API_KEY: demo?.apiKey ?? '',
    PBS_API_SECRET: demo?.apiSecret ?? '',
  };
  const flags: string[] = [];
  if (options.config === undefined) env.PBS_BASE_URL = sim?.url ?? '';
  else {
    const file = join(dir, 'service.json');
    await writeFile(file, JSON.stringify({ baseUrl: sim?.url, ...options.config }));
    flags.push('--config', file);
  }
  const reports = (options.reports ?? ['transactions', 'gains']).flatMap((r) => ['--report', r]);
  const outDir = join(dir, `out-${period}-${Math.random().toString(16).slice(2)}`);
  const argv = [
    'run',
    '--profile',
    'demo',
    '--period',
    period,
    ...reports,
    '--format',
    options.format ?? 'csv',
    '--out',
    outDir,
  ];
  const code = await main([...argv, ...flags], {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env,
    now: () => new Date(),
  });
  const entries = await readdir(outDir, { recursive: true, withFileTypes: true }).catch(() => []);
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  const manifestFile = files.find((f) => f.endsWith('manifest.json'));
  const manifest = manifestFile === undefined ? null : JSON.parse(await readFile(manifestFile, 'utf8'));
  const csv = async (suffix: string) => {
    const file = files.find((f) => f.endsWith(suffix));
    return file === undefined
      ? null
      : (parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[]);
  };
  return { code, stdout: out.join(''), stderr: err.join(''), files, manifest, csv };
}

describe('reconciliation', () => {
  it('reconciles every month of 2025 on the demo to zero difference, computed as this test computes it', async () => {
    await start();
    const txs = demoTransactions();
    for (let month = 1; month <= 12; month += 1) {
      const period = `2025-${String(month).padStart(2, '0')}`;
      const result = await run(period);
      expect(result.code, result.stderr).toBe(0);
      expect(result.manifest.reconciliation.status, period).toBe('reconciled');
      expect(result.manifest.reconciliation.differences).toEqual([]);
      expect(result.stderr).not.toContain('reconciliation difference');
      const end =
        month === 12
          ? '2026-01-01T00:00:00.000Z'
          : `2025-${String(month + 1).padStart(2, '0')}-01T00:00:00.000Z`;
      const expected = balancesBefore(txs, end);
      const rows = (await result.csv('_reconciliation.csv')) ?? [];
      const closing = new Map<string, string>(
        result.manifest.reconciliation.closingBalances.map(
          (b: { ledgerId: string; symbol: string; amount: string }) => [
            `${b.ledgerId}|${b.symbol}`,
            b.amount,
          ],
        ),
      );
      for (const [key, amount] of expected) {
        if (amount.eq(0)) continue;
        expect(new Big(closing.get(key) ?? 'NaN').eq(amount), `${period} ${key}`).toBe(true);
      }
      for (const row of rows) {
        expect(row.difference).toBe('0');
        expect(new Big(row.computed ?? 'NaN').eq(expected.get(`${row.ledger_id}|${row.token}`) ?? 0)).toBe(
          true,
        );
      }
    }
  }, 600_000);

  it('exits 0 and names the ledger, token and hidden movement when the simulator hides one transaction', async () => {
    const txs = demoTransactions();
    const hidden = txs.find(
      (tx) => tx.date.startsWith('2025-03') && changesOf(tx).size === 1 && tx.movements.length === 1,
    ) as Tx;
    const [[symbol, change]] = [...changesOf(hidden)] as [[string, Big]];
    await start({ balanceFaults: { hide: [{ profile: 'demo', id: hidden.id }] } });
    const result = await run('2025-03', { format: 'csv,xlsx' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.manifest.reconciliation.status).toBe('differences');
    expect(result.manifest.reconciliation.differences).toHaveLength(1);
    const [difference] = result.manifest.reconciliation.differences;
    expect(difference.ledgerId).toBe(hidden.ledgerId);
    expect(difference.symbol).toBe(symbol);
    expect(new Big(difference.difference).eq(change)).toBe(true);
    expect(result.stderr).toContain(
      `reconciliation difference: ledger ${hidden.ledgerId}, token ${symbol}: `,
    );
    expect(result.stderr).toContain(`difference ${new Big(difference.difference).toFixed()}. What to do:`);
    const ids = ((await result.csv('_transactions.csv')) ?? []).map((r) => Object.values(r).join(' '));
    expect(ids.some((line) => line.includes(hidden.id))).toBe(false);
    // The result on the Read me's first lines, and a Reconciliation sheet in the workbook.
    const readme = await readFile(result.files.find((f) => f.endsWith('README.txt')) as string, 'utf8');
    const firstLines = readme.split('\n').slice(0, 8).join('\n');
    expect(firstLines).toContain('not reconciled: 1 of');
    // The period end as the accountant reads it, in the Read me and the CLI's summary: a day in the zone.
    for (const words of [firstLines, result.stdout]) {
      expect(words).toMatch(/1 of \d+ ledger balances at the end of 2025-03-31 \(UTC\) differ/);
      const lines = words.split('\n').filter((line) => line.includes('ledger balances'));
      expect(lines.filter((line) => /T\d\d:\d\d:\d\d\.\d{3}Z/.test(line))).toEqual([]);
    }
    const book = new ExcelJS.Workbook();
    await book.xlsx.readFile(result.files.find((f) => f.endsWith('.xlsx')) as string);
    const sheet = book.getWorksheet('Reconciliation');
    expect(sheet).toBeDefined();
    const cells = Array.from(sheet?.getSheetValues() ?? [], (row) =>
      Array.isArray(row) ? Array.from(row, String) : [],
    );
    const found = cells.find((row) => row.includes(hidden.ledgerId) && row.includes(symbol));
    expect(found).toBeDefined();
  }, 120_000);

  it('says a wrong reported balance as a difference of the misreport', async () => {
    const ledgerId = demoTransactions().find((tx) => tx.date.startsWith('2025-05'))?.ledgerId as string;
    await start({
      balanceFaults: {
        misreport: [{ profile: 'demo', ledgerId, symbol: 'ETH', delta: '-0.000000000000000123' }],
      },
    });
    const result = await run('2025-05');
    expect(result.code, result.stderr).toBe(0);
    expect(result.manifest.reconciliation.differences).toEqual([
      expect.objectContaining({ ledgerId, symbol: 'ETH' }),
    ]);
    expect(
      new Big(result.manifest.reconciliation.differences[0].difference).eq('-0.000000000000000123'),
    ).toBe(true);
    expect(result.stderr).toContain(`ledger ${ledgerId}, token ETH`);
    expect(result.stderr).toContain('difference -0.000000000000000123');
  }, 120_000);

  it('says "not reconciled: the service reports no balances" when configured with none', async () => {
    const shape = { balances: { source: 'none' } } as const;
    await start({ shape });
    const result = await run('2025-02', { config: { shape } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('not reconciled: the service reports no balances');
    expect(result.manifest.reconciliation).toMatchObject({
      status: 'not-reconciled',
      note: 'not reconciled: the service reports no balances',
    });
    expect(result.files.some((f) => f.includes('reconciliation'))).toBe(false);
  }, 120_000);

  it('reads balances from a separate endpoint per ledger when so configured', async () => {
    const shape = {
      balances: { source: 'endpoint', pathTemplate: '/v2/ledgers/{ledgerId}/balances', itemsPath: 'data' },
    } as const;
    await start({ shape });
    const result = await run('2025-02', { config: { shape } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.manifest.reconciliation.status).toBe('reconciled');
    expect(result.manifest.reconciliation.closingBalances.length).toBeGreaterThan(0);
  }, 120_000);

  it('exits 0 and says why it is not reconciled when the service answers its balances with an error', async () => {
    // The simulator serves balances on its ledger items; the client is told to ask a path it lacks.
    await start({ shape: {} });
    const shape = {
      balances: {
        source: 'endpoint',
        pathTemplate: '/v2/ledgers/{ledgerId}/no-such-balances',
        itemsPath: 'data',
      },
    } as const;
    const result = await run('2025-02', { config: { shape } });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/not reconciled: the service's reported balances could not be read: .*404/);
    expect(result.manifest.reconciliation.status).toBe('not-reconciled');
  }, 120_000);

  it('leaves a set without holdings or journal as it was: no reconciliation at all', async () => {
    await start();
    const result = await run('2025-02', { reports: ['transactions'] });
    expect(result.code, result.stderr).toBe(0);
    expect(result.manifest).not.toHaveProperty('reconciliation');
    expect(result.files.some((f) => f.includes('reconciliation'))).toBe(false);
  }, 120_000);
});
