/**
 * The smallest program that does the CSV export's job (issue #30's yardstick): the raw fetch's
 * requests (same plan, shards, page size, concurrency, HMAC signing) over the global `fetch`, and
 * per page `response.text()`, the lossless check, `JSON.parse`; then each item's text, dedupe by
 * id, order by date then id within each window, a gzipped NDJSON snapshot of the items' texts
 * (zlib level 3, on the thread pool) and the transactions CSV with our columns, written plainly.
 * No validation, no retry, no rate limit, no manifest: what the export costs above this is what
 * its guarantees and its structure cost.
 *
 * Each synchronous step is timed on its own (see {@link StepCpu}); the requests, the bodies' text
 * and the gzip's compression (on libuv's pool) show only in the whole task's CPU.
 *
 * Imports of lib: the plan (planning is not measured), the request building and signing that
 * `minimal-fetch.ts` uses too, and the lossless check; everything after the body is its own.
 */
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { createGzip, type Gzip } from 'node:zlib';
import Big from 'big.js';
import { code as currencyCode } from 'currency-codes';
import { parse as losslessParse, stringify as losslessStringify } from 'lossless-json';
import pLimit from 'p-limit';
import { mayHoldInexactNumbers } from '../lib/domain/index.ts';
import { parseExportRequest, planExport, type Shard, shardQuery } from '../lib/export/index.ts';
import type { PbsClient, PbsCredentials } from '../lib/pbs/index.ts';
import { endpointTarget, signedUrl, signRequest, transactionParams } from '../lib/pbs/index.ts';

/** What the minimal export needs of the benchmark's task. */
export interface MinimalExportTask {
  url: string;
  period: { from: string; to: string };
  concurrency: number;
}

/**
 * The synchronous steps timed, in the order they run: the lossless check, `JSON.parse`, the
 * item texts, dedupe and sort, the snapshot's lines (handed to the gzip), the CSV rows, the
 * CSV's writes. The requests, `response.text()` and the gzip's compression (on libuv's pool) are
 * not among them: they are what the whole task's CPU holds beyond these.
 */
const STEPS = ['check', 'parse', 'itemTexts', 'dedupeSort', 'snapshot', 'csvRows', 'write'] as const;
type Step = (typeof STEPS)[number];
/**
 * Per step, milliseconds of the process's CPU (every thread: a pool thread compressing meanwhile
 * is counted too) under its name, and of wall time under `<step>Wall` (preemption counted too):
 * the step's own CPU is at most the smaller of the two.
 */
export type StepCpu = Record<Step | `${Step}Wall`, number>;

/** Where a step started: the process's CPU and the wall clock. */
interface Mark {
  cpu: NodeJS.CpuUsage;
  wall: number;
}

const mark = (): Mark => ({ cpu: process.cpuUsage(), wall: performance.now() });

/** One transaction as the service sends it (the default field map). */
export type Item = Record<string, unknown>;
/** An item with what the steps after the fetch need: its text, instant and window. */
export interface Fetched {
  item: Item;
  text: string;
  ms: number;
  id: string;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** The paths the default field map reads: every other leaf is an extra column. */
const CONSUMED = new Set([
  'id',
  'date',
  'type',
  'subType',
  'category',
  'protocol',
  'hash',
  'accountId',
  'ledgerId',
  'movements',
  'value.amount',
  'value.currency',
  'fee.amount',
  'fee.currency',
  'fee.symbol',
  'fee.quantity',
  'lastModifiedDate',
  'source.sourceGuid',
  'source.name',
  'deleted',
]);

export const HEADER = [
  'id',
  'date_utc',
  'date_local',
  'type',
  'sub_type',
  'category',
  'protocol',
  'hash',
  'account_id',
  'ledger_id',
  'in',
  'out',
  'value_amount',
  'value_currency',
  'fee_amount',
  'fee_currency',
  'fee_symbol',
  'fee_quantity',
];

/** Every step at 0 ms. */
function newSteps(): StepCpu {
  return Object.fromEntries(
    STEPS.flatMap((step) => [
      [step, 0],
      [`${step}Wall`, 0],
    ]),
  ) as StepCpu;
}

/** Adds the CPU (user + system) and wall milliseconds since `since` to `step`. */
function charge(steps: StepCpu, step: Step, since: Mark): void {
  const used = process.cpuUsage(since.cpu);
  steps[step] += (used.user + used.system) / 1000;
  steps[`${step}Wall`] += performance.now() - since.wall;
}

/** A CSV row before the columns are fixed: its fixed columns' text, and its extra leaves if any. */
interface PendingRow {
  fixed: string;
  extras: Record<string, string | null> | null;
}

/**
 * Runs the minimal export of `task` into `workDir` (`minimal.csv`, `minimal.ndjson.gz`): pages
 * every shard of the plan; each window, once all its shards are in (in plan order), is
 * deduplicated, ordered, gzipped into the snapshot and turned into CSV rows; the CSV is written
 * once every extra column is known. Returns the bench figures and the per-step CPU.
 */
export async function minimalExport(
  task: MinimalExportTask,
  client: PbsClient,
  credentials: PbsCredentials,
  workDir: string,
) {
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, client);
  const steps = newSteps();
  const started = performance.now();
  const snapshot = openSnapshot(join(workDir, 'minimal.ndjson.gz'));
  const windows = windowsInOrder(plan.shards, steps, snapshot.gzip);
  const pages = await fetchAll(
    task,
    client,
    credentials,
    plan.shards,
    request.filters,
    windows.arrived,
    steps,
  );
  const fetchMs = performance.now() - started;
  let at = mark();
  snapshot.gzip.end();
  charge(steps, 'snapshot', at);
  const rows = await writeCsv(
    join(workDir, 'minimal.csv'),
    windows.rows,
    [...windows.extraPaths].sort(),
    steps,
  );
  at = mark();
  await snapshot.done;
  charge(steps, 'snapshot', at);
  return { rows, ms: performance.now() - started, fetchMs, pages, shards: plan.shards.length, steps };
}

/**
 * Takes each shard's items as they arrive and handles the plan's windows strictly in order (a
 * window once all its shards are in): dedupe by id (the first in plan order wins), order by date
 * then id, snapshot lines into `gzip`, CSV rows kept until the extra columns are known. Only
 * the windows waiting for an earlier one hold parsed items.
 */
function windowsInOrder(shards: readonly Shard[], steps: StepCpu, gzip: Gzip) {
  const arrivedItems: (Fetched[] | undefined)[] = shards.map(() => undefined);
  const seen = new Set<string>();
  const rows: PendingRow[] = [];
  const extraPaths = new Set<string>();
  let next = 0;
  const handle = (label: string, parts: Fetched[][]) => {
    let at = mark();
    const items: Fetched[] = [];
    for (const part of parts) {
      for (const fetched of part) {
        if (seen.has(fetched.id)) continue;
        seen.add(fetched.id);
        items.push(fetched);
      }
    }
    items.sort((a, b) => a.ms - b.ms || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    charge(steps, 'dedupeSort', at);
    at = mark();
    const head = `{"kind":"transaction","shard":${JSON.stringify(label)},"data":`;
    let lines = '';
    for (const fetched of items) lines += `${head}${fetched.text}}\n`;
    // One write a window: few, large chunks for the pool thread.
    gzip.write(lines);
    charge(steps, 'snapshot', at);
    at = mark();
    for (const { item, ms } of items) {
      const extras = extrasOf(item);
      let any = false;
      for (const path in extras) {
        extraPaths.add(path);
        any = true;
      }
      rows.push({ fixed: fixedCells(item, ms), extras: any ? extras : null });
    }
    charge(steps, 'csvRows', at);
  };
  const arrived = (index: number, items: Fetched[]) => {
    arrivedItems[index] = items;
    while (next < shards.length) {
      const window = (shards[next] as Shard).window;
      let end = next;
      while (end < shards.length && (shards[end] as Shard).window.index === window.index) end += 1;
      const parts = arrivedItems.slice(next, end);
      if (parts.some((part) => part === undefined)) return;
      handle(window.label, parts as Fetched[][]);
      arrivedItems.fill(undefined, next, end);
      next = end;
    }
  };
  return { arrived, rows, extraPaths };
}

/** The snapshot file: a gzip stream (level 3, compressing on libuv's pool) after a header line. */
function openSnapshot(path: string): { gzip: Gzip; done: Promise<void> } {
  const gzip = createGzip({ level: 3 });
  const done = new Promise<void>((resolve, reject) => {
    gzip.pipe(createWriteStream(path)).on('finish', resolve).on('error', reject);
    gzip.on('error', reject);
  });
  gzip.write(`${JSON.stringify({ kind: 'header', format: 'minimal' })}\n`);
  return { gzip, done };
}

/**
 * Pages every shard, `concurrency` shards at a time in plan order, handing each shard's
 * items to `arrived` once its last page is in; returns how many pages it read.
 */
async function fetchAll(
  task: MinimalExportTask,
  client: PbsClient,
  credentials: PbsCredentials,
  shards: readonly Shard[],
  filters: Parameters<typeof shardQuery>[1],
  arrived: (index: number, items: Fetched[]) => void,
  steps: StepCpu,
): Promise<number> {
  const limit = pLimit(task.concurrency);
  let pages = 0;
  await Promise.all(
    shards.map((shard, index) =>
      limit(async () => {
        const fetched = await fetchShardItems(task, client, credentials, shard, filters, steps);
        pages += fetched.pages;
        arrived(index, fetched.items);
      }),
    ),
  );
  return pages;
}

/** Pages one shard through to its last page: its items (with their texts) and how many pages it read. */
export async function fetchShardItems(
  task: Pick<MinimalExportTask, 'url'>,
  client: PbsClient,
  credentials: PbsCredentials,
  shard: Shard,
  filters: Parameters<typeof shardQuery>[1],
  steps: StepCpu = newSteps(),
): Promise<{ items: Fetched[]; pages: number }> {
  const { shape } = client;
  const pagination = shape.pagination;
  if (pagination.style !== 'page') throw new Error('the minimal export pages by page number only');
  const itemsPath = shape.itemsPath === null || shape.itemsPath === '' ? [] : shape.itemsPath.split('.');
  const headers = { accept: 'application/json', 'x-api-key': credentials.apiKey };
  const params = transactionParams(shardQuery(shard, filters), shape, silent);
  const items: Fetched[] = [];
  for (let page = pagination.firstPage, pages = 1; ; page++, pages++) {
    const target = endpointTarget(task.url, '/v2/transactions', [
      ...params,
      [pagination.pageParam, String(page)],
      [pagination.pageSizeParam, String(pagination.pageSize)],
    ]);
    const timestamp = Date.now();
    const url = signedUrl(
      target,
      timestamp,
      signRequest(target.signedPath, timestamp, credentials.apiSecret),
    );
    const response = await fetch(url, { headers });
    if (!response.ok) throw new Error(`minimal export: HTTP ${response.status}`);
    const count = pageItems(await response.text(), itemsPath, shard, items, steps);
    if (count < pagination.pageSize) return { items, pages };
  }
}

/**
 * Parses one page (lossless-json where `JSON.parse` might round a number) and appends its items
 * with their texts to `out`; returns how many the page held.
 */
function pageItems(body: string, itemsPath: string[], shard: Shard, out: Fetched[], steps: StepCpu): number {
  let at = mark();
  const exact = !mayHoldInexactNumbers(body);
  charge(steps, 'check', at);
  at = mark();
  let items: unknown = exact ? JSON.parse(body) : losslessParse(body);
  for (const key of itemsPath) items = (items as Record<string, unknown>)[key];
  const list = items as Item[];
  charge(steps, 'parse', at);
  at = mark();
  const stringify = exact ? JSON.stringify : (value: unknown) => losslessStringify(value) as string;
  for (const item of list) {
    // A shard of the rest of a window keeps only the protocols it was not searched by.
    if (shard.otherThan?.includes(item.protocol as string)) continue;
    // The simplest correct item text: the parsed item written back (the service's compact JSON
    // comes back the same, escapes aside), not a slice of the body.
    out.push({ item, text: stringify(item), ms: Date.parse(item.date as string), id: item.id as string });
  }
  charge(steps, 'itemTexts', at);
  return list.length;
}

/** The transactions CSV (BOM, header, CRLF): the pending rows with their extra columns. */
async function writeCsv(path: string, rows: PendingRow[], extras: string[], steps: StepCpu): Promise<number> {
  const file = createWriteStream(path);
  const write = (text: string) =>
    new Promise<void>((resolve, reject) => file.write(text, (error) => (error ? reject(error) : resolve())));
  let at = mark();
  await write(`\ufeff${[...HEADER, ...extras.map(guard)].map(quote).join(',')}\r\n`);
  charge(steps, 'write', at);
  const CHUNK = 2_000;
  for (let start = 0; start < rows.length; start += CHUNK) {
    at = mark();
    let chunk = '';
    for (const row of rows.slice(start, start + CHUNK)) {
      chunk += row.fixed;
      for (const path of extras) chunk += `,${quote(guard(row.extras?.[path] ?? ''))}`;
      chunk += '\r\n';
    }
    charge(steps, 'csvRows', at);
    at = mark();
    await write(chunk);
    charge(steps, 'write', at);
  }
  at = mark();
  await new Promise<void>((resolve, reject) =>
    file.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  charge(steps, 'write', at);
  return rows.length;
}

/** Each key's extra path under each prefix, null for a path the field map reads (keys repeat item after item). */
const pathsUnder = new Map<string, Map<string, string | null>>();

/** The path of `key` under `prefix` (`a.b`, `["odd key"]`), null when the field map reads it. */
function pathOf(prefix: string, key: string): string | null {
  let paths = pathsUnder.get(prefix);
  if (paths === undefined) {
    paths = new Map();
    pathsUnder.set(prefix, paths);
  }
  let path = paths.get(key);
  if (path === undefined) {
    const own =
      key === '' || /[.[\]"]/.test(key)
        ? `${prefix}[${JSON.stringify(key)}]`
        : prefix === ''
          ? key
          : `${prefix}.${key}`;
    path = CONSUMED.has(own) ? null : own;
    // Bounded: a hostile service could send new keys with every item.
    if (paths.size < 10_000) paths.set(key, path);
  }
  return path;
}

/** An item's extra leaves by path; objects nest, arrays are JSON text. */
export function extrasOf(
  value: Item,
  prefix = '',
  out: Record<string, string | null> = Object.create(null),
): Record<string, string | null> {
  for (const key of Object.keys(value)) {
    const child = value[key];
    if (child === undefined) continue;
    const path = pathOf(prefix, key);
    if (path === null) continue;
    if (isObject(child) && Object.keys(child).length > 0) extrasOf(child, path, out);
    else out[path] = textOf(child);
  }
  return out;
}

function isObject(value: unknown): value is Item {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && !isLosslessNumber(value);
}

function isLosslessNumber(value: unknown): value is { isLosslessNumber: true; value: string } {
  return (value as { isLosslessNumber?: boolean } | null)?.isLosslessNumber === true;
}

/** A leaf as its text: strings as sent, numbers and booleans as written, others as JSON. */
function textOf(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isLosslessNumber(value)) return value.value;
  return losslessStringify(value) as string;
}

/** The fixed columns of an item's CSV row, joined (its extra columns come later). */
export function fixedCells(item: Item, ms: number): string {
  const value = (item.value ?? {}) as Item;
  const fee = (item.fee ?? {}) as Item;
  const date = new Date(ms).toISOString().slice(0, 23);
  const movements = (item.movements ?? []) as Item[];
  const cells = [
    text(item.id),
    date,
    date,
    text(item.type),
    text(item.subType),
    text(item.category),
    text(item.protocol),
    text(item.hash),
    text(item.accountId),
    text(item.ledgerId),
    guard(quantities(movements, false)),
    guard(quantities(movements, true)),
    money(decimalOf(value.amount), textOf(value.currency)),
    text(value.currency),
    money(decimalOf(fee.amount), textOf(fee.currency)),
    text(fee.currency),
    text(fee.symbol),
    decimalOf(fee.quantity) ?? '',
  ];
  return cells.map(quote).join(',');
}

/** A text cell: empty for null, guarded against formulas. */
function text(value: unknown): string {
  return guard(textOf(value) ?? '');
}

const FORMULA_START = /^'*[=+\-@\t\r]/;
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Text as a spreadsheet shows it, not runs it; lone surrogates replaced (UTF-8 cannot hold them). */
export function guard(value: string): string {
  const whole = SURROGATE.test(value) ? value.replace(LONE_SURROGATE, '\ufffd') : value;
  return FORMULA_START.test(whole) ? `'${whole}` : whole;
}

/** Quoted as RFC 4180 needs: a field holding a comma, a quote, CR or LF. */
export function quote(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/**
 * A decimal in plain form, as sent where it is one (`0.10` stays) but for leading zeros and the
 * sign of a zero (`-0.000` → `0.000`); other forms (`1.5E+3`, `1e-7`) written out by big.js.
 */
function decimalOf(value: unknown): string | null {
  const text = textOf(value);
  if (text === null) return null;
  const plain = /^(-?)0*(\d+(?:\.\d+)?)$/.exec(text);
  if (plain !== null) {
    // Leading zeros dropped (`00012.50` → `12.50`), the scale kept.
    const [, sign, digits] = plain as unknown as [string, string, string];
    return sign === '-' && !/^[0.]+$/.test(digits) ? `-${digits}` : digits;
  }
  return new Big(text).toFixed();
}

/** A plain decimal: sign, integer part, fraction without its trailing zeros. */
const PLAIN_DECIMAL = /^(-?)(0|[1-9]\d*)(?:\.(?=\d)(\d*[1-9])?0*)?$/;

/** `7.5 WBTC; 2 ETH`: the movements in (or out, without sign), trailing zeros trimmed. */
function quantities(movements: readonly Item[], out: boolean): string {
  const parts: string[] = [];
  for (const movement of movements) {
    const amount = textOf(movement.amount) ?? '0';
    // Plain decimals by their characters; any other form (exponents, `+`) through big.js.
    const plain = PLAIN_DECIMAL.exec(amount);
    let negative: boolean;
    let magnitude: string;
    if (plain === null) {
      const big = new Big(amount);
      negative = big.lt(0);
      magnitude = big.abs().toFixed();
    } else {
      const [, sign, integer, fraction] = plain;
      negative = sign === '-' && (integer !== '0' || fraction !== undefined);
      magnitude = fraction === undefined ? (integer as string) : `${integer}.${fraction}`;
    }
    if (negative !== out) continue;
    parts.push(`${magnitude} ${textOf(movement.symbol) ?? ''}`);
  }
  return parts.join('; ');
}

const minorUnits = new Map<string, number | null>();
const NO_MINOR_UNIT = /^X(AG|AU|BA|BB|BC|BD|DR|PD|PT|SU|TS|UA|XX)$/;

/** `amount` to `currency`'s ISO 4217 minor unit, half to even; as sent without one. */
function money(amount: string | null, currency: string | null): string {
  if (amount === null) return '';
  if (currency === null) return amount;
  let digits = minorUnits.get(currency);
  if (digits === undefined) {
    digits =
      !/^[A-Z]{3}$/.test(currency) || NO_MINOR_UNIT.test(currency)
        ? null
        : (currencyCode(currency)?.digits ?? null);
    minorUnits.set(currency, digits);
  }
  if (digits === null) return amount;
  // Already at the minor unit, or short of it: as sent, padded; only longer amounts are rounded.
  const plain = /^-?\d+(?:\.(\d+))?$/.exec(amount);
  const scale = plain === null ? undefined : (plain[1]?.length ?? 0);
  if (scale === digits) return amount;
  if (scale !== undefined && scale < digits)
    return `${amount}${scale === 0 ? '.' : ''}${'0'.repeat(digits - scale)}`;
  const rounded = new Big(amount).round(digits, Big.roundHalfEven).toFixed(digits);
  return /^-[0.]+$/.test(rounded) ? rounded.slice(1) : rounded;
}
