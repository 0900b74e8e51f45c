/**
 * The plain exporter (issue #41's "plain program of the same job, written to be fast"): the CSV
 * export's job (the transactions CSV and the snapshot's records) written the way the issue's
 * independent exporter was described, against the same simulator, plan, page size, concurrency
 * and request signing as the project:
 *
 * - each page scanned once for each item's text span (`plain-scan.ts`, which also tells whether a
 *   number token would not survive a double), then parsed once: lossless-json for such a page,
 *   `JSON.parse` for every other; each item turned into its CSV row's cells at once, so the parsed
 *   page is garbage as soon as it is read;
 * - a window, once its shards are in (in plan order), checked from its ids and instants: in
 *   (instant, id) order, each within the window, it is written as it came; only a window failing
 *   that is de-duplicated (first in plan order wins) and sorted;
 * - one window's rows written straight to the CSV and its items' own texts straight to the gzip
 *   snapshot; nothing encoded to an intermediate line and read back; no summaries.
 *
 * The CSV's columns are fixed by the first window with transactions, as the project's live CSV
 * is; a later item with an extra field no earlier one had means the CSV is written again, from
 * the snapshot, at the end (the project renders from the snapshot then too). No validation, no
 * retry, no rate limit, no manifest.
 *
 * Imports of lib: the plan and the request building and signing (as `minimal-fetch.ts`); the
 * row cells are `minimal-export.ts`'s (whose CSV its own test holds to the project's).
 */
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip, type Gzip } from 'node:zlib';
import { parse as losslessParse } from 'lossless-json';
import pLimit from 'p-limit';
import { mayHoldInexactNumbers } from '../lib/domain/index.ts';
import { parseExportRequest, planExport, type Shard, shardQuery } from '../lib/export/index.ts';
import type { PbsClient, PbsCredentials } from '../lib/pbs/index.ts';
import { decodeUtf8, endpointTarget, signedUrl, signRequest, transactionParams } from '../lib/pbs/index.ts';
import { extrasOf, fixedCells, guard, HEADER, type Item, quote } from './minimal-export.ts';
import { scanPage } from './plain-scan.ts';

/** What the plain exporter needs of the benchmark's task. */
export interface PlainExportTask {
  url: string;
  period: { from: string; to: string };
  concurrency: number;
  /** The export's protocols (`'all'`: a shard per protocol and window, plus the rest). */
  protocols?: 'all' | string[];
}

/** One item as the window needs it: its instant, id, own text and CSV row (cells). */
export interface PlainItem {
  ms: number;
  id: string;
  text: string;
  /** Its snapshot record's start, naming its shard (one string shared by the shard's items). */
  head: string;
  /** The fixed columns' cells, joined. */
  fixed: string;
  /** Its extra leaves by path, or null for an item without any. */
  extras: Record<string, string | null> | null;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The snapshot's first line (not compared: the project's names its run). */
const SNAPSHOT_HEADER = `${JSON.stringify({ kind: 'header', format: 'plain' })}\n`;

/**
 * Runs the plain export of `task` into `workDir` (`plain.csv`, `plain.ndjson.gz`); returns the
 * bench figures and how many windows needed the dedupe and sort.
 */
export async function plainExport(
  task: PlainExportTask,
  client: PbsClient,
  credentials: PbsCredentials,
  workDir: string,
) {
  const request = parseExportRequest({
    profile: 'demo',
    period: task.period,
    ...(task.protocols !== undefined ? { protocols: task.protocols } : {}),
  });
  const plan = await planExport(request, client);
  const started = performance.now();
  const csvFile = join(workDir, 'plain.csv');
  const snapshotFile = join(workDir, 'plain.ndjson.gz');
  const out = openOutputs(csvFile, snapshotFile);
  const windows = windowsInOrder(plan.shards, out);
  const arrived = async (index: number, items: PlainItem[][]) => {
    windows.arrived(index, items);
    await out.drained();
  };
  const pages = await fetchAll(task, client, credentials, plan.shards, request.filters, arrived);
  const fetchMs = performance.now() - started;
  await out.close(windows.columns() ?? []);
  const extras = [...windows.extraPaths].sort();
  const rerendered = (windows.columns()?.length ?? 0) !== extras.length;
  if (rerendered) await csvFromSnapshot(snapshotFile, csvFile, extras);
  return {
    rows: windows.rows(),
    ms: performance.now() - started,
    fetchMs,
    pages,
    shards: plan.shards.length,
    sortedWindows: windows.sortedWindows(),
    rerendered,
  };
}

/** The two files written as windows complete: the CSV and the gzipped snapshot (level 3, on libuv's pool). */
function openOutputs(csvFile: string, snapshotFile: string) {
  const csv = createWriteStream(csvFile);
  const gzip = createGzip({ level: 3 });
  const snapshotDone = finished(gzip.pipe(createWriteStream(snapshotFile)), gzip);
  gzip.write(SNAPSHOT_HEADER);
  let headed = false;
  const head = (columns: readonly string[]) => {
    headed = true;
    csv.write(`\ufeff${[...HEADER, ...columns.map(guard)].map(quote).join(',')}\r\n`);
  };
  return {
    gzip,
    head,
    csv,
    /**
     * Resolves once neither file holds more than its buffer (the gzip compresses on libuv's
     * pool): a shard's slot waits for it, so that fetching does not run ahead of the writing.
     */
    async drained() {
      if (gzip.writableNeedDrain) await new Promise<void>((resolve) => gzip.once('drain', () => resolve()));
      if (csv.writableNeedDrain) await new Promise<void>((resolve) => csv.once('drain', () => resolve()));
    },
    /** Ends both files (a CSV without any transaction gets its header now). */
    async close(columns: readonly string[]) {
      if (!headed) head(columns);
      const csvDone = finished(csv);
      csv.end();
      gzip.end();
      await Promise.all([csvDone, snapshotDone]);
    },
  };
}

/** Resolves once `stream` has flushed; rejects on its (or `also`'s) error. */
function finished(stream: WriteStream, also?: Gzip): Promise<void> {
  return new Promise((resolve, reject) => {
    stream.on('finish', resolve).on('error', reject);
    also?.on('error', reject);
  });
}

type Outputs = ReturnType<typeof openOutputs>;

/**
 * Takes each shard's items as they arrive and handles the plan's windows strictly in order (a
 * window once all its shards are in): order check, dedupe and sort only when it fails, then the
 * snapshot lines and the CSV rows written. Only windows waiting for an earlier one are held.
 */
export function windowsInOrder(shards: readonly Shard[], out: Pick<Outputs, 'gzip' | 'head' | 'csv'>) {
  const arrivedItems: (PlainItem[][] | undefined)[] = shards.map(() => undefined);
  const extraPaths = new Set<string>();
  let columns: string[] | null = null;
  let rows = 0;
  let sorted = 0;
  let next = 0;
  const handle = (window: Shard['window'], parts: PlainItem[][]) => {
    let items = inOrderWithin(parts, window);
    if (items === null) {
      items = dedupeAndSort(parts, window);
      sorted += 1;
    }
    if (items.length === 0) return;
    for (const item of items) if (item.extras !== null) for (const path in item.extras) extraPaths.add(path);
    if (columns === null) {
      columns = [...extraPaths].sort();
      out.head(columns);
    }
    let lines = '';
    let csv = '';
    for (const item of items) {
      lines += `${item.head}${item.text}}\n`;
      csv += item.fixed;
      for (const path of columns) csv += `,${quote(guard(item.extras?.[path] ?? ''))}`;
      csv += '\r\n';
    }
    out.gzip.write(lines);
    out.csv.write(csv);
    rows += items.length;
  };
  const arrived = (index: number, items: PlainItem[][]) => {
    arrivedItems[index] = items;
    while (next < shards.length) {
      const window = (shards[next] as Shard).window;
      let end = next;
      while (end < shards.length && (shards[end] as Shard).window.index === window.index) end += 1;
      const parts = arrivedItems.slice(next, end);
      if (parts.some((part) => part === undefined)) return;
      handle(window, (parts as PlainItem[][][]).flat());
      arrivedItems.fill(undefined, next, end);
      next = end;
    }
  };
  return {
    arrived,
    extraPaths,
    columns: () => columns as string[] | null,
    rows: () => rows,
    sortedWindows: () => sorted,
  };
}

/**
 * A window's items as they came (its pages in plan order) when they are in (instant, id) order,
 * each id after the last, all dated within the window; null otherwise. Items dated within their
 * window cannot repeat another window's, so no set of ids is kept across windows.
 */
export function inOrderWithin(parts: readonly PlainItem[][], window: Shard['window']): PlainItem[] | null {
  const start = window.start.getTime();
  const end = window.end.getTime();
  let last: PlainItem | undefined;
  for (const part of parts) {
    for (const item of part) {
      if (!(item.ms >= start && item.ms < end)) return null;
      if (last !== undefined && (item.ms < last.ms || (item.ms === last.ms && item.id <= last.id)))
        return null;
      last = item;
    }
  }
  return parts.length === 1 ? (parts[0] as PlainItem[]) : parts.flat();
}

/**
 * A window's items once each (the first in plan order), by instant then id. An item dated
 * outside the window is refused: the project moves it to the window of its date, which this plain
 * program does not do.
 */
export function dedupeAndSort(parts: readonly PlainItem[][], window: Shard['window']): PlainItem[] {
  const start = window.start.getTime();
  const end = window.end.getTime();
  const seen = new Set<string>();
  const items: PlainItem[] = [];
  for (const part of parts) {
    for (const item of part) {
      if (!(item.ms >= start && item.ms < end)) {
        throw new Error(`plain export: transaction ${item.id} is dated outside window ${window.label}`);
      }
      if (seen.has(item.id)) continue;
      seen.add(item.id);
      items.push(item);
    }
  }
  return items.sort((a, b) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Pages every shard, `concurrency` shards and `concurrency` requests at a time, as the raw fetch
 * and its client do: a shard's first page, then at once the pages its total names, then on while
 * the last is full. Hands
 * each shard's pages (in page order) to `arrived`; returns how many pages it read.
 */
async function fetchAll(
  task: PlainExportTask,
  client: PbsClient,
  credentials: PbsCredentials,
  shards: readonly Shard[],
  filters: Parameters<typeof shardQuery>[1],
  arrived: (index: number, pages: PlainItem[][]) => Promise<void>,
): Promise<number> {
  const { shape } = client;
  const pagination = shape.pagination;
  if (pagination.style !== 'page') throw new Error('the plain export pages by page number only');
  const itemsPath = shape.itemsPath === null || shape.itemsPath === '' ? [] : shape.itemsPath.split('.');
  const headers = { accept: 'application/json', 'x-api-key': credentials.apiKey };
  const limit = pLimit(task.concurrency);
  let pages = 0;
  const readPage = (shard: Shard, params: readonly (readonly [string, string])[], page: number) =>
    limit(async () => {
      const target = endpointTarget(task.url, '/v2/transactions', [
        ...params,
        [pagination.pageParam, String(page)],
        [pagination.pageSizeParam, String(pagination.pageSize)],
      ]);
      const timestamp = Date.now();
      const signature = signRequest(target.signedPath, timestamp, credentials.apiSecret);
      const response = await fetch(signedUrl(target, timestamp, signature), { headers });
      if (!response.ok) throw new Error(`plain export: HTTP ${response.status}`);
      pages += 1;
      // The project's decoding of a body (ASCII stretches copied as they are): `text()` decodes a
      // page with an accented name in every item byte by byte.
      const body = decodeUtf8(Buffer.from(await response.arrayBuffer()));
      return readItems(body, itemsPath, pagination.totalPagesPath, shard);
    });
  const shardPages = async (shard: Shard): Promise<PlainItem[][]> => {
    const params = transactionParams(shardQuery(shard, filters), shape, silent);
    const first = await readPage(shard, params, pagination.firstPage);
    const read = [first];
    let page = pagination.firstPage;
    if (first.totalPages !== undefined && first.totalPages > 1) {
      const rest = Array.from({ length: first.totalPages - 1 }, (_, n) => pagination.firstPage + 1 + n);
      read.push(...(await Promise.all(rest.map((number) => readPage(shard, params, number)))));
      page += first.totalPages - 1;
    }
    // A full last page is confirmed by the next (empty) one; without a total, pages follow one
    // another until a short one.
    while ((read[read.length - 1] as { count: number }).count === pagination.pageSize) {
      page += 1;
      read.push(await readPage(shard, params, page));
    }
    return read.map((one) => one.items);
  };
  // Shards start in plan order, `concurrency` at a time, so that windows complete nearly in
  // order and few wait in memory for an earlier one; the request limiter keeps the pages read
  // ahead within the same `concurrency` requests in flight.
  const shardLimit = pLimit(task.concurrency);
  await Promise.all(
    shards.map((shard, index) => shardLimit(async () => arrived(index, await shardPages(shard)))),
  );
  return pages;
}

/**
 * One page: scanned for its items' texts, parsed once (lossless-json when the scan met a number
 * a double would change), each item turned into its row's cells; the parsed page is dropped here.
 */
export function readItems(
  body: string,
  itemsPath: readonly string[],
  totalPagesPath: string | null,
  shard: Pick<Shard, 'id' | 'otherThan'>,
): { items: PlainItem[]; count: number; totalPages?: number } {
  const head = `{"kind":"transaction","shard":${JSON.stringify(shard.id)},"data":`;
  const scanned = scanPage(body, itemsPath);
  const parsed = (scanned.inexact ? losslessParse(body) : JSON.parse(body)) as Record<string, unknown>;
  let list: unknown = parsed;
  for (const key of itemsPath) list = (list as Record<string, unknown>)[key];
  const texts = scanned.texts;
  if (!Array.isArray(list) || texts === null || texts.length !== list.length) {
    throw new Error('plain export: a page without its list of items');
  }
  const items: PlainItem[] = [];
  for (let n = 0; n < list.length; n += 1) {
    const item = list[n] as Item;
    // A shard of the rest of a window keeps only the protocols it was not searched by.
    if (shard.otherThan?.includes(item.protocol as string)) continue;
    const ms = Date.parse(item.date as string);
    const extras = extrasOf(item);
    let any = false;
    for (const _ in extras) {
      any = true;
      break;
    }
    const text = texts[n] as string;
    items.push({
      ms,
      id: item.id as string,
      text,
      head,
      fixed: fixedCells(item, ms),
      extras: any ? extras : null,
    });
  }
  const total = totalPagesPath === null ? undefined : Number(parsed[totalPagesPath]);
  return {
    items,
    count: list.length,
    ...(total !== undefined && Number.isInteger(total) ? { totalPages: total } : {}),
  };
}

/**
 * The CSV written again from the snapshot with every extra column (an item of a later window had
 * a field the first window's did not): each transaction line parsed once, in snapshot order.
 */
async function csvFromSnapshot(snapshotFile: string, csvFile: string, extras: readonly string[]) {
  const csv = createWriteStream(csvFile);
  const done = finished(csv);
  csv.write(`\ufeff${[...HEADER, ...extras.map(guard)].map(quote).join(',')}\r\n`);
  const lines = createInterface({ input: createReadStream(snapshotFile).pipe(createGunzip()) });
  for await (const line of lines) {
    if (!line.startsWith('{"kind":"transaction"')) continue;
    const record = (mayHoldInexactNumbers(line) ? losslessParse(line) : JSON.parse(line)) as { data: Item };
    const item = record.data;
    const values = extrasOf(item);
    let row = fixedCells(item, Date.parse(item.date as string));
    for (const path of extras) row += `,${quote(guard(values[path] ?? ''))}`;
    if (!csv.write(`${row}\r\n`)) await new Promise<void>((resolve) => csv.once('drain', () => resolve()));
  }
  csv.end();
  await done;
}
