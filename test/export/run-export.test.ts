import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Big from 'big.js';
import ExcelJS from 'exceljs';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidAdjustmentsError,
  parseAdjustments,
  serializeAdjustments,
} from '../../lib/adjustments/index.ts';
import { ValidationError } from '../../lib/errors.ts';
import {
  type ExportProgress,
  parseExportRequest,
  RunAbortedError,
  runExport,
} from '../../lib/export/index.ts';
import { currentProcessOwner, ownerTagOf, type ProcessOwner } from '../../lib/storage/owner.ts';
import type { Sink } from '../../lib/storage/sink.ts';
import { type ExportHarness, readCsv, startExportHarness } from '../support/export.ts';
import { generatedIds } from '../support/simulator.ts';

/** The simulator's seed, given explicitly so the expected dataset is generated from the same one. */
const SEED = 1;

describe('runExport (simulator over HTTP, local folder)', () => {
  let harness: ExportHarness;
  afterEach(async () => {
    await harness?.close();
  });

  function generated(profile: string, start: string, end: string): string[] {
    const simulated = harness.simulator.profiles.find((p) => p.name === profile);
    if (simulated === undefined) throw new Error(`no simulated profile ${profile}`);
    return generatedIds(simulated, SEED, start, end);
  }

  it('exports every transaction of the period once, ordered by date then id', async () => {
    harness = await startExportHarness('acme', { seed: SEED });
    const result = await runExport(parseExportRequest({ profile: 'acme', period: '2024' }), harness.deps());
    const rows = await readCsv(join(harness.outDir, result.prefix, 'acme_2024_transactions.csv'));
    const expected = generated('acme', '2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z');

    expect(expected.length).toBeGreaterThan(100);
    expect(rows.map((row) => row.id)).toEqual(expected);
  });

  it('publishes the manifest last, listing every other file with its sha256', async () => {
    harness = await startExportHarness('acme');
    const published: string[] = [];
    const result = await runExport(
      parseExportRequest({ profile: 'acme', period: '2024-06' }),
      harness.deps({ onProgress: (p) => p.stage === 'published' && published.push(p.file) }),
    );
    expect(published.at(-1)).toMatch(/manifest\.json$/);
    const manifest = JSON.parse(await readFile(join(harness.outDir, result.prefix, 'manifest.json'), 'utf8'));
    expect(manifest.files.map((f: { name: string }) => f.name)).toEqual([
      'acme_2024-06_snapshot.ndjson.gz',
      'acme_2024-06_transactions.csv',
      'acme_2024-06_movements.csv',
      'acme_2024-06_summary_by_month.csv',
      'acme_2024-06_summary_by_token.csv',
      'README.txt',
      'acme_2024-06.xlsx',
    ]);
    for (const file of manifest.files as { key: string; sha256: string }[]) {
      const bytes = await readFile(join(harness.outDir, file.key));
      expect(file.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });

  it("lists in the workbook's About sheet every file published before it, with the stored size and sha256", async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({ profile: 'acme', period: '2024-06' }),
      harness.deps(),
    );
    const folder = join(harness.outDir, result.prefix);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(join(folder, 'acme_2024-06.xlsx'));
    const listed = new Map<string, string>();
    workbook.getWorksheet('About')?.eachRow((row) => {
      const item = String(row.getCell(1).value);
      if (item.startsWith('File ')) listed.set(item.slice('File '.length), String(row.getCell(2).value));
    });
    const before = (await readdir(folder)).filter(
      (name) => name !== 'manifest.json' && !name.endsWith('.xlsx'),
    );
    expect([...listed.keys()].sort()).toEqual(before.sort());
    for (const name of before) {
      const bytes = await readFile(join(folder, name));
      expect(listed.get(name), name).toBe(
        `sha256 ${createHash('sha256').update(bytes).digest('hex')}, ${bytes.length} bytes`,
      );
    }
  });

  it('returns summary totals equal to the exact sum of the transaction rows', async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({ profile: 'demo', period: '2025-03', formats: ['csv'] }),
      harness.deps(),
    );
    const rows = await readCsv(join(harness.outDir, result.prefix, 'demo_2025-03_transactions.csv'));
    const value = rows.reduce((sum, row) => sum.plus(row.value_amount || '0'), new Big(0));
    const fees = rows.reduce((sum, row) => sum.plus(row.fee_amount || '0'), new Big(0));
    expect(result.manifest.totals).toEqual({ 'value (USD)': value.toFixed(), 'fees (USD)': fees.toFixed() });
  });

  it('returns month windows that start at local midnight of the report time zone', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({ profile: 'acme', period: '2024', timeZone: 'Europe/Berlin', formats: ['csv'] }),
      harness.deps(),
    );
    expect(result.manifest.windows.slice(0, 2).map((w) => w.start)).toEqual([
      '2023-12-31T23:00:00.000Z',
      '2024-01-31T23:00:00.000Z',
    ]);
  });

  it('writes empty reports for an empty portfolio instead of failing', async () => {
    harness = await startExportHarness('empty');
    const result = await runExport(
      parseExportRequest({ profile: 'empty', period: '2025', formats: ['csv'] }),
      harness.deps(),
    );
    const rows = await readCsv(join(harness.outDir, result.prefix, 'empty_2025_transactions.csv'));
    expect({ rows: rows.length, windows: result.manifest.windows.length }).toEqual({ rows: 0, windows: 0 });
  });

  it('writes empty reports for a period outside the portfolio date bounds', async () => {
    harness = await startExportHarness('acme');
    const result = await runExport(
      parseExportRequest({ profile: 'acme', period: '2019', formats: ['csv'] }),
      harness.deps(),
    );
    expect(result.manifest.counts.transactions).toBe(0);
  });

  it('covers the whole period with "all": one shard per protocol plus the rest, the same ids as an unfiltered export', async () => {
    harness = await startExportHarness('acme');
    const protocols = await harness.client.defiProtocols();
    const deps = harness.deps();
    const all = await runExport(
      parseExportRequest({ profile: 'acme', period: '2024-05', protocols: 'all', formats: ['csv'] }),
      deps,
    );
    const unfiltered = await runExport(
      parseExportRequest({ profile: 'acme', period: '2024-05', formats: ['csv'] }),
      { ...deps, runId: 'unfiltered' },
    );
    const idsOf = async (prefix: string) =>
      (await readCsv(join(harness.outDir, prefix, 'acme_2024-05_transactions.csv'))).map((r) => r.id).sort();

    const allIds = await idsOf(all.prefix);
    const withoutProtocol = (
      await readCsv(join(harness.outDir, all.prefix, 'acme_2024-05_transactions.csv'))
    ).filter((row) => row.protocol === '');
    expect(all.manifest.shards.map((s) => s.protocol ?? '(rest)').sort()).toEqual(
      [...protocols, '(rest)'].sort(),
    );
    expect(withoutProtocol.length).toBeGreaterThan(0);
    expect(allIds).toEqual(await idsOf(unfiltered.prefix));
  });

  it('refuses an unknown protocol with the valid names and publishes nothing', async () => {
    harness = await startExportHarness('acme');
    const run = runExport(
      parseExportRequest({ profile: 'acme', period: '2024', protocols: ['Not A Protocol'] }),
      harness.deps(),
    );
    await expect(run).rejects.toThrow(ValidationError);
    await expect(run).rejects.toThrow(/protocols: unknown protocol "Not A Protocol"; valid names: .*Aave V3/);
    expect(await harness.files()).toEqual([]);
  });

  it('keeps fields the mapping does not know as extra columns', async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({ profile: 'demo', period: '2025', formats: ['csv'] }),
      harness.deps(),
    );
    const rows = await readCsv(join(harness.outDir, result.prefix, 'demo_2025_transactions.csv'));
    const extras = Object.keys(rows[0] ?? {}).slice(18);
    expect({
      hasExtras: extras.length > 0,
      someFilled: rows.some((r) => extras.some((k) => r[k] !== '')),
    }).toEqual({
      hasExtras: true,
      someFilled: true,
    });
  });

  it('marks deleted transactions in the changes report with their sourceGuid', async () => {
    harness = await startExportHarness('demo');
    const result = await runExport(
      parseExportRequest({
        profile: 'demo',
        period: '2025',
        reports: ['changes'],
        changesSince: '2025-01-01',
        formats: ['csv'],
      }),
      harness.deps(),
    );
    const rows = await readCsv(join(harness.outDir, result.prefix, 'demo_2025_changes.csv'));
    const deleted = rows.filter((row) => row.deleted === 'yes');
    expect({
      some: deleted.length > 0,
      allHaveSource: rows.every((row) => /^[0-9a-f-]{36}$/.test(row.source_guid ?? '')),
    }).toEqual({ some: true, allHaveSource: true });
  });

  it('publishes no manifest when the service keeps failing, and a rerun then succeeds', async () => {
    harness = await startExportHarness('acme', {}, { retry: { maxAttempts: 2 } });
    const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv'] });
    harness.simulator.setFaults({ serverError: { rate: 1 }, pathPrefix: '/v2/transactions' });
    await expect(runExport(request, harness.deps())).rejects.toThrow();
    expect((await harness.files()).filter((f) => f.endsWith('manifest.json'))).toEqual([]);
    harness.simulator.setFaults({});
    const result = await runExport(request, harness.deps());
    expect((await harness.files()).filter((f) => f.endsWith('manifest.json'))).toEqual([
      `${result.prefix}/manifest.json`,
    ]);
  });

  it('removes the files it had published when a later file fails, leaving nothing under the run', async () => {
    harness = await startExportHarness('acme');
    const request = parseExportRequest({ profile: 'acme', period: '2024-06', formats: ['csv'] });
    const sink = harness.sink;
    const failing: Sink = {
      ...sink,
      async openSet(prefix) {
        const set = await sink.openSet(prefix);
        return {
          ...set,
          prefix: set.prefix,
          create(name: string, contentType: string) {
            const object = set.create(name, contentType);
            if (name.endsWith('_summary_by_month.csv')) object.stream.destroy(new Error('disk full'));
            return object;
          },
        };
      },
    };

    await expect(runExport(request, harness.deps({ sink: failing, runId: 'failed' }))).rejects.toThrow();

    expect(await harness.files()).toEqual([]);
  });
});

describe('runExport stopped or killed part-way', () => {
  let harness: ExportHarness;
  let scratchParent: string;
  beforeEach(async () => {
    harness = await startExportHarness('acme');
    scratchParent = await mkdtemp(join(tmpdir(), 'pbs-run-scratch-'));
  });
  afterEach(async () => {
    await harness.close();
    await rm(scratchParent, { recursive: true, force: true });
  });

  const request = parseExportRequest({ profile: 'acme', period: '2024', formats: ['csv', 'xlsx'] });

  /** Every entry under the sink folder, hidden ones included. */
  const entries = async () => (await readdir(harness.outDir, { recursive: true })).sort();

  /** Runs the export, aborting it at the first progress event `at` matches. */
  async function abortedAt(at: (progress: ExportProgress) => boolean) {
    const controller = new AbortController();
    const reason = new Error('Ctrl-C');
    const error = await runExport(
      request,
      harness.deps({
        workDir: scratchParent,
        signal: controller.signal,
        onProgress: (progress) => {
          if (at(progress)) controller.abort(reason);
        },
      }),
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    return { error, reason, aborted: controller.signal.aborted };
  }

  it('stops mid-fetch with a RunAbortedError, leaving no file, no staging folder and no scratch folder', async () => {
    const { error, reason, aborted } = await abortedAt((progress) => progress.stage === 'shard');

    expect(aborted).toBe(true);
    expect(error).toBeInstanceOf(RunAbortedError);
    expect((error as RunAbortedError).cause).toBe(reason);
    expect(await entries()).toEqual([]);
    expect(await readdir(scratchParent)).toEqual([]);
  });

  it('stops while publishing, removing what it had staged and its scratch folder', async () => {
    const { error } = await abortedAt((progress) => progress.stage === 'published');

    expect(error).toBeInstanceOf(RunAbortedError);
    // The run's parent folders may stay; no file and no staging folder does.
    expect(await entries()).toEqual(['reports', join('reports', 'acme'), join('reports', 'acme', '2024')]);
    expect(await readdir(scratchParent)).toEqual([]);
  });

  it("fails with the adjustments' refusal when they are another profile's, its fetch settled and its scratch folder removed", async () => {
    const others = parseAdjustments(
      serializeAdjustments({
        schema: 'pbs-export/adjustments@1',
        profile: 'demo',
        version: 1,
        adjustments: [
          { id: 's1', kind: 'spam', token: 'X', by: 'ann', at: '2026-11-21T09:00:00Z', why: 'x' },
        ],
      }),
    );
    const gains = parseExportRequest({
      profile: 'acme',
      period: '2024',
      reports: ['gains'],
      formats: ['csv'],
    });

    const error = await runExport(gains, harness.deps({ workDir: scratchParent, adjustments: others })).then(
      () => undefined,
      (caught: unknown) => caught,
    );

    expect(error).toBeInstanceOf(InvalidAdjustmentsError);
    expect((error as InvalidAdjustmentsError).field).toBe('profile');
    expect({ scratch: await readdir(scratchParent), files: await entries() }).toEqual({
      scratch: [],
      files: [],
    });
  });

  it('removes the scratch folders dead runs left before it starts, and keeps those of live runs', async () => {
    const owner: ProcessOwner = { host: 'aaaaaaaa', pid: 100, isAlive: (pid) => pid === 202 };
    const dead = join(scratchParent, 'pbs-export-aaaaaaaa-201-Ab12Cd');
    const live = join(scratchParent, 'pbs-export-aaaaaaaa-202-Ab12Cd');
    await mkdir(dead);
    await mkdir(live);
    await writeFile(join(dead, 'snapshot.ndjson.gz'), 'raw portfolio data');

    await runExport(request, harness.deps({ workDir: scratchParent, owner }));

    expect(await readdir(scratchParent)).toEqual(['pbs-export-aaaaaaaa-202-Ab12Cd']);
  });

  it('removes the staging folder a killed run left beside its own run folder', async () => {
    const { host } = ownerTagOf(currentProcessOwner());
    const parent = join(harness.outDir, 'reports', 'acme', '2024');
    const left = join(parent, `.killed-run.staging-${host}-${deadPid}-abc123`);
    await mkdir(left, { recursive: true });
    await writeFile(join(left, 'acme_2024_snapshot.ndjson.gz'), 'raw portfolio data');

    const result = await runExport(request, harness.deps({ workDir: scratchParent }));

    expect(await readdir(parent)).toEqual([result.runId]);
  });
});

/** A pid of this host that no process has: a child that has exited. */
let deadPid = 0;
beforeAll(async () => {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  deadPid = child.pid as number;
});
