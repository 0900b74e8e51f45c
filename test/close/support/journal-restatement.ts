/**
 * The done-when scenario with the journal report (issue 28): export October with `--report
 * journal` (CSV and hledger), close it, let the simulator modify one, add one and delete one
 * October trade, run November, check the closes; then export the changed October afresh (the
 * corrected journal, made by the export itself) and rebuild the restatement offline.
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

/** The folders of one scenario run. */
export interface JournalScenario {
  dir: string;
  /** The closed October set, the restatement set, a fresh export of the changed October, the offline rebuild. */
  closedRun: string;
  restatement: string;
  freshRun: string;
  rebuilt: string;
  edited: { modified: string; deleted: string; added: string };
  /** What the CLI printed. */
  out: string[];
  close(): Promise<void>;
}

const only = async (folder: string) => join(folder, (await readdir(folder))[0] as string);

/** Runs the scenario (see the module comment) over the simulator on loopback, with the journal `formats`. */
export async function runJournalScenario(formats = 'csv,hledger'): Promise<JournalScenario> {
  const dir = await mkdtemp(join(tmpdir(), 'pbs-close-journal-'));
  let clock = Date.parse('2025-11-02T06:00:00.000Z');
  const sim: RunningSimulator = await startSimulator({
    now: () => clock,
    maxClockSkewMs: Number.MAX_SAFE_INTEGER,
    rateLimitPerSecond: 0,
  });
  const out: string[] = [];
  const cli = async (...argv: string[]) => {
    const io: CliIo = {
      stdout: { write: (text: string) => out.push(text) },
      stderr: { write: (text: string) => out.push(text) },
      env: { PBS_BASE_URL: sim.url, PBS_API_KEY: acme.apiKey, PBS_API_SECRET: acme.apiSecret },
      now: () => new Date(clock),
    };
    const code = await main(argv, io);
    if (code !== 0) throw new Error(`pbs-export ${argv.join(' ')} exited ${code}: ${out.join('')}`);
  };
  const exportOctober = (folder: string) =>
    cli(
      ...['run', '--profile', 'acme', '--period', '2025-10', '--report', 'journal'],
      ...['--journal-format', formats, '--format', 'csv', '--out', folder],
    );
  const books = join(dir, 'books');
  await exportOctober(books);
  const closedRun = await only(join(books, 'reports/acme/2025-10'));
  clock = Date.parse('2025-11-03T09:00:00.000Z');
  await cli(
    ...['close', '--profile', 'acme', '--period', '2025-10', '--run', closedRun.split('/').at(-1) as string],
    ...['--by', 'ann', '--out', books],
  );
  const october = (await fetchAllItems(sim.url, acme, '/v2/transactions', [
    ['startDate', '2025-10-01T00:00:00.000Z'],
    ['endDate', '2025-11-01T00:00:00.000Z'],
  ])) as Tx[];
  const trades = october.filter((tx) => tx.category === 'trade');
  const [modified, deleted, copied] = [trades[0] as Tx, trades[1] as Tx, trades[2] as Tx];
  const edited = { modified: modified.id, deleted: deleted.id, added: 'tx_added_after_close' };
  const at = '2025-11-10T12:00:00.000Z';
  sim.editPast([
    {
      kind: 'modify',
      profile: 'acme',
      at,
      id: modified.id,
      set: {
        movements: modified.movements.map((m) => ({ ...m, value: new Big(m.value).times(2).toFixed(2) })),
      },
    },
    { kind: 'delete', profile: 'acme', at, id: deleted.id },
    {
      kind: 'add',
      profile: 'acme',
      at,
      transaction: {
        ...structuredClone(copied),
        id: edited.added,
        date: '2025-10-20T10:00:00.000Z',
        hash: `0x${'cd'.repeat(32)}`,
      },
    },
  ]);
  clock = Date.parse('2025-12-01T02:00:00.000Z');
  await cli('run', '--profile', 'acme', '--period', '2025-11', '--out', books);
  await cli('check-closes', '--profile', 'acme', '--out', books);
  await exportOctober(join(dir, 'fresh'));
  const restatement = await only(join(books, 'restatements/acme/2025-10'));
  const rebuiltRoot = join(dir, 'rebuilt');
  await cli(
    ...['restate', '--closed', join(closedRun, 'acme_2025-10_snapshot.ndjson.gz')],
    ...['--corrected', join(restatement, 'acme_2025-10_corrected_snapshot.ndjson.gz'), '--out', rebuiltRoot],
  );
  return {
    dir,
    closedRun,
    restatement,
    freshRun: await only(join(dir, 'fresh/reports/acme/2025-10')),
    rebuilt: await only(join(rebuiltRoot, 'restatements/acme/2025-10')),
    edited,
    out,
    close: async () => {
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
