/**
 * A benchmark program beside our export: one simulator on loopback, our export of the
 * transactions as CSV at the benchmark's page size and concurrency (8), then the program against
 * the same simulator and client, so a test compares their CSVs and snapshot lines.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination, type PbsClient } from '../../lib/pbs/index.ts';
import { DEFAULT_PROFILES, HOSTILE_PROFILE } from '../../lib/simulator/profiles.ts';
import type { SimulatedProfile } from '../../lib/simulator/types.ts';
import { startExportHarness } from './export.ts';

/** The benchmark's period: three years of the simulator's data. */
export const BENCH_PERIOD = { from: '2023-01-01', to: '2025-12-31' };

/** What one export wrote: its transactions CSV and its snapshot's transaction lines, in order. */
export interface ExportOutputs {
  csv: Buffer;
  records: string[];
}

/** Every transaction line of a gzipped snapshot (its shard and the item's text), in order. */
export function snapshotRecords(gzipped: Buffer): string[] {
  return gunzipSync(gzipped)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"kind":"transaction"'));
}

/** A CSV's rows as text (CRLF line ends), for a comparison that shows the first row that differs. */
export const csvLines = (csv: Buffer): string[] => csv.toString('utf8').split('\r\n');

/** The simulator's default profiles with the hostile one (odd keys, formulas, inexact numbers). */
export const withHostileProfile = (): { name: string }[] => [
  ...DEFAULT_PROFILES.map((p) => ({ ...p })),
  { ...HOSTILE_PROFILE },
];

/** What the program beside ours is given: the simulator's URL, our client, the profile and a scratch folder. */
export interface BesideContext {
  url: string;
  client: PbsClient;
  simulated: SimulatedProfile;
  workDir: string;
}

/** How the two run: page size (1000 unless told) and, for a shard per protocol, `protocols: 'all'`. */
export interface BesideOptions {
  pageSize?: number;
  protocols?: 'all';
}

/**
 * Runs our export (transactions, CSV) of `profile` among `profiles`, then `program` against the
 * same simulator; removes the simulator and scratch folders whatever happens.
 */
export async function exportBeside<T>(
  profile: string,
  profiles: { name: string }[],
  options: BesideOptions,
  program: (context: BesideContext) => Promise<T>,
): Promise<{ ours: ExportOutputs; theirs: T }> {
  const pagination = { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: options.pageSize ?? 1000 };
  const harness = await startExportHarness(
    profile,
    { profiles: profiles as never },
    { shape: { pagination } },
  );
  const workDir = await mkdtemp(join(tmpdir(), 'bench-beside-'));
  try {
    const request = parseExportRequest({
      profile,
      period: BENCH_PERIOD,
      reports: ['transactions'],
      formats: ['csv'],
      ...(options.protocols ? { protocols: options.protocols } : {}),
    });
    const result = await runExport(request, harness.deps({ concurrency: 8 }));
    const file = (suffix: string) => {
      const found = result.manifest.files.find((f) => f.name.endsWith(suffix));
      if (found === undefined) throw new Error(`the export published no ${suffix}`);
      return readFile(join(harness.outDir, found.key));
    };
    const ours = {
      csv: await file('_transactions.csv'),
      records: snapshotRecords(await file('_snapshot.ndjson.gz')),
    };
    const simulated = harness.simulator.profiles.find((p) => p.name === profile);
    if (simulated === undefined) throw new Error(`no ${profile} profile`);
    const theirs = await program({ url: harness.simulator.url, client: harness.client, simulated, workDir });
    return { ours, theirs };
  } finally {
    await harness.close();
    await rm(workDir, { recursive: true, force: true });
  }
}
