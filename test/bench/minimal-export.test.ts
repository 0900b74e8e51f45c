/**
 * The minimal export (`bench/minimal-export.ts`, issue #30's yardstick) does the CSV export's job:
 * against the simulator over loopback, at the benchmark's page size and concurrency, its
 * transactions CSV is byte-identical to the export's, and its snapshot holds the same item texts
 * in the same order.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { minimalExport } from '../../bench/minimal-export.ts';
import { profilesWithCounts } from '../../lib/simulator/profiles.ts';
import {
  BENCH_PERIOD,
  exportBeside,
  csvLines as lines,
  type ExportOutputs as Outputs,
  snapshotRecords,
  withHostileProfile,
} from '../support/bench-export.ts';

const TRANSACTIONS = 2_000;

/** Our export (transactions, CSV) and the minimal export of `profile` against one simulator. */
async function runBoth(
  profile: string,
  profiles: { name: string }[],
): Promise<{ ours: Outputs; minimal: Outputs & { rows: number } }> {
  const { ours, theirs } = await exportBeside(profile, profiles, {}, async (context) => {
    const { url, client, simulated, workDir } = context;
    const figures = await minimalExport(
      { url, period: BENCH_PERIOD, concurrency: 8 },
      client,
      simulated,
      workDir,
    );
    return {
      csv: await readFile(join(workDir, 'minimal.csv')),
      records: snapshotRecords(await readFile(join(workDir, 'minimal.ndjson.gz'))),
      rows: figures.rows,
    };
  });
  return { ours, minimal: theirs };
}

describe("the minimal export beside ours, on the benchmark's data", () => {
  let ours: Outputs;
  let minimal: Outputs & { rows: number };
  beforeAll(async () => {
    ({ ours, minimal } = await runBoth('demo', profilesWithCounts({ demo: TRANSACTIONS })));
  }, 120_000);

  it('writes a row per transaction', () => {
    expect(minimal.rows).toBe(ours.records.length);
    expect(minimal.rows).toBeGreaterThan(TRANSACTIONS / 2);
  });

  it('writes the transactions CSV byte for byte as the export does', () => {
    expect(lines(minimal.csv)[0]).toBe(lines(ours.csv)[0]);
    expect(lines(minimal.csv)).toEqual(lines(ours.csv));
    expect(minimal.csv.equals(ours.csv)).toBe(true);
  });

  it('snapshots the same item texts, by window, in the same order', () => {
    expect(minimal.records).toEqual(ours.records);
  });
});

describe('the minimal export beside ours, on the hostile profile', () => {
  it('writes the same CSV and snapshot lines, odd keys, formulas and inexact numbers included', async () => {
    const { ours, minimal } = await runBoth('hostile', withHostileProfile());
    expect(lines(minimal.csv)).toEqual(lines(ours.csv));
    expect(minimal.records).toEqual(ours.records);
  }, 120_000);
});
