/**
 * The floor of the client's CPU: the raw fetch's requests (same plan, shards, concurrency, page
 * size and HMAC signing) sent with the global `fetch`, each body read with `response.text()` and
 * parsed with `JSON.parse`, and nothing else: no lossless check, no validation, no retry, no rate
 * limit, no item texts. What the client costs above this is what its guarantees cost.
 *
 * Imports only lib functions that the benchmark's older baselines have too (`bench:cpu --against`).
 */
import http from 'node:http';
import pLimit from 'p-limit';
import { parseExportRequest, planExport, shardQuery } from '../lib/export/index.ts';
import type { PbsClient, PbsCredentials } from '../lib/pbs/index.ts';
import { endpointTarget, signedUrl, signRequest, transactionParams } from '../lib/pbs/index.ts';

/** What the minimal fetch needs of the benchmark's task. */
export interface MinimalFetchTask {
  url: string;
  period: { from: string; to: string };
  concurrency: number;
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** How the minimal fetch sends a GET and reads its body as text: the global `fetch`, or `node:http`. */
export type Transport = 'fetch' | 'http';

/**
 * Pages every shard of the export's plan (planned through `client`, as the raw fetch plans) with
 * the bare minimum per page: a shard's first page, then at once the pages its total names, within
 * one limiter of `concurrency` requests; a shard ends on a short page, as the client's do. `http`: the same
 * over `node:http` (keep-alive, one socket per concurrent shard), `fetch`'s own cost left out.
 */
export async function minimalFetch(
  task: MinimalFetchTask,
  client: PbsClient,
  credentials: PbsCredentials,
  transport: Transport = 'fetch',
) {
  const request = parseExportRequest({ profile: 'demo', period: task.period });
  const plan = await planExport(request, client);
  const { shape } = client;
  const pagination = shape.pagination;
  if (pagination.style !== 'page') throw new Error('the minimal fetch pages by page number only');
  const itemsPath = shape.itemsPath === null || shape.itemsPath === '' ? [] : shape.itemsPath.split('.');
  const headers = { accept: 'application/json', 'x-api-key': credentials.apiKey };
  const agent = new http.Agent({ keepAlive: true, maxSockets: task.concurrency });
  const get = (url: string) =>
    transport === 'fetch' ? fetchText(url, headers) : httpText(url, headers, agent);
  const started = performance.now();
  let rows = 0;
  let pages = 0;
  // One limiter over every request, as the client's: a shard's first page says how many follow,
  // and those are asked for at once (read ahead), within the same `concurrency` requests in flight.
  const limit = pLimit(task.concurrency);
  const readPage = (params: readonly (readonly [string, string])[], page: number) =>
    limit(async () => {
      const target = endpointTarget(task.url, '/v2/transactions', [
        ...params,
        [pagination.pageParam, String(page)],
        [pagination.pageSizeParam, String(pagination.pageSize)],
      ]);
      const timestamp = Date.now();
      const signature = signRequest(target.signedPath, timestamp, credentials.apiSecret);
      const url = signedUrl(target, timestamp, signature);
      const body = JSON.parse(await get(url)) as Record<string, unknown>;
      let items: unknown = body;
      for (const key of itemsPath) items = (items as Record<string, unknown>)[key];
      const count = (items as unknown[]).length;
      rows += count;
      pages += 1;
      const totalPages = pagination.totalPagesPath === null ? undefined : body[pagination.totalPagesPath];
      return { count, totalPages: typeof totalPages === 'number' ? totalPages : undefined };
    });
  const shardPages = async (params: readonly (readonly [string, string])[]) => {
    const first = await readPage(params, pagination.firstPage);
    let last = first;
    let page = pagination.firstPage;
    if (first.totalPages !== undefined && first.totalPages > 1) {
      const rest = Array.from({ length: first.totalPages - 1 }, (_, n) => pagination.firstPage + 1 + n);
      const read = await Promise.all(rest.map((number) => readPage(params, number)));
      last = read[read.length - 1] ?? first;
      page = pagination.firstPage + first.totalPages - 1;
    }
    // A full last page is confirmed by the next (empty) one, as the client does; without a
    // total, pages follow one another until a short one.
    while (last.count === pagination.pageSize) {
      page += 1;
      last = await readPage(params, page);
    }
  };
  await Promise.all(
    plan.shards.map((shard) =>
      shardPages(transactionParams(shardQuery(shard, request.filters), shape, silent)),
    ),
  );
  agent.destroy();
  return { rows, ms: performance.now() - started, pages };
}

async function fetchText(url: string, headers: Record<string, string>): Promise<string> {
  const response = await fetch(url, { headers });
  if (!response.ok) throw new Error(`minimal fetch: HTTP ${response.status}`);
  return response.text();
}

function httpText(url: string, headers: Record<string, string>, agent: http.Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = http.get(url, { headers, agent }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`minimal fetch: HTTP ${response.statusCode}`));
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', reject);
    });
    request.on('error', reject);
  });
}
