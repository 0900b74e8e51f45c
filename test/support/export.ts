import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import {
  type ExportDeps,
  GENERATOR,
  type Manifest,
  publishReports,
  readSnapshotHeader,
  renderReports,
} from '../../lib/export/index.ts';
import { createPbsClient, type PbsClient } from '../../lib/pbs/index.ts';
import { startSimulator } from '../../lib/simulator/index.ts';
import type { RunningSimulator, SimulatorOptions } from '../../lib/simulator/types.ts';
import { createLocalSink } from '../../lib/storage/index.ts';
import type { Sink } from '../../lib/storage/sink.ts';

/** A simulator on loopback, a client for one of its profiles and a scratch folder sink. */
export interface ExportHarness {
  simulator: RunningSimulator;
  client: PbsClient;
  outDir: string;
  sink: Sink;
  /** Deps of `runExport` over this harness, with overrides. */
  deps(overrides?: Partial<ExportDeps>): ExportDeps;
  /** Relative paths of every finished file under the sink. */
  files(): Promise<string[]>;
  close(): Promise<void>;
}

/** Starts the harness for `profile` (default `demo`). */
export async function startExportHarness(
  profile = 'demo',
  options: SimulatorOptions = {},
  clientOverrides: Partial<Parameters<typeof createPbsClient>[0]> = {},
): Promise<ExportHarness> {
  const simulator = await startSimulator({ rateLimitPerSecond: 1000, ...options });
  const simulated = simulator.profiles.find((p) => p.name === profile);
  if (!simulated) throw new Error(`no simulated profile ${profile}`);
  const client = createPbsClient({
    baseUrl: simulator.url,
    credentials: {
      apiKey: simulated.apiKey,
      apiSecret: simulated.apiSecret,
      profileGuid: simulated.profileGuid,
    },
    requestsPerSecond: 1000,
    burst: 50,
    sleep: async () => {},
    ...clientOverrides,
  });
  const outDir = await mkdtemp(join(tmpdir(), 'pbs-export-out-'));
  const sink = createLocalSink(outDir);
  return {
    simulator,
    client,
    outDir,
    sink,
    deps: (overrides = {}) => ({
      client,
      sink,
      fields: client.shape.fields,
      apiBase: simulator.url,
      demo: true,
      now: () => new Date('2026-11-22T10:00:00.000Z'),
      ...overrides,
    }),
    files: async () =>
      (await readdir(outDir, { recursive: true, withFileTypes: true }))
        .filter((entry) => entry.isFile())
        .map((entry) => join(entry.parentPath, entry.name).slice(outDir.length + 1))
        .sort(),
    close: async () => {
      await simulator.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}

/** Reads a CSV file written by the exporter (BOM, header row) as records keyed by column. */
export async function readCsv(path: string, delimiter = ','): Promise<Record<string, string>[]> {
  return parse(await readFile(path), { bom: true, columns: true, delimiter }) as Record<string, string>[];
}

/**
 * Renders the reports of `snapshotFile` again and publishes them under `prefix` of `sink`, as
 * `pbs-export render` does: `renderReports` into a scratch folder, then `publishReports`.
 */
export async function renderSnapshotAgain(
  snapshotFile: string,
  sink: Sink,
  prefix: string,
  now: () => Date,
): Promise<Manifest> {
  const workDir = await mkdtemp(join(tmpdir(), 'pbs-render-'));
  try {
    const rendered = await renderReports({
      snapshotFile,
      header: await readSnapshotHeader(snapshotFile),
      runId: prefix,
      now,
      generator: GENERATOR,
      counts: {},
      workDir,
    });
    return (await publishReports(rendered, { sink, prefix, now })).manifest;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
