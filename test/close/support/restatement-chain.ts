/**
 * A closed month the service changes twice (issue 37, items 5 and 6): export October with the
 * journal report, close it; the service doubles one trade's values; `check-closes` publishes the
 * first restatement, and a second `check-closes` with nothing new since; the service then changes
 * that trade again (its values three times the closed ones), deletes another and adds one;
 * `check-closes` publishes the second restatement. Then October is exported afresh (the period as
 * the service now holds it) and the second restatement rebuilt offline.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import { type CliIo, main } from '../../../lib/cli/main.ts';
import { DEFAULT_PROFILES } from '../../../lib/simulator/profiles.ts';
import { startSimulator } from '../../../lib/simulator/server.ts';
import type { RunningSimulator, SimulatedProfile } from '../../../lib/simulator/types.ts';
import { fetchAllItems } from '../../support/simulator.ts';

const acme = DEFAULT_PROFILES[1] as SimulatedProfile;
type Tx = Record<string, unknown> & {
  id: string;
  category: string;
  movements: { symbol: string; amount: string; value: string }[];
};

/** The folders and outputs of one run of the scenario. */
export interface ChainScenario {
  dir: string;
  /** The closed October set and a fresh export of October as the service holds it at the end. */
  closedRun: string;
  freshRun: string;
  /** The restatement sets of October, oldest first (two expected). */
  restatements: string[];
  /** What the second `check-closes` (nothing new since the first) printed. */
  quietCheck: string;
  /** The second restatement rebuilt offline (`restate --superseded`): the CLI's exit and output, the set. */
  rebuilt: { code: number; output: string; folder: string | null };
  /** What `restate` without `--superseded` did. */
  withoutSuperseded: { code: number; output: string };
  close(): Promise<void>;
}

const only = async (folder: string) => join(folder, (await readdir(folder))[0] as string);

/** Runs the scenario over the simulator on loopback, with the journal `formats`. */
export async function runChainScenario(formats = 'csv,hledger'): Promise<ChainScenario> {
  const dir = await mkdtemp(join(tmpdir(), 'pbs-close-chain-'));
  let clock = Date.parse('2025-11-02T06:00:00.000Z');
  const sim: RunningSimulator = await startSimulator({
    now: () => clock,
    maxClockSkewMs: Number.MAX_SAFE_INTEGER,
    rateLimitPerSecond: 0,
  });
  const cli = async (...argv: string[]) => {
    const out: string[] = [];
    const io: CliIo = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => out.push(text) },
      env: { PBS_BASE_URL: sim.url, PBS_API_KEY: acme.apiKey, PBS_API_SECRET: acme.apiSecret },
      now: () => new Date(clock),
    };
    return { code: await main(argv, io), output: out.join('') };
  };
  const must = async (...argv: string[]) => {
    const { code, output } = await cli(...argv);
    if (code !== 0) throw new Error(`pbs-export ${argv.join(' ')} exited ${code}: ${output}`);
    return output;
  };
  const exportOctober = (folder: string) =>
    must(
      ...['run', '--profile', 'acme', '--period', '2025-10', '--report', 'journal'],
      ...['--journal-format', formats, '--format', 'csv', '--out', folder],
    );
  const books = join(dir, 'books');
  const check = () => must('check-closes', '--profile', 'acme', '--out', books);

  await exportOctober(books);
  const closedRun = await only(join(books, 'reports/acme/2025-10'));
  clock = Date.parse('2025-11-03T09:00:00.000Z');
  await must(
    ...['close', '--profile', 'acme', '--period', '2025-10', '--run', closedRun.split('/').at(-1) as string],
    ...['--by', 'ann', '--out', books],
  );
  const october = (await fetchAllItems(sim.url, acme, '/v2/transactions', [
    ['startDate', '2025-10-01T00:00:00.000Z'],
    ['endDate', '2025-11-01T00:00:00.000Z'],
  ])) as Tx[];
  const trades = october.filter((tx) => tx.category === 'trade');
  const [twice, deleted, copied] = [trades[0] as Tx, trades[1] as Tx, trades[2] as Tx];
  const times = (tx: Tx, n: number) =>
    tx.movements.map((m) => ({ ...m, value: new Big(m.value).times(n).toFixed(2) }));

  sim.editPast([
    {
      kind: 'modify',
      profile: 'acme',
      at: '2025-11-10T12:00:00.000Z',
      id: twice.id,
      set: { movements: times(twice, 2) },
    },
  ]);
  clock = Date.parse('2025-12-01T02:00:00.000Z');
  await check();
  clock = Date.parse('2025-12-01T03:00:00.000Z');
  const quietCheck = await check();

  const at = '2025-12-05T12:00:00.000Z';
  sim.editPast([
    { kind: 'modify', profile: 'acme', at, id: twice.id, set: { movements: times(twice, 3) } },
    { kind: 'delete', profile: 'acme', at, id: deleted.id },
    {
      kind: 'add',
      profile: 'acme',
      at,
      transaction: {
        ...structuredClone(copied),
        id: 'tx_added_after_close',
        date: '2025-10-20T10:00:00.000Z',
        hash: `0x${'cd'.repeat(32)}`,
      },
    },
  ]);
  clock = Date.parse('2026-01-02T02:00:00.000Z');
  await check();
  await exportOctober(join(dir, 'fresh'));

  const root = join(books, 'restatements/acme/2025-10');
  // The restatement sets, not their records (`records/`).
  const restatements = (await readdir(root))
    .filter((name) => name !== 'records')
    .sort()
    .map((name) => join(root, name));
  const [first, second] = restatements as [string, string];
  const snapshots = [
    ...['--closed', join(closedRun, 'acme_2025-10_snapshot.ndjson.gz')],
    ...['--corrected', join(second, 'acme_2025-10_corrected_snapshot.ndjson.gz')],
  ];
  const withoutSuperseded = await cli('restate', ...snapshots, '--out', join(dir, 'unrebuilt'));
  const rebuiltRoot = join(dir, 'rebuilt');
  const rebuiltRun = await cli(
    'restate',
    ...snapshots,
    ...['--superseded', join(first, 'acme_2025-10_corrected_snapshot.ndjson.gz'), '--out', rebuiltRoot],
  );
  return {
    dir,
    closedRun,
    freshRun: await only(join(dir, 'fresh/reports/acme/2025-10')),
    restatements,
    quietCheck,
    rebuilt: {
      ...rebuiltRun,
      folder: rebuiltRun.code === 0 ? await only(join(rebuiltRoot, 'restatements/acme/2025-10')) : null,
    },
    withoutSuperseded,
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
