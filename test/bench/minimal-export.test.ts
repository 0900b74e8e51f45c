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
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimalExport } from '../../bench/minimal-export.ts';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../../lib/pbs/index.ts';
import { profilesWithCounts } from '../../lib/simulator/profiles.ts';
import { type ExportHarness, startExportHarness } from '../support/export.ts';

const PERIOD = { from: '2023-01-01', to: '2025-12-31' };
const TRANSACTIONS = 2_000;

let harness: ExportHarness;
let workDir: string;
let ours: { csv: Buffer; records: string[] };
let minimal: { csv: Buffer; records: string[]; rows: number };

/** Every transaction line of a gzipped snapshot (its shard and the item's text), in order. */
function recordsOf(gzipped: Buffer): string[] {
  return gunzipSync(gzipped)
    .toString('utf8')
    .split('\n')
    .filter((line) => line.startsWith('{"kind":"transaction"'));
}

beforeAll(async () => {
  harness = await startExportHarness(
    'demo',
    { profiles: profilesWithCounts({ demo: TRANSACTIONS }) as never },
    { shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize: 1000 } } },
  );
  const request = parseExportRequest({
    profile: 'demo',
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
  ours = { csv: await file('_transactions.csv'), records: recordsOf(await file('_snapshot.ndjson.gz')) };
  const simulated = harness.simulator.profiles.find((p) => p.name === 'demo');
  if (simulated === undefined) throw new Error('no demo profile');
  workDir = await mkdtemp(join(tmpdir(), 'minimal-export-'));
  const figures = await minimalExport(
    { url: harness.simulator.url, period: PERIOD, concurrency: 8 },
    harness.client,
    simulated,
    workDir,
  );
  minimal = {
    csv: await readFile(join(workDir, 'minimal.csv')),
    records: recordsOf(await readFile(join(workDir, 'minimal.ndjson.gz'))),
    rows: figures.rows,
  };
}, 120_000);

afterAll(async () => {
  await harness?.close();
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
});

describe('the minimal export beside ours', () => {
  it('writes a row per transaction', () => {
    expect(minimal.rows).toBe(ours.records.length);
    expect(minimal.rows).toBeGreaterThan(TRANSACTIONS / 2);
  });

  it('writes the transactions CSV byte for byte as the export does', () => {
    const lines = (csv: Buffer) => csv.toString('utf8').split('\r\n');
    expect(lines(minimal.csv)[0]).toBe(lines(ours.csv)[0]);
    expect(lines(minimal.csv)).toEqual(lines(ours.csv));
    expect(minimal.csv.equals(ours.csv)).toBe(true);
  });

  it('snapshots the same item texts, by window, in the same order', () => {
    expect(minimal.records).toEqual(ours.records);
  });
});
