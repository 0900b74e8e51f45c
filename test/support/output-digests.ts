/**
 * The byte-identity baseline of the export's hot path: for a few fixed runs against the simulator
 * (the demo, the benchmark's data at a few thousand transactions, its gains run, the hostile
 * profile), the sha256 of every CSV published, of the snapshot's records (every line after the
 * header, whose `apiBase` names the simulator's random port) and of the Transactions sheet's XML.
 *
 * `test/export/byte-identity.test.ts` compares a run of today's code with the digests recorded in
 * `test/export/byte-identity.golden.json`, which `npx tsx test/support/output-digests.ts --write`
 * regenerates (with the code the outputs must stay identical to: a deliberate change of an output
 * format, such as a CSV dialect's dates, is followed by regenerating them).
 */
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import JSZip from 'jszip';
import { parseExportRequest, runExport } from '../../lib/export/index.ts';
import { DEFAULT_SHAPE, type PagePagination } from '../../lib/pbs/index.ts';
import { DEFAULT_PROFILES, HOSTILE_PROFILE, profilesWithCounts } from '../../lib/simulator/profiles.ts';
import { startExportHarness } from './export.ts';

/** One fixed run: which simulated portfolio, which request, which client page size. */
interface Scenario {
  name: string;
  profile: string;
  profiles: () => { name: string }[];
  request: Record<string, unknown>;
  pageSize?: number;
  concurrency?: number;
}

/** The benchmark's period (`bench/index.ts`: the simulator's data spans these years). */
const ALL_YEARS = { from: '2023-01-01', to: '2025-12-31' };
/** The benchmark's data, small enough for a test: the same generator, fewer transactions. */
const BENCH_TRANSACTIONS = 4_000;

export const SCENARIOS: readonly Scenario[] = [
  {
    name: 'demo',
    profile: 'demo',
    profiles: () => DEFAULT_PROFILES.map((p) => ({ ...p })),
    request: { profile: 'demo', period: '2025', formats: ['csv', 'xlsx'] },
  },
  {
    name: 'bench-transactions',
    profile: 'demo',
    profiles: () => profilesWithCounts({ demo: BENCH_TRANSACTIONS }),
    request: { profile: 'demo', period: ALL_YEARS, reports: ['transactions'], formats: ['csv', 'xlsx'] },
    pageSize: 1000,
    concurrency: 8,
  },
  {
    name: 'bench-gains',
    profile: 'demo',
    profiles: () => profilesWithCounts({ demo: BENCH_TRANSACTIONS }),
    request: { profile: 'demo', period: '2025-12', reports: ['gains'], formats: ['csv'], window: 'week' },
    pageSize: 1000,
    concurrency: 8,
  },
  {
    name: 'hostile',
    profile: 'hostile',
    profiles: () => [...DEFAULT_PROFILES.map((p) => ({ ...p })), { ...HOSTILE_PROFILE }],
    request: {
      profile: 'hostile',
      period: ALL_YEARS,
      window: 'year',
      reports: ['transactions', 'movements', 'summary', 'changes'],
      changesSince: '2023-01-01',
      formats: ['csv', 'xlsx'],
    },
  },
];

/**
 * Digests of one run's outputs, by output: `csv:<name>`, `snapshot-records`, `sheet:Transactions`,
 * `manifest:totals+counts`.
 */
export type OutputDigests = Record<string, string>;

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** Runs `scenario` against a fresh simulator and returns its outputs' digests. */
export async function scenarioDigests(scenario: Scenario): Promise<OutputDigests> {
  const harness = await startExportHarness(
    scenario.profile,
    { profiles: scenario.profiles() as never },
    scenario.pageSize === undefined ? {} : pageSizeOverride(scenario.pageSize),
  );
  try {
    const request = parseExportRequest(scenario.request);
    const result = await runExport(
      request,
      harness.deps(scenario.concurrency === undefined ? {} : { concurrency: scenario.concurrency }),
    );
    // The manifest's totals and counts (the rest names the run, its time and the simulator's port).
    const digests: OutputDigests = {
      'manifest:totals+counts': sha256(JSON.stringify([result.manifest.totals, result.manifest.counts])),
    };
    for (const file of result.manifest.files) {
      const bytes = await readFile(join(harness.outDir, file.key));
      // Run-specific names carry the profile and period only: stable across runs.
      if (file.name.endsWith('_snapshot.ndjson.gz')) digests['snapshot-records'] = recordsDigest(bytes);
      else if (file.name.endsWith('.csv')) digests[`csv:${file.name}`] = sha256(bytes);
      else if (file.name.endsWith('.xlsx')) digests['sheet:Transactions'] = await sheetDigest(bytes);
    }
    return digests;
  } finally {
    await harness.close();
  }
}

/** The client's page size (the benchmark reads pages of 1 000). */
function pageSizeOverride(pageSize: number) {
  return { shape: { pagination: { ...(DEFAULT_SHAPE.pagination as PagePagination), pageSize } } };
}

/** sha256 of every line of a gzipped snapshot after its header. */
function recordsDigest(gzipped: Buffer): string {
  const text = gunzipSync(gzipped);
  const firstNewline = text.indexOf(0x0a);
  return sha256(text.subarray(firstNewline + 1));
}

/** sha256 of the XML of the workbook's sheet named Transactions. */
async function sheetDigest(xlsx: Buffer): Promise<string> {
  const zip = await JSZip.loadAsync(xlsx);
  const workbook = await zip.file('xl/workbook.xml')?.async('string');
  const tag = /<sheet [^>]*name="Transactions"[^>]*>/.exec(workbook ?? '')?.[0];
  const id = tag === undefined ? undefined : /sheetId="(\d+)"/.exec(tag)?.[1];
  const sheet = id === undefined ? undefined : zip.file(`xl/worksheets/sheet${id}.xml`);
  if (sheet === undefined || sheet === null)
    throw new Error(`the workbook has no Transactions sheet: ${workbook}`);
  return sha256(await sheet.async('uint8array'));
}

export const GOLDEN_FILE = fileURLToPath(new URL('../export/byte-identity.golden.json', import.meta.url));

// `npx tsx test/support/output-digests.ts --write`: records the digests of the code checked out.
if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  const golden: Record<string, OutputDigests> = {};
  for (const scenario of SCENARIOS) golden[scenario.name] = await scenarioDigests(scenario);
  await writeFile(GOLDEN_FILE, `${JSON.stringify(golden, null, 2)}\n`);
  console.log(`wrote ${GOLDEN_FILE}`);
}
