/**
 * A window's piece read back as its shard's part (`pieceAsPart`): a Lambda fetch-shard task that
 * stored its window's piece stores no part, so when the finish must assemble the run from parts
 * (another window made no piece) it reads those windows from their pieces' snapshot members. The
 * run assembled so must be the run assembled from the parts themselves: the same snapshot, and the
 * same counts, duplicates and transactions outside the range included (the member holds neither).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  assembleExport,
  createNdjsonWriter,
  describePiece,
  type ExportPlan,
  type FetchedShard,
  makeWindowPiece,
  parseExportRequest,
  pieceAsPart,
  type StoredPiece,
} from '../../lib/export/index.ts';
import { DEFAULT_SHAPE } from '../../lib/pbs/shape.ts';

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
const plan: ExportPlan = {
  windows: [jan, feb],
  shards: [
    { id: '2025-01', window: jan, protocol: null },
    { id: '2025-02', window: feb, protocol: null },
  ],
};
// A transaction after the last window (the service's search reached past it) is outside the range.
const request = parseExportRequest({
  profile: 'demo',
  period: { from: '2025-01-01', to: '2025-02-28' },
  reports: ['transactions', 'movements'],
  formats: ['csv'],
});
const startedAt = new Date('2026-11-22T10:00:00Z');
const fields = DEFAULT_SHAPE.fields;

function tx(id: string, date: string, value: string) {
  return {
    id,
    date,
    type: 'trade',
    category: 'swap',
    movements: [{ symbol: 'ETH', amount: '-1.000000000000000001', value: `-${value}` }],
    value: { amount: value, currency: 'USD' },
  };
}

describe('a window piece read back as its part', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-piece-part-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function part(window: typeof jan, items: object[]): Promise<FetchedShard> {
    const partFile = join(dir, `${window.label}.ndjson.gz`);
    const writer = createNdjsonWriter(partFile);
    for (const item of items) await writer.write(item);
    await writer.close();
    return {
      shard: { id: window.label, window, protocol: null },
      partFile,
      rows: items.length,
      totalReported: items.length,
      completeness: 'total',
      attempts: 1,
    };
  }

  /** The piece of `fetched`'s window as a fetch-shard task stores it, and as the finish has it. */
  async function storedPiece(fetched: FetchedShard): Promise<StoredPiece> {
    const workDir = await mkdtemp(join(dir, 'shard-'));
    const piece = await makeWindowPiece(request, plan, fetched, { fields, startedAt, workDir });
    if (piece === null) throw new Error(`no piece of ${fetched.shard.id}`);
    const { description, files } = await describePiece(piece, fetched, false);
    const head = Buffer.from(`${JSON.stringify(description)}\n`);
    const file = join(dir, `piece-${fetched.shard.id}`);
    await writeFile(file, Buffer.concat([head, ...(await Promise.all(files.map((f) => readFile(f))))]));
    return { description, file, offset: head.length };
  }

  async function assembled(fetched: FetchedShard[]) {
    const workDir = await mkdtemp(join(dir, 'finish-'));
    const run = await assembleExport(request, plan, fetched, {
      client: { timeline: async function* () {} },
      fields,
      apiBase: 'http://127.0.0.1:1',
      startedAt,
      workDir,
    });
    return { counts: run.counts, snapshot: gunzipSync(await readFile(run.snapshotFile)).toString('utf8') };
  }

  it('assembles into the snapshot and counts of the parts themselves', async () => {
    const parts = [
      await part(jan, [
        tx('early', '2025-01-05T10:00:00Z', '10.5'),
        tx('a', '2025-01-12T10:00:00Z', '3000.10'),
        // Listed twice (a page boundary moved): one copy is dropped.
        tx('a', '2025-01-12T10:00:00Z', '3000.10'),
        tx('b', '2025-01-20T08:30:00.123Z', '1e-7'),
      ]),
      await part(feb, [
        tx('d', '2025-02-03T00:00:00Z', '42'),
        tx('late', '2025-03-02T12:00:00Z', '1'),
        tx('c', '2025-02-02T00:00:00Z', '7.00'),
      ]),
    ];
    const fromParts = await assembled(parts);
    const readBack: FetchedShard[] = [];
    for (const fetched of parts) {
      readBack.push(await pieceAsPart(await storedPiece(fetched), fetched.shard, fields, dir));
    }
    const fromPieces = await assembled(readBack);
    // The data is what the test is about: a duplicate and a transaction outside the range.
    expect(fromParts.counts).toMatchObject({
      transactions: 5,
      duplicatesDropped: 1,
      outsideWindowDropped: 1,
    });
    expect(fromPieces.counts).toEqual(fromParts.counts);
    expect(fromPieces.snapshot).toBe(fromParts.snapshot);
    expect(fromPieces.snapshot).toContain('"1e-7"');
  });
});
