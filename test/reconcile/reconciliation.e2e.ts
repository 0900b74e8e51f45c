/**
 * Reconciliation through the CLI against the simulator on loopback (issue 42, items 1 and 2): the
 * demo reconciles month by month; a hidden transaction, a misreported balance and a service that
 * reports no balances are each said. Expectations are computed here from the simulator's own data
 * (its `Portfolio`), with test/support/demo-balances.ts's arithmetic, not the client's.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ServiceShapeOverrides } from '../../lib/pbs/shape.ts';
import { type BalanceFaults, type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';
import { runDemoExport } from '../support/cli.ts';
import { balancesBefore, demoTransactions, oneTokenTransaction } from '../support/demo-balances.ts';

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

async function start(options: { balanceFaults?: BalanceFaults; shape?: ServiceShapeOverrides } = {}) {
  sim = await startSimulator(options);
  return sim;
}

/** `pbs-export run` against the simulator `sim` (its demo profile), gains asked; `csv` reads a file of the set. */
async function run(period: string, options: { config?: object; reports?: string[]; format?: string } = {}) {
  const result = await runDemoExport({ url: sim?.url ?? '', dir, period, ...options });
  const csv = async (suffix: string) => {
    const file = result.files.find((f) => f.endsWith(suffix));
    return file === undefined
      ? null
      : (parse(await readFile(file), { bom: true, columns: true }) as Record<string, string>[]);
  };
  return { ...result, csv };
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
    const { tx: hidden, symbol, change } = oneTokenTransaction('2025-03');
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
