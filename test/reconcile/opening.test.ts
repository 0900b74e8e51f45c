/**
 * Months that chain in their balances (issue 42, item 3), through the CLI against the simulator on
 * loopback: January exported and closed, February's opening balances continue January's closing
 * ones; once the service's history of January changes (a transaction left out of its listings),
 * February's export warns of the break naming both sets, the ledger, the token and both exact
 * figures, and `verify` says the break in words. Expected balances are computed here from the
 * simulator's own data, not by the export's code.
 */
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningSimulator, startSimulator } from '../../lib/simulator/index.ts';
import { closeDemoMonth, type DemoExport, demoCli, exportDemoMonth } from '../support/cli.ts';
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

interface Exported extends DemoExport {
  manifestBytes: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: the manifest as JSON, read field by field
  manifest: any;
}

/** Exports `period` of the demo profile (transactions and gains) into `books`, with its manifest. */
async function exportMonth(period: string): Promise<Exported> {
  const done = await exportDemoMonth(cli, books, period);
  const manifestBytes = await readFile(join(done.folder, 'manifest.json'));
  return { ...done, manifestBytes, manifest: JSON.parse(manifestBytes.toString('utf8')) };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let txs: DemoTx[];
let january: Exported;
let february: Exported;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'pbs-opening-'));
  books = join(dir, 'books');
  sim = await startSimulator();
  txs = demoTransactions();
  january = await exportMonth('2025-01');
  await closeDemoMonth(cli, books, '2025-01', january.runId);
  february = await exportMonth('2025-02');
}, 300_000);
afterAll(async () => {
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('opening balances against the previous closed period', () => {
  it('says a month without a closed month before it is not checked, and why', () => {
    expect(january.manifest.reconciliation.opening).toMatchObject({
      status: 'no-closed-previous',
      previousSet: null,
      note: 'opening balances not checked: no closed period of demo ends at the start of 2025-01-01 (UTC), where 2025-01 begins',
    });
  });

  it("continues the closed January: February's opening balances equal its closing ones, as computed here", async () => {
    const opening = february.manifest.reconciliation.opening;
    expect(opening).toMatchObject({
      status: 'continues',
      periodStart: FEB_1,
      breaks: [],
      previousSet: {
        prefix: `reports/demo/2025-01/${january.runId}`,
        runId: january.runId,
        manifestSha256: sha256(january.manifestBytes),
        period: { label: '2025-01', end: FEB_1 },
        closedBy: 'ann@firm.example',
      },
    });
    expect(opening.note).toMatch(
      /^opening balances continue the closed 2025-01 \(run \S+\): \d+ ledger balances at the start of 2025-02-01 \(UTC\) equal/,
    );
    expect(opening.periodStart).toBe(FEB_1);
    expect(february.stderr).not.toContain('opening balance break');
    // The opening recorded is the balance of every ledger and token before 1 February, as this test computes it.
    const expected = [...balancesBefore(txs, FEB_1)].filter(([, amount]) => !amount.eq(0));
    const recorded = february.manifest.reconciliation.openingBalances as {
      ledgerId: string;
      symbol: string;
      amount: string;
    }[];
    expect(recorded.length).toBe(expected.length);
    for (const [key, amount] of expected) {
      const found = recorded.find((b) => `${b.ledgerId}|${b.symbol}` === key);
      expect(found && new Big(found.amount).eq(amount), key).toBe(true);
    }
    const readme = await readFile(join(february.folder, 'README.txt'), 'utf8');
    const firstLines = readme.split('\n').slice(0, 8).join('\n');
    expect(firstLines).toContain('opening balances continue the closed 2025-01');
    // Instants as days in the zone, on the Read me's first lines and in the CLI's summary.
    for (const words of [firstLines, february.stdout]) {
      expect(words).toMatch(
        /ledger balances at the end of 2025-02-28 \(UTC\) equal what the service reports/,
      );
      expect(words).toMatch(/ledger balances at the start of 2025-02-01 \(UTC\) equal its closing balances/);
      const lines = words.split('\n').filter((line) => line.includes('ledger balances'));
      expect(lines.filter((line) => /T\d\d:\d\d:\d\d\.\d{3}Z/.test(line))).toEqual([]);
    }
  });

  it('warns of a break naming both sets, the ledger, token and both exact figures once January changes at the service; verify says it', async () => {
    // A January transaction moving one token, left out of every listing from now on.
    const { tx: hidden, symbol, change } = oneTokenTransaction('2025-01');
    const closing = balancesBefore(txs, FEB_1).get(`${hidden.ledgerId}|${symbol}`) as Big;
    const opening = closing.minus(change);
    sim.setBalanceFaults({ hide: [{ profile: 'demo', id: hidden.id }] });
    const again = await exportMonth('2025-02');
    expect(again.code).toBe(0);
    const record = again.manifest.reconciliation.opening;
    expect(record.status).toBe('break');
    expect(record.previousSet.runId).toBe(january.runId);
    expect(record.breaks).toHaveLength(1);
    const [only] = record.breaks;
    expect(only.ledgerId).toBe(hidden.ledgerId);
    expect(only.symbol).toBe(symbol);
    expect(new Big(only.opening).eq(opening)).toBe(true);
    expect(new Big(only.previousClosing).eq(closing)).toBe(true);
    expect(new Big(only.difference).eq(change.times(-1))).toBe(true);
    const warning = again.stderr.split('\n').find((line) => line.includes('opening balance break')) ?? '';
    expect(warning).toContain(`ledger ${hidden.ledgerId}, token ${symbol}`);
    expect(warning).toContain(
      `(demo 2025-02, run ${again.runId}) opens at the start of 2025-02-01 (UTC) with ${opening.toFixed()}`,
    );
    expect(warning).toContain(
      `(demo 2025-01, run ${january.runId}, manifest SHA-256 ${sha256(january.manifestBytes)}, reports/demo/2025-01/${january.runId}) closed with ${closing.toFixed()}`,
    );
    expect(warning).toContain(`difference ${change.times(-1).toFixed()}. What to do: `);
    expect(warning).toContain('reopen it and export it again');
    const readme = await readFile(join(again.folder, 'README.txt'), 'utf8');
    expect(readme.split('\n').slice(0, 8).join('\n')).toContain('opening balances break: 1 of ');

    const verified = await cli(['verify', books]);
    expect(verified.code).toBe(1);
    expect(verified.stdout).toContain(
      `✗ balances break: ledger ${hidden.ledgerId}, token ${symbol} opens at the start of 2025-02-01 (UTC) with ${opening.toFixed()}, ` +
        `but the previous set reports/demo/2025-01/${january.runId} (2025-01) closed with ${closing.toFixed()} ` +
        `(difference ${change.times(-1).toFixed()})`,
    );
    // The February exported before the change still continues January, in verify's words too.
    expect(verified.stdout).toMatch(
      new RegExp(
        `✓ opening balances equal the closing balances of the previous set reports/demo/2025-01/${january.runId}`,
      ),
    );
    expect(verified.stdout).toMatch(/1 of 3 set\(s\) do not hold/);
  }, 300_000);
});
