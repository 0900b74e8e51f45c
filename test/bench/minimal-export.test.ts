/**
 * The minimal export (`bench/minimal-export.ts`, issue #30's yardstick) does the CSV export's job:
 * against the simulator over loopback, at the benchmark's page size and concurrency, its
 * transactions CSV is byte-identical to the export's, and its snapshot holds the same item texts
 * in the same order.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { minimalExport } from '../../bench/minimal-export.ts';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../../lib/pbs/index.ts';
import { DEFAULT_PROFILES, HOSTILE_PROFILE, profilesWithCounts } from '../../lib/simulator/profiles.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const PERIOD = { from: '2023-01-01', to: '2025-12-31' };
const TRANSACTIONS = 2_000;

/** Every transaction line of a gzipped snapshot (its shard and the item's text), in order. */
function recordsOf(gzipped: Buffer): string[] {
  return gunzipSync(gzipped)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"kind":"transaction"'));
}

/** Outputs of one export: its transactions CSV and its snapshot's transaction lines. */
interface Outputs {
  csv: Buffer;
  records: string[];
}

/**
 * Runs our export (transactions, CSV) and the minimal export of `profile` against one simulator
 * over loopback, at the benchmark's page size and concurrency.
 */
async function runBoth(
  profile: string,
  profiles: { name: string }[],
): Promise<{ ours: Outputs; minimal: Outputs & { rows: number } }> {
  const harness: ExportHarness = await startExportHarness(
    profile,
    { profiles: profiles as never },
    { shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: 1000 } } },
  );
  const workDir = await mkdtemp(join(tmpdir(), 'minimal-export-'));
  try {
    const request = parseExportRequest({
      profile,
      period: PERIOD,
      reports: ['transactions'],
      formats: ['csv'],
    });
    const result = await runExport(request, harness.deps({ concurrency: 8 }));
    const file = (suffix: string) => {
      const found = result.manifest.files.find((f) => f.name.endsWith(suffix));
      if (found === undefined) throw new Error(`the export published no ${suffix}`);
      return readFile(join(harness.outDir, found.key));
    };
    const ours = {
      csv: await file('_transactions.csv'),
      records: recordsOf(await file('_snapshot.ndjson.gz')),
    };
    const simulated = harness.simulator.profiles.find((p) => p.name === profile);
    if (simulated === undefined) throw new Error(`no ${profile} profile`);
    const figures = await minimalExport(
      { url: harness.simulator.url, period: PERIOD, concurrency: 8 },
      harness.client,
      simulated,
      workDir,
    );
    const minimal = {
      csv: await readFile(join(workDir, 'minimal.csv')),
      records: recordsOf(await readFile(join(workDir, 'minimal.ndjson.gz'))),
      rows: figures.rows,
    };
    return { ours, minimal };
  } finally {
    await harness.close();
    await rm(workDir, { recursive: true, force: true });
  }
}

const lines = (csv: Buffer) => csv.toString('utf8').split('\r\n');

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
    const { ours, minimal } = await runBoth('hostile', [
      ...DEFAULT_PROFILES.map((p) => ({ ...p })),
      { ...HOSTILE_PROFILE },
    ]);
    expect(lines(minimal.csv)).toEqual(lines(ours.csv));
    expect(minimal.records).toEqual(ours.records);
  }, 120_000);
});
