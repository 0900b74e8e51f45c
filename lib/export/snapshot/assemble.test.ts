import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import type { FetchedShard } from '../fetch/fetch.ts';
import { assembleSnapshot } from './assemble.ts';
import {
  createNdjsonWriter,
  readSnapshotHeader,
  readSnapshotRecords,
  SNAPSHOT_FORMAT,
  SnapshotError,
  type SnapshotHeader,
} from './snapshot.ts';

const jan = {
  index: 0,
  start: new Date('2025-01-01T00:00:00.000Z'),
  end: new Date('2025-02-01T00:00:00.000Z'),
};
const feb = {
  index: 1,
  start: new Date('2025-02-01T00:00:00.000Z'),
  end: new Date('2025-03-01T00:00:00.000Z'),
};
const header: SnapshotHeader = {
  kind: 'header',
  format: SNAPSHOT_FORMAT,
  request: { profile: 'demo' },
  apiBase: 'http://127.0.0.1:1',
  createdAt: '2026-11-22T00:00:00.000Z',
  fields: DEFAULT_SHAPE.fields,
  windows: [],
  shards: [],
};

describe('assembleSnapshot', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-assemble-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function part(name: string, windowRef: typeof jan, protocol: string, items: object[]) {
    const partFile = join(dir, `${name}.ndjson.gz`);
    const writer = createNdjsonWriter(partFile);
    for (const item of items) await writer.write(item);
    await writer.close();
    return {
      shard: { id: name, window: windowRef, protocol },
      partFile,
      rows: items.length,
      totalReported: items.length,
      completeness: 'total',
      attempts: 1,
    } satisfies FetchedShard;
  }

  async function assembled(fetched: FetchedShard[]) {
    const snapshotFile = join(dir, 'snapshot.ndjson.gz');
    const result = await assembleSnapshot({
      header,
      windows: [jan, feb],
      fetched,
      fields: DEFAULT_SHAPE.fields,
      snapshotFile,
    });
    const ids: string[] = [];
    for await (const record of readSnapshotRecords(snapshotFile)) {
      if (record.kind === 'transaction') ids.push(String(record.data.id));
    }
    return { result, ids, snapshotFile };
  }

  it('orders transactions by window, then date, then id across protocol shards', async () => {
    const { ids } = await assembled([
      await part('jan-a', jan, 'A', [
        { id: 'b', date: '2025-01-05T00:00:00.000Z' },
        { id: 'd', date: '2025-01-09T00:00:00.000Z' },
      ]),
      await part('jan-b', jan, 'B', [
        { id: 'a', date: '2025-01-05T00:00:00.000Z' },
        { id: 'c', date: '2025-01-07T00:00:00.000Z' },
      ]),
      await part('feb-a', feb, 'A', [{ id: 'e', date: '2025-02-01T00:00:00.000Z' }]),
    ]);
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('keeps a transaction seen twice once and counts the duplicate', async () => {
    const { ids, result } = await assembled([
      await part('jan-a', jan, 'A', [
        { id: 'a', date: '2025-01-05T00:00:00.000Z' },
        { id: 'a', date: '2025-01-05T00:00:00.000Z' },
      ]),
    ]);
    expect({ ids, duplicates: result.duplicates }).toEqual({ ids: ['a'], duplicates: 1 });
  });

  it('drops transactions outside their window and counts them', async () => {
    const { ids, result } = await assembled([
      await part('jan-a', jan, 'A', [
        { id: 'in', date: '2025-01-31T23:59:59.999Z' },
        { id: 'out', date: '2025-02-01T00:00:00.000Z' },
      ]),
    ]);
    expect({ ids, outside: result.outsideWindow }).toEqual({ ids: ['in'], outside: 1 });
  });

  it('writes the header first so the snapshot can be rebuilt on its own', async () => {
    const { snapshotFile } = await assembled([]);
    expect(await readSnapshotHeader(snapshotFile)).toEqual(header);
  });

  it('refuses a transaction whose date cannot be read, naming the field', async () => {
    const fetched = [await part('jan-a', jan, 'A', [{ id: 'x', date: 'yesterday' }])];
    await expect(assembled(fetched)).rejects.toThrow(/transaction x: field "date" is not a date/);
  });
});

describe('readSnapshotRecords', () => {
  it('refuses a file whose first line is not a snapshot header', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pbs-snap-'));
    const file = join(dir, 'bad.ndjson.gz');
    const writer = createNdjsonWriter(file);
    await writer.write({ id: 'not-a-header' });
    await writer.close();
    await expect(readSnapshotHeader(file)).rejects.toBeInstanceOf(SnapshotError);
    await rm(dir, { recursive: true, force: true });
  });
});
