import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Page, RawTransaction, TransactionQuery } from '../../pbs/model.ts';
import { DEFAULT_SHAPE } from '../../pbs/shape.ts';
import { type FetchShard, startFetch } from '../fetch/fetch.ts';
import { assembleSnapshot } from './assemble.ts';
import {
  createPartStore,
  DEFAULT_PART_BUDGET_BYTES,
  defaultPartBudgetBytes,
  type PartStore,
  partBudgetFor,
  WORKBOOK_WORKER_BYTES,
} from './part-store.ts';
import { SNAPSHOT_FORMAT, type SnapshotHeader } from './snapshot.ts';

const month = (index: number) => ({
  index,
  start: new Date(Date.UTC(2025, index, 1)),
  end: new Date(Date.UTC(2025, index + 1, 1)),
});
const WINDOWS = [month(0), month(1), month(2)];
const SHARDS: FetchShard[] = WINDOWS.map((window) => ({ id: `w${window.index}`, window, protocol: null }));
/** Items per window: several 256 KiB chunks of part lines each. */
const PER_WINDOW = 4000;
const PAGE = 500;

/**
 * The items of the window at `index`, in date order: text beyond ASCII, numbers a double would
 * change, the last few dated in the next window (searches overlap), and the first one of every
 * window after the first repeated from the window before (the same id sent twice, the same bytes).
 */
function itemsOf(index: number): RawTransaction[] {
  const start = Date.UTC(2025, index, 1);
  const items: RawTransaction[] = [];
  if (index > 0) items.push(...itemsOf(index - 1).slice(-1));
  for (let n = 0; n < PER_WINDOW; n++) {
    const next = index < WINDOWS.length - 1 && n >= PER_WINDOW - 3;
    const at = next ? Date.UTC(2025, index + 1, 1) + n : start + n * 60_000;
    items.push({
      id: `tx-${index}-${n}`,
      date: new Date(at).toISOString(),
      protocol: 'Über',
      memo: `note ${'é'.repeat(n % 7)} ${n}`,
      amount: `${n}.${String(n % 100).padStart(2, '0')}`,
    });
  }
  return items.sort((a, b) => String(a.date).localeCompare(String(b.date)));
}

/** A service listing each shard's window in pages with totals. */
const source = {
  async *transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>> {
    const window = WINDOWS.findIndex((w) => w.start.getTime() === query.window?.start.getTime());
    const items = itemsOf(window);
    for (let index = 0; index * PAGE < items.length; index++) {
      yield { items: items.slice(index * PAGE, (index + 1) * PAGE), totalItems: items.length, index };
    }
  },
};

const header: SnapshotHeader = {
  kind: 'header',
  format: SNAPSHOT_FORMAT,
  request: { profile: 'demo' },
  apiBase: 'http://127.0.0.1:1',
  createdAt: '2026-12-07T00:00:00.000Z',
  fields: DEFAULT_SHAPE.fields,
  windows: [],
  shards: [],
};

describe('part lines in memory within a budget, spilled to their files past it', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'pbs-part-store-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Fetches and assembles every window in `name`'s folder, the parts kept in `store` if given. */
  async function exportWith(name: string, store?: PartStore) {
    const workDir = join(dir, name);
    await mkdir(workDir);
    const run = startFetch(
      source,
      SHARDS,
      {},
      {
        workDir,
        concurrency: 3,
        shardAttempts: 1,
        fields: DEFAULT_SHAPE.fields,
        compressParts: false,
        ...(store ? { partStore: store } : {}),
      },
    );
    const snapshotFile = join(workDir, 'snapshot.ndjson.gz');
    const result = await assembleSnapshot({
      header,
      windows: WINDOWS,
      fetched: { shards: SHARDS, shard: (index) => run.shard(index) },
      fields: DEFAULT_SHAPE.fields,
      snapshotFile,
    });
    const fetched = await run.done;
    return { result, fetched, snapshot: await readFile(snapshotFile) };
  }

  it('writes the same snapshot, and spilled parts the same files, whatever the budget', async () => {
    const files = await exportWith('files');
    const partBytes = await Promise.all(files.fetched.map((f) => readFile(f.partFile)));
    const roomy = createPartStore(64 * 1024 * 1024);
    const inMemory = await exportWith('memory', roomy);
    // Room for a little over one chunk: the first part keeps its first chunk, every part spills.
    const tight = createPartStore(300 * 1024);
    const spilled = await exportWith('spilled', tight);

    expect(files.result.transactions).toBe(WINDOWS.length * PER_WINDOW);
    expect(files.result.duplicates).toBe(WINDOWS.length - 1);
    expect(files.result.otherWindow).toBeGreaterThan(0);
    const records = gunzipSync(files.snapshot).toString('utf8').split('\n');
    expect(records.filter((line) => line.includes('"kind":"transaction"'))).toHaveLength(
      WINDOWS.length * PER_WINDOW,
    );

    // In memory: nothing on disk but the snapshot, the same bytes, nothing held once written.
    expect(inMemory.snapshot.equals(files.snapshot)).toBe(true);
    expect(inMemory.result).toEqual(files.result);
    expect(roomy.spilled()).toBe(0);
    for (const f of inMemory.fetched) expect(existsSync(f.partFile)).toBe(false);
    expect(roomy.heldBytes()).toBe(0);

    // Spilled: every part on disk, byte for byte the file the writer of files writes.
    expect(spilled.snapshot.equals(files.snapshot)).toBe(true);
    expect(spilled.result).toEqual(files.result);
    expect(tight.spilled()).toBe(SHARDS.length);
    const spilledBytes = await Promise.all(spilled.fetched.map((f) => readFile(f.partFile)));
    expect(spilledBytes.map((b) => b.length)).toEqual(partBytes.map((b) => b.length));
    for (const [i, bytes] of spilledBytes.entries()) expect(bytes.equals(partBytes[i] as Buffer)).toBe(true);
    expect(tight.heldBytes()).toBe(0);
  });

  it('never holds more than its budget, and spills only the parts past it', async () => {
    // Room for about five 256 KiB chunks: the parts (about 1 MB each) cannot all stay.
    const store = createPartStore(1300 * 1024);
    let most = 0;
    const sampled = {
      async *transactionPages(query: TransactionQuery): AsyncIterable<Page<RawTransaction>> {
        for await (const page of source.transactionPages(query)) {
          most = Math.max(most, store.heldBytes());
          yield page;
        }
      },
    };
    const workDir = join(dir, 'sampled');
    await mkdir(workDir);
    const run = startFetch(
      sampled,
      SHARDS,
      {},
      {
        workDir,
        concurrency: 3,
        shardAttempts: 1,
        fields: DEFAULT_SHAPE.fields,
        compressParts: false,
        partStore: store,
      },
    );
    const fetched = await run.done;
    most = Math.max(most, store.heldBytes());
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThanOrEqual(1300 * 1024);
    expect(store.spilled()).toBeGreaterThan(0);
    expect(store.spilled()).toBeLessThan(SHARDS.length);
    expect(fetched.filter((f) => existsSync(f.partFile))).toHaveLength(store.spilled());
  });

  it('sizes its default budget from the heap limit: 1/32 of it, at most 16 MiB', () => {
    const MiB = 1024 * 1024;
    expect(DEFAULT_PART_BUDGET_BYTES).toBe(16 * MiB);
    expect(defaultPartBudgetBytes(176 * MiB)).toBe(5.5 * MiB);
    expect(defaultPartBudgetBytes(4096 * MiB)).toBe(16 * MiB);
    expect(defaultPartBudgetBytes(512 * MiB)).toBe(16 * MiB);
    expect(defaultPartBudgetBytes(100)).toBe(3);
    expect(() => defaultPartBudgetBytes(Number.NaN)).toThrow(/heap limit/);
    expect(createPartStore().budgetBytes).toBe(defaultPartBudgetBytes());
  });

  it('leaves a workbook worker its memory: a run writing XLSX holds less, never below 0', () => {
    const MiB = 1024 * 1024;
    expect(WORKBOOK_WORKER_BYTES).toBe(16 * MiB);
    expect(partBudgetFor(['csv'], 4096 * MiB)).toBe(16 * MiB);
    expect(partBudgetFor(['csv'], 176 * MiB)).toBe(5.5 * MiB);
    expect(partBudgetFor(['csv', 'xlsx'], 4096 * MiB)).toBe(0);
    expect(partBudgetFor(['xlsx'], 176 * MiB)).toBe(0);
    expect(partBudgetFor(['json'], 4096 * MiB)).toBe(16 * MiB);
  });

  it('holds less by default in a process given a small heap (128 MB of old space)', () => {
    const module = fileURLToPath(new URL('./part-store.ts', import.meta.url));
    const script = `const { createPartStore } = await import(${JSON.stringify(module)}); console.log(createPartStore().budgetBytes);`;
    const budget = (heapFlag: string[]) =>
      Number(
        execFileSync(
          process.execPath,
          [...heapFlag, '--import', 'tsx', '--input-type=module', '-e', script],
          {
            encoding: 'utf8',
          },
        ).trim(),
      );
    const small = budget(['--max-old-space-size=128']);
    expect(small).toBeGreaterThan(2 * 1024 * 1024);
    expect(small).toBeLessThan(8 * 1024 * 1024);
    expect(budget(['--max-old-space-size=2048'])).toBe(16 * 1024 * 1024);
  });

  it('refuses a budget that is not a number of bytes', () => {
    expect(() => createPartStore(-1)).toThrow(/part memory budget/);
    expect(() => createPartStore(Number.NaN)).toThrow(/part memory budget/);
  });
});
