import { describe, expect, it } from 'vitest';
import type { Row } from '../../domain/table.ts';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import { parseExportRequest } from '../plan/request.ts';
import type { SnapshotRecord } from '../snapshot/snapshot.ts';
import { createReportModel, LiveAbandonedError, type LiveTables } from './report-model.ts';

const record = (id: string, extra: Record<string, unknown> = {}): SnapshotRecord => ({
  kind: 'transaction',
  shard: '2025-01',
  data: {
    id,
    date: '2025-01-03T10:00:00Z',
    movements: [{ symbol: 'ETH', amount: '1' }],
    ...extra,
  },
});

function liveModel() {
  const opened: LiveTables[] = [];
  const request = parseExportRequest({
    profile: 'demo',
    period: '2025-01',
    reports: ['transactions', 'movements'],
  });
  const model = createReportModel(DEFAULT_SHAPE.fields, request, { live: { open: (t) => opened.push(t) } });
  return { model, opened };
}

async function drain(rows: AsyncIterable<Row> | Iterable<Row>): Promise<Row[]> {
  const out: Row[] = [];
  for await (const row of rows) out.push(row);
  return out;
}

describe('createReportModel with live tables', () => {
  it('opens the live tables once the first window is looked at, with its columns', () => {
    const { model, opened } = liveModel();
    model.lookAhead([record('a', { memo: 'x' })]);
    model.lookAhead([record('b', { other: 'y' })]);
    expect(opened).toHaveLength(1);
    expect(opened[0]?.specs.map((spec) => spec.name)).toEqual(['transactions', 'movements']);
    expect(opened[0]?.specs[0]?.columns.at(-1)?.key).toBe('memo');
  });

  it('pushes every observed transaction to each channel and ends them when the columns held', async () => {
    const { model, opened } = liveModel();
    const first = [record('a', { memo: 'x' }), record('b')];
    model.lookAhead(first);
    const transactions = opened[0]?.channel('transactions');
    const movements = opened[0]?.channel('movements');
    for (const r of first) await model.observe(r);
    expect(model.endLive()).toBe(true);
    expect((await drain(transactions?.rows() ?? [])).map((row) => row[0])).toEqual(['a', 'b']);
    expect((await drain(movements?.rows() ?? [])).map((row) => row[0])).toEqual(['a', 'b']);
  });

  it('gives up the live rows when a later record has a field the first window lacked', async () => {
    const { model, opened } = liveModel();
    model.lookAhead([record('a')]);
    const transactions = opened[0]?.channel('transactions');
    await model.observe(record('a'));
    await model.observe(record('b', { memo: 'late' }));
    expect(model.endLive()).toBe(false);
    await expect(drain(transactions?.rows() ?? [])).rejects.toBeInstanceOf(LiveAbandonedError);
    expect(model.tables('unused')[0]?.spec.columns.at(-1)?.key).toBe('memo');
  });

  it('opens nothing and reports no live rows when the period has no transaction', () => {
    const { model, opened } = liveModel();
    model.lookAhead([]);
    expect(opened).toHaveLength(0);
    expect(model.endLive()).toBe(false);
  });
});
