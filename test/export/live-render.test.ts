import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assembleExport,
  createNdjsonWriter,
  type ExportPlan,
  type FetchedShard,
  GENERATOR,
  parseExportRequest,
  publishReports,
  readSnapshotHeader,
  renderReports,
  runPrefix,
} from '../../lib/export/index.ts';
import { DEFAULT_SHAPE } from '../../lib/pbs/shape.ts';
import { createLocalSink } from '../../lib/storage/index.ts';
import { renderSnapshotAgain } from '../support/export.ts';

const jan = {
  index: 0,
  label: '2025-01',
  start: new Date('2025-01-01T00:00:00Z'),
  end: new Date('2025-02-01T00:00:00Z'),
};
const feb = {
  index: 1,
  label: '2025-02',
  start: new Date('2025-02-01T00:00:00Z'),
  end: new Date('2025-03-01T00:00:00Z'),
};

function tx(id: string, date: string, extra: Record<string, unknown> = {}) {
  return {
    id,
    date,
    type: 'trade',
    category: 'swap',
    movements: [
      { symbol: 'ETH', amount: '-1.5', value: '-3000.10' },
      { symbol: 'USDC', amount: '3000', value: '3000' },
    ],
    value: { amount: '3000.10', currency: 'USD' },
    ...extra,
  };
}

describe('reports rendered while the snapshot is assembled', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-live-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function part(name: string, window: typeof jan, items: object[]): Promise<FetchedShard> {
    const partFile = join(dir, `${name}.ndjson.gz`);
    const writer = createNdjsonWriter(partFile);
    for (const item of items) await writer.write(item);
    await writer.close();
    return {
      shard: { id: name, window, protocol: null },
      partFile,
      rows: items.length,
      totalReported: null,
      completeness: 'second-listing',
      attempts: 1,
    };
  }

  let calls = 0;

  /**
   * Runs the finish stage over prepared parts, then renders the same snapshot again without the
   * live path. Each call has run ids of its own: a run is never written over another.
   */
  async function exportBothWays(feb2: object[]) {
    calls += 1;
    const renderedPrefix = `rendered-${calls}`;
    const request = parseExportRequest({
      profile: 'demo',
      period: { from: '2025-01-01', to: '2025-02-28' },
      reports: ['transactions', 'movements', 'summary'],
      formats: ['csv', 'xlsx'],
    });
    const plan: ExportPlan = {
      windows: [jan, feb],
      shards: [
        { id: '2025-01', window: jan, protocol: null },
        { id: '2025-02', window: feb, protocol: null },
      ],
    };
    const fetched = [
      await part('2025-01', jan, [
        tx('a', '2025-01-03T10:00:00Z'),
        tx('b', '2025-01-04T10:00:00Z', { memo: 'x' }),
      ]),
      await part('2025-02', feb, feb2),
    ];
    const workDir = await mkdtemp(join(dir, 'work-'));
    const sink = createLocalSink(join(dir, 'out'));
    const now = () => new Date('2026-11-22T10:00:00Z');
    const warnings: string[] = [];
    // The finish of a run, as the CLI and the Lambda workers run it: assemble → render → publish.
    const assembled = await assembleExport(request, plan, fetched, {
      client: { timeline: async function* () {} },
      fields: DEFAULT_SHAPE.fields,
      apiBase: 'http://127.0.0.1:1',
      startedAt: now(),
      workDir,
      warn: (m) => warnings.push(m),
    });
    const runId = `live-${calls}`;
    const prefix = runPrefix(request, runId);
    const rendered = await renderReports({ ...assembled, runId, now, generator: GENERATOR, workDir });
    const live = { prefix, ...(await publishReports(rendered, { sink, prefix, now })) };
    const snapshotFile = join(dir, 'out', live.prefix, 'demo_2025-01-01_2025-02-28_snapshot.ndjson.gz');
    const again = await renderSnapshotAgain(snapshotFile, sink, renderedPrefix, now);
    const read = (prefix: string, name: string) => readFile(join(dir, 'out', prefix, name), 'utf8');
    return { live, again, renderedPrefix, read, workDir, warnings };
  }

  async function sheetRows(path: string): Promise<unknown[][]> {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.readFile(path);
    const sheet = workbook.getWorksheet('Transactions');
    const rows: unknown[][] = [];
    sheet?.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    return rows;
  }

  for (const [name, feb2] of [
    [
      'with the columns of the first window',
      [tx('c', '2025-02-02T10:00:00Z'), tx('d', '2025-02-03T10:00:00Z', { memo: 'y' })],
    ],
    [
      'when a later window brings a field the first did not have',
      [tx('c', '2025-02-02T10:00:00Z', { network: 'base' })],
    ],
  ] as const) {
    it(`writes the same CSV files and Transactions sheet as a render from the snapshot, ${name}`, async () => {
      const { live, renderedPrefix, read } = await exportBothWays([...feb2]);
      for (const table of ['transactions', 'movements', 'summary_by_month', 'summary_by_token']) {
        const file = `demo_2025-01-01_2025-02-28_${table}.csv`;
        expect(await read(live.prefix, file), table).toBe(await read(renderedPrefix, file));
      }
      expect(await sheetRows(join(dir, 'out', live.prefix, 'demo_2025-01-01_2025-02-28.xlsx'))).toEqual(
        await sheetRows(join(dir, 'out', renderedPrefix, 'demo_2025-01-01_2025-02-28.xlsx')),
      );
    });
  }

  it('publishes the files written during assembly when the columns held, and renders again when not', async () => {
    const held = await exportBothWays([tx('c', '2025-02-02T10:00:00Z')]);
    const published = await held.read(held.live.prefix, 'demo_2025-01-01_2025-02-28_transactions.csv');
    expect(await readFile(join(held.workDir, 'live-transactions.csv'), 'utf8')).toBe(published);
    expect(await readFile(join(held.workDir, 'live.xlsx'))).toEqual(
      await readFile(join(dir, 'out', held.live.prefix, 'demo_2025-01-01_2025-02-28.xlsx')),
    );
    const changed = await exportBothWays([tx('c', '2025-02-02T10:00:00Z', { network: 'base' })]);
    const republished = await changed.read(
      changed.live.prefix,
      'demo_2025-01-01_2025-02-28_transactions.csv',
    );
    const abandoned = await readFile(join(changed.workDir, 'live-transactions.csv'), 'utf8').catch(() => '');
    expect(abandoned).not.toBe(republished);
    expect(held.warnings).toEqual([]);
    expect(changed.warnings).toEqual([
      "transaction c has a field the first window's transactions did not have: the transactions and movements reports will be rendered again from the snapshot",
    ]);
  });

  it('gives a field first seen in a later window its own column in every format', async () => {
    const { live, read } = await exportBothWays([tx('c', '2025-02-02T10:00:00Z', { network: 'base' })]);
    const csv = await read(live.prefix, 'demo_2025-01-01_2025-02-28_transactions.csv');
    expect(csv.split('\r\n')[0]).toMatch(/,memo,network$/);
    expect(csv.split('\r\n')[3]).toMatch(/,,base$/);
    const [header] = await sheetRows(join(dir, 'out', live.prefix, 'demo_2025-01-01_2025-02-28.xlsx'));
    expect(header?.slice(-2)).toEqual(['memo', 'network']);
  });

  it('writes a snapshot whose header records every shard with its row count', async () => {
    const { live } = await exportBothWays([tx('c', '2025-02-02T10:00:00Z')]);
    const header = await readSnapshotHeader(
      join(dir, 'out', live.prefix, 'demo_2025-01-01_2025-02-28_snapshot.ndjson.gz'),
    );
    expect(header.shards.map((s) => [s.id, s.rows])).toEqual([
      ['2025-01', 2],
      ['2025-02', 1],
    ]);
  });
});
