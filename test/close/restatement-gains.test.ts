/**
 * The restatement of a closed month with gains: each realised-gains figure it states (gains
 * summary per tax year, token and term) is, as closed, the closed set's own figure and, as
 * corrected, the figure a fresh export of the month makes once the service has changed.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, main } from '../../lib/cli/main.ts';
import { DEFAULT_PROFILES } from '../../lib/simulator/profiles.ts';
import { startSimulator } from '../../lib/simulator/server.ts';
import type { RunningSimulator, SimulatedProfile } from '../../lib/simulator/types.ts';
import { fetchAllItems } from '../support/simulator.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
type Row = Record<string, string>;
type Tx = { id: string; category: string; movements: { symbol: string; amount: string; value: string }[] };
/** The number columns of the gains summary; the others name the row. */
const NUMBERS = new Set(['lines', 'quantity', 'proceeds', 'cost', 'gains', 'losses', 'net']);

const csv = async (file: string) => parse(await readFile(file), { bom: true, columns: true }) as Row[];
const rowKey = (row: Row) =>
  Object.entries(row)
    .filter(([key, value]) => !NUMBERS.has(key) && value !== '')
    .map(([, value]) => value)
    .join(' · ');

describe('a restatement with gains (CLI over the simulator on loopback)', () => {
  let sim: RunningSimulator;
  let dir: string;
  let clock = Date.parse('2025-11-02T06:00:00.000Z');
  const out: string[] = [];
  const cli = (...argv: string[]) => {
    const io: CliIo = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => out.push(text) },
      env: { PBS_BASE_URL: sim.url, PBS_API_KEY: acme.apiKey, PBS_API_SECRET: acme.apiSecret },
      now: () => new Date(clock),
    };
    return main(argv, io);
  };
  const exportOctober = (folder: string) =>
    cli(
      'run',
      '--profile',
      'acme',
      '--period',
      '2025-10',
      '--report',
      'summary,gains',
      '--format',
      'csv',
      '--out',
      folder,
    );
  const only = async (folder: string) => join(folder, (await readdir(folder))[0] as string);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-close-gains-'));
    sim = await startSimulator({
      now: () => clock,
      maxClockSkewMs: Number.MAX_SAFE_INTEGER,
      rateLimitPerSecond: 0,
    });
    expect(await exportOctober(join(dir, 'books'))).toBe(0);
    const runId = (await readdir(join(dir, 'books/reports/acme/2025-10')))[0] as string;
    clock = Date.parse('2025-11-03T09:00:00.000Z');
    expect(
      await cli(
        'close',
        '--profile',
        'acme',
        '--period',
        '2025-10',
        '--run',
        runId,
        '--by',
        'ann',
        '--out',
        join(dir, 'books'),
      ),
    ).toBe(0);
    const october = (await fetchAllItems(sim.url, acme, '/v2/transactions', [
      ['startDate', '2025-10-01T00:00:00.000Z'],
      ['endDate', '2025-11-01T00:00:00.000Z'],
    ])) as Tx[];
    const trades = october.filter((tx) => tx.category === 'trade');
    const [doubled, deleted] = [trades[0] as Tx, trades[1] as Tx];
    const at = '2025-11-10T12:00:00.000Z';
    sim.editPast([
      {
        kind: 'modify',
        profile: 'acme',
        at,
        id: doubled.id,
        set: {
          movements: doubled.movements.map((m) => ({ ...m, value: new Big(m.value).times(2).toFixed(2) })),
        },
      },
      { kind: 'delete', profile: 'acme', at, id: deleted.id },
    ]);
    clock = Date.parse('2025-12-01T02:00:00.000Z');
    expect(await exportOctober(join(dir, 'fresh'))).toBe(0);
    expect(await cli('check-closes', '--profile', 'acme', '--out', join(dir, 'books'))).toBe(0);
  }, 180_000);
  afterAll(async () => {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('states realised gains as closed and as a fresh export of the changed month has them', async () => {
    const restatement = await only(join(dir, 'books/restatements/acme/2025-10'));
    const effects = (await csv(join(restatement, 'acme_2025-10_restatement_effects.csv'))).filter(
      (row) => row.report === 'Gains summary',
    );
    const closedRun = await only(join(dir, 'books/reports/acme/2025-10'));
    const freshRun = await only(join(dir, 'fresh/reports/acme/2025-10'));
    const closed = await csv(join(closedRun, 'acme_2025-10_gains_summary.csv'));
    const fresh = await csv(join(freshRun, 'acme_2025-10_gains_summary.csv'));
    const figure = (rows: Row[], effect: Row) =>
      rows.find((row) => rowKey(row) === effect.row)?.[effect.column_key as string] || '0';

    expect(effects.some((effect) => effect.column_key === 'net')).toBe(true);
    for (const effect of effects) {
      expect([
        effect.row,
        effect.column_key,
        new Big(effect.closed as string).eq(figure(closed, effect)),
      ]).toEqual([effect.row, effect.column_key, true]);
      expect([
        effect.row,
        effect.column_key,
        new Big(effect.corrected as string).eq(figure(fresh, effect)),
      ]).toEqual([effect.row, effect.column_key, true]);
    }
    const manifest = JSON.parse(await readFile(join(restatement, 'manifest.json'), 'utf8'));
    expect(manifest.summary).toMatch(
      /: 1 transaction modified, 1 deleted; realised gains of 2025 [+−][\d ]+\.\d{2} USD/,
    );
  });
});
