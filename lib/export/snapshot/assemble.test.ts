import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import type { FetchedShard } from '../fetch/fetch.ts';
import { assembleSnapshot, PartOrderError, STREAM_BATCH } from './assemble.ts';
import { StrayTransactionError } from './slots.ts';
import {
  createNdjsonWriter,
  readNdjsonLines,
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

  async function part(
    name: string,
    windowRef: typeof jan,
    protocol: string,
    items: object[],
    inOrder?: boolean,
  ) {
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
      ...(inOrder === undefined ? {} : { inOrder }),
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

  it('writes a deferred header as a gzip member of its own and hashes the snapshot as it is written', async () => {
    const snapshotFile = join(dir, 'snapshot.ndjson.gz');
    const result = await assembleSnapshot({
      header: async () => header,
      windows: [jan, feb],
      fetched: [await part('jan-a', jan, 'A', [{ id: 'a', date: '2025-01-05T00:00:00.000Z' }])],
      fields: DEFAULT_SHAPE.fields,
      snapshotFile,
    });
    const bytes = await readFile(snapshotFile);
    expect(result.digest).toEqual({
      bytes: bytes.length,
      sha256: createHash('sha256').update(bytes).digest('hex'),
    });
    // The header member is the bytes the NDJSON writer gives the header alone.
    const headerOnly = join(dir, 'header.ndjson.gz');
    const writer = createNdjsonWriter(headerOnly);
    await writer.write(header);
    await writer.close();
    const member = await readFile(headerOnly);
    expect(bytes.subarray(0, member.length).equals(member)).toBe(true);
    expect(await readSnapshotHeader(snapshotFile)).toEqual(header);
    const ids: string[] = [];
    for await (const record of readSnapshotRecords(snapshotFile)) {
      if (record.kind === 'transaction') ids.push(String(record.data.id));
    }
    expect(ids).toEqual(['a']);
  });

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

  it('drops transactions outside every window and counts them', async () => {
    const { ids, result } = await assembled([
      await part('jan-a', jan, 'A', [
        { id: 'in', date: '2025-01-31T23:59:59.999Z' },
        { id: 'out', date: '2025-03-01T00:00:00.000Z' },
      ]),
      await part('feb-a', feb, 'A', [{ id: 'before', date: '2024-12-31T23:59:59.999Z' }]),
    ]);
    expect({ ids, outside: result.outsideWindow }).toEqual({ ids: ['in'], outside: 2 });
  });

  it('keeps a transaction the next window returned in the window of its date, in date order', async () => {
    const { ids, result, snapshotFile } = await assembled([
      await part('jan-a', jan, 'A', [{ id: 'a', date: '2025-01-05T00:00:00.000Z' }]),
      await part('feb-a', feb, 'A', [
        { id: 'moved', date: '2025-01-31T23:00:00.000Z' },
        { id: 'b', date: '2025-02-05T00:00:00.000Z' },
      ]),
    ]);
    expect({ ids, otherWindow: result.otherWindow, outside: result.outsideWindow }).toEqual({
      ids: ['a', 'moved', 'b'],
      otherWindow: 1,
      outside: 0,
    });
    const shards: string[] = [];
    for await (const record of readSnapshotRecords(snapshotFile)) {
      if (record.kind === 'transaction') shards.push(record.shard);
    }
    // The record names the search it came in.
    expect(shards).toEqual(['jan-a', 'feb-a', 'feb-a']);
  });

  it('keeps a transaction the window before returned in the window of its date', async () => {
    const { ids, result } = await assembled([
      await part('jan-a', jan, 'A', [
        { id: 'a', date: '2025-01-05T00:00:00.000Z' },
        { id: 'moved', date: '2025-02-01T01:00:00.000Z' },
      ]),
      await part('feb-a', feb, 'A', [{ id: 'b', date: '2025-02-05T00:00:00.000Z' }], true),
    ]);
    expect({ ids, otherWindow: result.otherWindow }).toEqual({ ids: ['a', 'moved', 'b'], otherWindow: 1 });
  });

  it('keeps a transaction both neighbouring searches returned once, counted as a duplicate', async () => {
    const both = { id: 'edge', date: '2025-01-31T23:00:00.000Z' };
    const { ids, result } = await assembled([
      await part('jan-a', jan, 'A', [both]),
      await part('feb-a', feb, 'A', [both, { id: 'b', date: '2025-02-05T00:00:00.000Z' }]),
    ]);
    expect({ ids, duplicates: result.duplicates, otherWindow: result.otherWindow }).toEqual({
      ids: ['edge', 'b'],
      duplicates: 1,
      otherWindow: 0,
    });
  });

  it('throws StrayTransactionError for a transaction returned two windows after its own was written', async () => {
    const mar = {
      index: 2,
      start: new Date('2025-03-01T00:00:00.000Z'),
      end: new Date('2025-04-01T00:00:00.000Z'),
    };
    const failure = assembleSnapshot({
      header,
      windows: [jan, feb, mar],
      fetched: [
        await part('jan-a', jan, 'A', []),
        await part('feb-a', feb, 'A', []),
        await part('mar-a', mar, 'A', [{ id: 'far', date: '2025-01-10T00:00:00.000Z' }]),
      ],
      fields: DEFAULT_SHAPE.fields,
      snapshotFile: join(dir, 'snapshot.ndjson.gz'),
    });
    await expect(failure).rejects.toThrow(StrayTransactionError);
  });

  it('streams a window fetched in order in batches, writing the very snapshot a window collected whole gives', async () => {
    // Three times a batch, in date order; each instant holds 7 transactions whose ids come
    // backwards (the snapshot sorts them), so batch ends fall inside runs of one instant; and
    // transactions the service sent outside the window, before and after it.
    const items: object[] = [{ id: 'early', date: '2024-12-31T23:59:59.999Z' }];
    for (let i = 0; i < 3 * STREAM_BATCH; i += 1) {
      const instant = new Date(jan.start.getTime() + Math.floor(i / 7) * 60_000).toISOString();
      items.push({ id: `tx-${String(6 - (i % 7))}-${Math.floor(i / 7)}`, date: instant, n: i });
    }
    items.push({ id: 'late', date: '2025-02-01T00:00:00.000Z' });
    const snapshotOf = async (inOrder: boolean) => {
      const seenByWindow: number[] = [];
      const snapshotFile = join(dir, `snapshot-${inOrder}.ndjson.gz`);
      const result = await assembleSnapshot({
        header,
        windows: [jan],
        fetched: [await part(`jan-${inOrder}`, jan, 'A', items, inOrder)],
        fields: DEFAULT_SHAPE.fields,
        snapshotFile,
        onWindow: (records) => seenByWindow.push([...records].length),
      });
      const lines: string[] = [];
      for await (const line of readNdjsonLines(snapshotFile))
        lines.push(line.replaceAll(`jan-${inOrder}`, 'jan'));
      return { result, lines, seenByWindow };
    };
    const streamed = await snapshotOf(true);
    const whole = await snapshotOf(false);
    expect(streamed.lines).toEqual(whole.lines);
    expect(streamed.result).toEqual(whole.result);
    expect(streamed.result).toMatchObject({ transactions: 3 * STREAM_BATCH, outsideWindow: 2 });
    // Sorted by instant, then id: the first instant's seven ids in order.
    const ids = streamed.lines
      .slice(1, 8)
      .map((line) => (JSON.parse(line) as { data: { id: string } }).data.id);
    expect(ids).toEqual(['tx-0-0', 'tx-1-0', 'tx-2-0', 'tx-3-0', 'tx-4-0', 'tx-5-0', 'tx-6-0']);
    // The look-ahead saw the whole window collected, and the first batch of the streamed one.
    expect(whole.seenByWindow).toEqual([3 * STREAM_BATCH]);
    expect(streamed.seenByWindow).toHaveLength(1);
    expect(streamed.seenByWindow[0]).toBeGreaterThanOrEqual(STREAM_BATCH);
    expect(streamed.seenByWindow[0]).toBeLessThan(STREAM_BATCH + 7);
  });

  it('refuses a part said to be in order whose lines go back in time', async () => {
    const fetched = [
      await part(
        'jan-a',
        jan,
        'A',
        [
          { id: 'b', date: '2025-01-09T00:00:00.000Z' },
          { id: 'a', date: '2025-01-05T00:00:00.000Z' },
        ],
        true,
      ),
    ];
    const refused = assembled(fetched);
    await expect(refused).rejects.toBeInstanceOf(PartOrderError);
    await expect(refused).rejects.toThrow(/transaction a is out of date order/);
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
