/**
 * Done when (issue 28): export October, close it, let the simulator modify one transaction, add
 * one and delete one in October, run November: the restatement names exactly those three, and
 * its totals equal (new October totals − closed October totals), computed here from the
 * simulator's data alone.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { DEFAULT_PROFILES } from '../../lib/simulator/profiles.ts';
import { startSimulator } from '../../lib/simulator/server.ts';
import type { RunningSimulator, SimulatedProfile } from '../../lib/simulator/types.ts';
import { fetchAllItems } from '../support/simulator.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
const OCTOBER: [string, string][] = [
  ['startDate', '2025-10-01T00:00:00.000Z'],
  ['endDate', '2025-11-01T00:00:00.000Z'],
];
type Tx = Record<string, unknown> & { id: string; value: { amount: string }; fee: { amount: string } };

/** The by-month TOTAL row of a set of transactions, summed here: count, value, fees (USD cents). */
function totals(txs: readonly Tx[]) {
  return {
    count: txs.length,
    value: txs.reduce((sum, tx) => sum.plus(tx.value.amount), new Big(0)),
    fees: txs.reduce((sum, tx) => sum.plus(tx.fee.amount), new Big(0)),
  };
}

describe('closed months and restatements (CLI over the simulator on loopback)', () => {
  let sim: RunningSimulator;
  let dir: string;
  let clock = Date.parse('2025-11-02T06:00:00.000Z');
  const env = () => ({ PBS_BASE_URL: sim.url, PBS_API_KEY: acme.apiKey, PBS_API_SECRET: acme.apiSecret });
  const out: string[] = [];
  const cli = async (...argv: string[]) => {
    const io: CliIo = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => out.push(text) },
      env: env(),
      now: () => new Date(clock),
    };
    return main(argv, io);
  };
  let closedTxs: Tx[];
  let nowTxs: Tx[];
  let edited: { modified: string; deleted: string; added: string };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-close-'));
    // The simulator's clock is the test's; the client signs with the real one, so any skew is accepted.
    sim = await startSimulator({
      now: () => clock,
      maxClockSkewMs: Number.MAX_SAFE_INTEGER,
      rateLimitPerSecond: 0,
    });
    expect(await cli('run', '--profile', 'acme', '--period', '2025-10', '--out', dir)).toBe(0);
    closedTxs = (await fetchAllItems(sim.url, acme, '/v2/transactions', OCTOBER)) as Tx[];
    const [runId] = await readdir(join(dir, 'reports/acme/2025-10'));
    clock = Date.parse('2025-11-03T09:00:00.000Z');
    expect(
      await cli(
        'close',
        '--profile',
        'acme',
        '--period',
        '2025-10',
        '--run',
        runId as string,
        '--by',
        'ann',
        '--out',
        dir,
      ),
    ).toBe(0);

    const [a, b, c] = closedTxs as [Tx, Tx, Tx];
    edited = { modified: a.id, deleted: b.id, added: 'tx_added_after_close' };
    const at = '2025-11-10T12:00:00.000Z';
    sim.editPast([
      {
        kind: 'modify',
        profile: 'acme',
        at,
        id: a.id,
        set: { value: { amount: new Big(a.value.amount).plus('1234.56').toFixed(2), currency: 'USD' } },
      },
      { kind: 'delete', profile: 'acme', at, id: b.id },
      {
        kind: 'add',
        profile: 'acme',
        at,
        transaction: {
          ...structuredClone(c),
          id: edited.added,
          date: '2025-10-20T10:00:00.000Z',
          hash: `0x${'ab'.repeat(32)}`,
        },
      },
    ]);
    clock = Date.parse('2025-12-01T02:00:00.000Z');
    nowTxs = (await fetchAllItems(sim.url, acme, '/v2/transactions', OCTOBER)) as Tx[];
    expect(await cli('run', '--profile', 'acme', '--period', '2025-11', '--out', dir)).toBe(0);
    expect(await cli('check-closes', '--profile', 'acme', '--out', dir)).toBe(0);
  }, 120_000);
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  const restatementDir = async () => {
    const root = join(dir, 'restatements/acme/2025-10');
    const [id] = (await readdir(root)).filter((name) => name !== 'records');
    return join(root, id as string);
  };
  const csv = async (name: string) =>
    parse(await readFile(join(await restatementDir(), name)), { bom: true, columns: true }) as Record<
      string,
      string
    >[];

  it('names exactly the transactions modified, added and deleted', async () => {
    const rows = await csv('acme_2025-10_restatement_changes.csv');
    const named = [...new Set(rows.map((row) => `${row.change} ${row.transaction_id}`))].sort();
    expect(named).toEqual(
      [`modified ${edited.modified}`, `deleted ${edited.deleted}`, `added ${edited.added}`].sort(),
    );
    expect(rows.find((row) => row.change === 'modified')?.field).toBe('value.amount');
  });

  it("shows a changed text field's values as the service sent them, not quoted again as JSON", async () => {
    const rows = await csv('acme_2025-10_restatement_changes.csv');
    const modified = rows.find((row) => row.change === 'modified');
    const amount = (txs: readonly Tx[]) => txs.find((tx) => tx.id === edited.modified)?.value.amount;

    expect({ before: modified?.before, after: modified?.after }).toEqual({
      before: amount(closedTxs),
      after: amount(nowTxs),
    });
    expect(typeof amount(closedTxs)).toBe('string');
  });

  it('states the by-month totals changed by exactly (new October − closed October), summed from the simulator', async () => {
    const before = totals(closedTxs);
    const after = totals(nowTxs);
    const effects = await csv('acme_2025-10_restatement_effects.csv');
    const total = (column: string) =>
      effects.find(
        (row) => row.report === 'By month' && row.row === 'TOTAL · USD' && row.column?.startsWith(column),
      );
    expect(new Big(total('Value')?.difference ?? 'NaN').eq(after.value.minus(before.value))).toBe(true);
    expect(new Big(total('Fees')?.difference ?? 'NaN').eq(after.fees.minus(before.fees))).toBe(true);
    expect(new Big(total('Value')?.closed ?? 'NaN').eq(before.value)).toBe(true);
    // One modified, one added, one deleted: the count is the same, so no count row is stated.
    expect(after.count - before.count).toBe(0);
    expect(effects.some((row) => row.row === 'TOTAL · USD' && row.column === 'Count')).toBe(false);
  });

  it('says it in words in the Read me and the manifest, and the CLI printed it', async () => {
    const manifest = JSON.parse(await readFile(join(await restatementDir(), 'manifest.json'), 'utf8'));
    expect(manifest.summary).toMatch(
      /^October 2025 changed after it was closed on 3 November 2025 by ann: 1 transaction added, 1 modified, 1 deleted; /,
    );
    expect(manifest.counts).toMatchObject({ added: 1, modified: 1, deleted: 1 });
    expect(await readFile(join(await restatementDir(), 'README.txt'), 'utf8')).toContain(manifest.summary);
    expect(out.join('')).toContain('1 closed period checked: acme 2025-10 changed');
  });

  it('rebuilds the same restatement offline from the closed and the corrected snapshot', async () => {
    const closedRun = join(
      dir,
      'reports/acme/2025-10',
      (await readdir(join(dir, 'reports/acme/2025-10')))[0] as string,
    );
    const rebuilt = join(dir, 'rebuilt');
    expect(
      await cli(
        'restate',
        '--closed',
        join(closedRun, 'acme_2025-10_snapshot.ndjson.gz'),
        '--corrected',
        join(await restatementDir(), 'acme_2025-10_corrected_snapshot.ndjson.gz'),
        '--out',
        rebuilt,
      ),
    ).toBe(0);
    const root = join(rebuilt, 'restatements/acme/2025-10');
    const [id] = (await readdir(root)).filter((name) => name !== 'records');
    const name = 'acme_2025-10_restatement_effects.csv';
    expect(await readFile(join(root, id as string, name))).toEqual(
      await readFile(join(await restatementDir(), name)),
    );
  });

  it("rebuilds the restatement's workbook byte for byte offline, years later (dated by the check, not the clock)", async () => {
    const closedRun = join(
      dir,
      'reports/acme/2025-10',
      (await readdir(join(dir, 'reports/acme/2025-10')))[0] as string,
    );
    const rebuilt = join(dir, 'rebuilt-later');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2031-07-09T18:30:00Z'));
    try {
      const code = await cli(
        'restate',
        '--closed',
        join(closedRun, 'acme_2025-10_snapshot.ndjson.gz'),
        '--corrected',
        join(await restatementDir(), 'acme_2025-10_corrected_snapshot.ndjson.gz'),
        '--out',
        rebuilt,
      );
      expect(code).toBe(0);
    } finally {
      vi.useRealTimers();
    }
    const root = join(rebuilt, 'restatements/acme/2025-10');
    const [id] = (await readdir(root)).filter((name) => name !== 'records');
    const name = 'acme_2025-10_restatement.xlsx';
    expect(await readFile(join(root, id as string, name))).toEqual(
      await readFile(join(await restatementDir(), name)),
    );
  });
});
