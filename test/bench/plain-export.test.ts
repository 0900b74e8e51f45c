/**
 * The plain exporter (`bench/plain-export.ts`, issue #41's plain program) does the CSV export's
 * job: against the simulator over loopback, at the benchmark's page size and concurrency, its
 * transactions CSV is byte-identical to the export's and its snapshot holds the same records in
 * the same order: on the demo data, on the hostile profile, and with a shard per protocol (windows
 * whose items come out of order, so that only its sort puts them right). Its window step alone,
 * fed duplicates and disorder, keeps each transaction once, by instant then id.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type PlainItem, plainExport, windowsInOrder } from '../../bench/plain-export.ts';
import { planShards, type Shard } from '../../lib/export/index.ts';
import { profilesWithCounts } from '../../lib/simulator/profiles.ts';
import {
  BENCH_PERIOD,
  type BesideOptions,
  type ExportOutputs,
  exportBeside,
  csvLines as lines,
  snapshotRecords,
  withHostileProfile,
} from '../support/bench-export.ts';

/**
 * Our export (transactions, CSV) and the plain export of `profile` against one simulator, at the
 * benchmark's page size (or `pageSize`), a shard per protocol when `protocols` says so.
 */
async function runBoth(profile: string, profiles: { name: string }[], options: BesideOptions = {}) {
  const { ours, theirs } = await exportBeside(profile, profiles, options, async (context) => {
    const { url, client, simulated, workDir } = context;
    const protocols = options.protocols ? { protocols: options.protocols } : {};
    const task = { url, period: BENCH_PERIOD, concurrency: 8, ...protocols };
    const figures = await plainExport(task, client, simulated, workDir);
    const plain: ExportOutputs = {
      csv: await readFile(join(workDir, 'plain.csv')),
      records: snapshotRecords(await readFile(join(workDir, 'plain.ndjson.gz'))),
    };
    return { plain, figures };
  });
  return { ours, ...theirs };
}

describe("the plain exporter beside ours, on the benchmark's data", () => {
  it('writes the same CSV byte for byte and the same snapshot records, a row per record', async () => {
    const { ours, plain, figures } = await runBoth('demo', profilesWithCounts({ demo: 3_000 }));
    expect(figures.rows).toBe(ours.records.length);
    expect(figures.rows).toBeGreaterThan(1_000);
    expect(lines(plain.csv)).toEqual(lines(ours.csv));
    expect(plain.csv.equals(ours.csv)).toBe(true);
    expect(plain.records).toEqual(ours.records);
  }, 120_000);
});

describe('the plain exporter beside ours, on the hostile profile and by protocol', () => {
  it('writes the same CSV and snapshot lines, odd keys, formulas and inexact numbers included', async () => {
    const { ours, plain, figures } = await runBoth('hostile', withHostileProfile(), { pageSize: 7 });
    expect(figures.rows).toBe(ours.records.length);
    expect(lines(plain.csv)).toEqual(lines(ours.csv));
    expect(plain.csv.equals(ours.csv)).toBe(true);
    expect(plain.records).toEqual(ours.records);
  }, 120_000);

  it('sorts the windows searched protocol by protocol into the same CSV and snapshot', async () => {
    const { ours, plain, figures } = await runBoth('demo', profilesWithCounts({ demo: 1_500 }), {
      protocols: 'all',
      pageSize: 50,
    });
    // Windows came out of order: the sort ran.
    expect(figures.sortedWindows).toBeGreaterThan(0);
    expect(lines(plain.csv)).toEqual(lines(ours.csv));
    expect(plain.records).toEqual(ours.records);
  }, 120_000);
});

describe("the plain exporter's window step", () => {
  /** An item of id `id` at minute `minute` of 2025, its row its id and time. */
  const item = (id: string, minute: number, copy = ''): PlainItem => {
    const iso = new Date(Date.UTC(2025, 0, 1) + minute * 60_000).toISOString();
    return {
      ms: Date.parse(iso),
      id,
      text: `{"id":"${id}"${copy}}`,
      head: '',
      fixed: `${id},${iso}`,
      extras: null,
    };
  };
  const windows = [
    { index: 0, label: '2025-01', start: new Date('2025-01-01'), end: new Date('2025-02-01') },
    { index: 1, label: '2025-02', start: new Date('2025-02-01'), end: new Date('2025-03-01') },
  ];

  /** The step over `shards`, its CSV and snapshot text gathered. */
  const stepOver = (shards: Shard[]) => {
    const out = { csv: '', snapshot: '' };
    const step = windowsInOrder(shards, {
      head: () => {},
      csv: { write: (text: string) => (out.csv += text) } as never,
      gzip: { write: (text: string) => (out.snapshot += text) } as never,
    });
    const ids = () => out.csv.split('\r\n').map((row) => row.split(',')[0]);
    return { step, out, ids };
  };
  const FEBRUARY = 31 * 24 * 60;

  it('keeps each id once (the first in plan order) and orders each window by instant, then id', () => {
    const { step, out, ids } = stepOver(planShards(windows as never, ['a', 'b']));
    // Window 0's shards: out of order across them, `t2` twice (the second copy differs only in
    // its text, so a kept second copy shows), `t1` and `t0` at the same minute.
    step.arrived(1, [[item('t3', 30), item('t2', 20, ',"copy":2')], [item('t0', 10)]]);
    step.arrived(0, [[item('t1', 10), item('t2', 20)], [item('t5', 50)]]);
    // Window 1: `t6` twice within one shard's pages.
    step.arrived(2, [[item('t6', FEBRUARY + 60)], [item('t6', FEBRUARY + 60, ',"copy":2')]]);
    step.arrived(3, [[item('t7', FEBRUARY + 70)]]);
    expect(ids()).toEqual(['t0', 't1', 't2', 't3', 't5', 't6', 't7', '']);
    expect(out.snapshot).not.toContain('"copy":2');
    expect(step.rows()).toBe(7);
    expect(step.sortedWindows()).toBe(2);
  });

  it('refuses a transaction dated outside the window whose search returned it', () => {
    const { step } = stepOver(planShards(windows as never, null));
    step.arrived(0, [[item('a', 1)]]);
    expect(() => step.arrived(1, [[item('b', 2), item('c', FEBRUARY + 1)]])).toThrow(
      /transaction b is dated outside window 2025-02/,
    );
  });

  it('writes a window that came in order and unique as it came', () => {
    const { step, ids } = stepOver(planShards(windows as never, null));
    step.arrived(0, [[item('a', 1), item('b', 1)], [item('c', 2)]]);
    step.arrived(1, [[item('d', FEBRUARY + 3)]]);
    expect(ids()).toEqual(['a', 'b', 'c', 'd', '']);
    expect(step.sortedWindows()).toBe(0);
  });
});
