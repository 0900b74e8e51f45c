/**
 * `pbs-export verify` when the previous month was exported again after its close (issue 42,
 * follow-up): January exported and closed; the service's history of January then changes (a
 * transaction left out of its listings) and January is exported again, not closed; February's
 * chain continues that later January, but its opening check compares with the closed one and
 * breaks. `verify` must compare February's opening balances with the closed January too, name it,
 * and fail on the break, not pass because they equal the later re-run's closing ones. The CLI runs
 * in process against the simulator on loopback; expected figures come from the simulator's data.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';
import { closeDemoMonth, demoCli, exportDemoMonth } from '../support/cli.ts';
import {
  balancesBefore,
  type DemoTx,
  demoTransactions,
  oneTokenTransaction,
} from '../support/demo-balances.ts';

const FEB_1 = '2025-02-01T00:00:00.000Z';

let dir: string;
let books: string;
let sim: RunningSimulator;
const cli = demoCli(() => sim.url);

/** Exports `period` of demo (transactions and gains, so it reconciles) into `books`: its run id. */
const exportMonth = async (period: string): Promise<string> =>
  (await exportDemoMonth(cli, books, period)).runId;

// biome-ignore lint/suspicious/noExplicitAny: the manifest as JSON, read field by field
const manifestOf = async (period: string, runId: string): Promise<any> =>
  JSON.parse(await readFile(join(books, 'reports', 'demo', period, runId, 'manifest.json'), 'utf8'));

let closedJanuary: string;
let laterJanuary: string;
let february: string;
let hidden: DemoTx;
let symbol: string;
let change: Big;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-verify-closed-'));
  books = join(dir, 'books');
  sim = await startSimulator();
  closedJanuary = await exportMonth('2025-01');
  await closeDemoMonth(cli, books, '2025-01', closedJanuary);
  // A January transaction moving one token, left out of every listing from now on.
  ({ tx: hidden, symbol, change } = oneTokenTransaction('2025-01'));
  sim.setBalanceFaults({ hide: [{ profile: 'demo', id: hidden.id }] });
  laterJanuary = await exportMonth('2025-01');
  february = await exportMonth('2025-02');
}, 300_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('verify against the closed set the opening check named', () => {
  it('is the case: the chain continues the later January, the opening check the closed one', async () => {
    const manifest = await manifestOf('2025-02', february);
    expect(manifest.previous.prefix).toBe(`reports/demo/2025-01/${laterJanuary}`);
    expect(manifest.reconciliation.opening.previousSet.prefix).toBe(`reports/demo/2025-01/${closedJanuary}`);
    expect(manifest.reconciliation.opening.status).toBe('break');
  });

  it('fails on the break with the closed January, naming it and the later set the chain continues', async () => {
    const closing = balancesBefore(demoTransactions(), FEB_1).get(`${hidden.ledgerId}|${symbol}`) as Big;
    const verified = await cli(['verify', join(books, 'reports', 'demo', '2025-02', february)]);
    expect(verified.code, verified.stdout).toBe(1);
    const closedSet = `the closed set reports/demo/2025-01/${closedJanuary} (2025-01, run ${closedJanuary}, the one its opening check compared with; the chain continues the later previous set reports/demo/2025-01/${laterJanuary} (2025-01))`;
    expect(verified.stdout).toContain(
      `✗ balances break: ledger ${hidden.ledgerId}, token ${symbol} opens at the start of 2025-02-01 (UTC) with ${closing.minus(change).toFixed()}, ` +
        `but ${closedSet} closed with ${closing.toFixed()} (difference ${change.times(-1).toFixed()})`,
    );
    // February's opening is not compared with the later January's closing (they would be equal).
    expect(verified.stdout).not.toMatch(/opening balances equal the closing balances of the previous set/);
    expect(verified.stdout).toContain(
      `✓ continues the previous set reports/demo/2025-01/${laterJanuary} (2025-01)`,
    );
  });
});
